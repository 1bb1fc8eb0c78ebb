import type { Page } from "playwright-core";

export interface ScrapeHooks {
  onFormat?: (format: string, ms: number, ok: boolean) => void;
  /** Runs on the rendered page before its context closes (a crawl reads the page's links here). */
  onPage?: (page: Page) => Promise<void>;
}
