import type { Page } from "playwright-core";

export interface ScrapeHooks {
  onFormat?: (format: string, ms: number, ok: boolean) => void;
  /**
   * Runs on the rendered page before its context closes (a crawl reads the page's links here). A hook
   * that read the page's title beside its own read returns it: the reply then needs no call for it.
   */
  onPage?: (page: Page) => Promise<{ title: string } | undefined>;
}
