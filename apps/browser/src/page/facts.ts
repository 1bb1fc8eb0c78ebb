import type { Page } from "playwright-core";
import type { FormatOutcome } from "../formats/render.ts";
import type { OpenedPage } from "./navigation.ts";

/**
 * What every reply says of the page as it stands: its URL, its title, how the wait for it ended, how
 * far it was scrolled, and what was cut. `title`: the title read already, beside the formats' own
 * calls into the page (a session's act), instead of one more round trip after them.
 */
export async function pageFacts(
  page: Page,
  outcome: FormatOutcome,
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
