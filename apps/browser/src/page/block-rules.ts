import type { Format, ScrapeRequest } from "@browserfleet/contracts";
import type { BrowserContext, Page } from "playwright-core";
import { globToRegExp } from "./glob.ts";

/** The caller's block rules. Routing costs a round trip per request, so it is installed only when there are rules. */
export async function installBlockRules(
  context: BrowserContext,
  block: ScrapeRequest["block"],
): Promise<void> {
  const types = new Set<string>(block?.resourceTypes ?? []);
  const patterns = (block?.urlPatterns ?? []).map(globToRegExp);
  if (types.size === 0 && patterns.length === 0) return;
  await context.route("**/*", (route) => {
    const request = route.request();
    const type = request.resourceType();
    const url = request.url();
    // The page itself is never blocked: the caller asked for it.
    if (type !== "document" && (types.has(type) || patterns.some((re) => re.test(url))))
      return route.abort("blockedbyclient");
    return route.continue();
  });
}

/** Formats made from the DOM's text and attributes: images, fonts and media change nothing in them. */
const TEXT_FORMATS: ReadonlySet<Format> = new Set<Format>(["markdown", "html", "links", "json"]);

/**
 * True when every format the request asks for is made from the DOM alone, so the page's images, fonts
 * and media need not be fetched (screenshots, PDFs, element boxes and controls need them).
 */
export const textFormatsOnly = (req: Pick<ScrapeRequest, "formats">): boolean =>
  req.formats.length > 0 && req.formats.every((f) => TEXT_FORMATS.has(f));

/**
 * Fail the page's image, font and media requests at once (as the browser's own blocker does), before
 * they are sent. Chromium's request interception matches by resource type here, so the page's other
 * requests (its document, scripts, stylesheets, API calls) never make a round trip to this process and
 * keep the HTTP cache. The page's `<img>` keep their src, so markdown and html still carry them.
 */
export async function skipMedia(page: Page): Promise<void> {
  const session = await page.context().newCDPSession(page);
  session.on("Fetch.requestPaused", (e) => {
    void session
      .send("Fetch.failRequest", { requestId: e.requestId, errorReason: "BlockedByClient" })
      .catch(() => {});
  });
  await session.send("Fetch.enable", {
    patterns: MEDIA_TYPES.map((resourceType) => ({ resourceType, requestStage: "Request" as const })),
  });
}

const MEDIA_TYPES = ["Image", "Font", "Media"] as const;
