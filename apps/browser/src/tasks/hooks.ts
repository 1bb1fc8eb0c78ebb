import type { Page } from "playwright-core";
import type { FrameRead } from "../injected/lib/links-and-title.ts";

export interface ScrapeHooks {
  onFormat?: (format: string, ms: number, ok: boolean) => void;
  /**
   * Runs on the rendered page before its context closes (a crawl reads the page's links here). A hook
   * that read the page's title beside its own read returns it: the reply then needs no call for it.
   * `read`: the page's link targets (at most `links`) and title, when a format read them beside the
   * composed DOM.
   */
  onPage?: (page: Page, read?: FrameRead) => Promise<{ title: string } | undefined>;
  /** The page's link targets are wanted (at most this many): formats that read the DOM read them too. */
  links?: number;
}
