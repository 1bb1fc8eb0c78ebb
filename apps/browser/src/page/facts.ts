import type { Page } from "playwright-core";
import type { FormatOutcome } from "../formats/render.ts";

/** What every reply says of the page as it stands: its URL, its title, and what was cut. */
export async function pageFacts(page: Page, outcome: FormatOutcome, fromUrl = true) {
  const title = await page.title().catch(() => undefined);
  return {
    url: fromUrl ? page.url() : "about:blank",
    title: title || undefined,
    ...(outcome.controlsTruncated ? { controlsTruncated: true } : {}),
    ...(outcome.screenshotTruncated ? { screenshotTruncated: true } : {}),
    ...(outcome.mainContent ? { mainContent: outcome.mainContent } : {}),
    ...(outcome.markdownDegraded ? { markdownDegraded: true } : {}),
  };
}
