import type { MainContentStatus, PageType } from "@browserfleet/markdown";
import type { Page } from "playwright-core";
import type { OpenedPage } from "./navigation.ts";
import type { ClearOverlaysResult } from "./overlays.ts";

/** What rendering the formats noted for the reply's metadata (formats/render.ts's FormatOutcome has it). */
export interface PageOutcome {
  controlsTruncated?: boolean;
  screenshotTruncated?: boolean;
  /** For metadata.mainContent: set when the request asked for onlyMainContent. */
  mainContent?: MainContentStatus;
  /** For metadata.markdownDegraded: the conversion ran out of time and markdown is plain text. */
  markdownDegraded?: boolean;
  /** For metadata.pageType: set with onlyMainContent. */
  pageType?: PageType;
  /** For metadata.overlays: what was cleared before screenshot, pdf or controls. */
  overlays?: ClearOverlaysResult;
  /** For metadata.frames: iframes and shadow roots composed into markdown or html. */
  frames?: { frames: number; shadowRoots: number; truncated: boolean };
}

/**
 * What every reply says of the page as it stands: its URL, its title, how the wait for it ended, how
 * far it was scrolled, and what was cut. `title`: the title read already, beside the formats' own
 * calls into the page (a session's act), instead of one more round trip after them.
 */
export async function pageFacts(
  page: Page,
  outcome: PageOutcome,
  fromUrl = true,
  opened: Pick<OpenedPage, "settle" | "scroll"> = {},
  titleRead?: Promise<string>,
) {
  const title = await (titleRead ?? page.title()).catch(() => undefined);
  return {
    ...(opened.settle ? { settle: opened.settle } : {}),
    ...(opened.scroll ? { scroll: opened.scroll } : {}),
    url: fromUrl ? page.url() : "about:blank",
    title: title || undefined,
    ...(outcome.controlsTruncated ? { controlsTruncated: true } : {}),
    ...(outcome.screenshotTruncated ? { screenshotTruncated: true } : {}),
    ...(outcome.mainContent ? { mainContent: outcome.mainContent } : {}),
    ...(outcome.markdownDegraded ? { markdownDegraded: true } : {}),
    ...(outcome.pageType ? { pageType: outcome.pageType } : {}),
    ...(outcome.overlays && (outcome.overlays.dismissed.length || outcome.overlays.hidden)
      ? { overlays: outcome.overlays }
      : {}),
    ...(outcome.frames ? { frames: outcome.frames } : {}),
  };
}
