import type { Format, ScrapeRequest } from "@browserfleet/contracts";
import { MarkdownOptionError, sharedMarkdownPool } from "@browserfleet/markdown";
import type { Page } from "playwright-core";
import { BrowserError, errorOf } from "../errors.ts";
import pageSize from "../injected/generated/page-size.ts";
import type { FrameRead } from "../injected/lib/links-and-title.ts";
import { composedHtml, composedLinks, elementsAcrossFrames } from "../page/composed-dom.ts";
import type { PageOutcome } from "../page/facts.ts";
import { clearOverlays } from "../page/overlays.ts";
import { addSelectors, controlSelectorsBeside } from "./control-selectors.ts";
import { type Control, controlsFromSnapshot, textFromSnapshot } from "./controls-tree.ts";

/** What the formats made of the page; what its metadata says of them is PageOutcome's (page/facts.ts). */
export interface FormatOutcome extends PageOutcome {
  data: Partial<Record<Format, unknown>>;
  errors: Partial<Record<Format, { code: string; message: string }>>;
  /** The page's text lines from the controls snapshot, for a session's changes (session/changes.ts). */
  controlsText?: string[];
  /** Milliseconds spent per format, for metrics. */
  timings: Partial<Record<Format, number>>;
  /**
   * The page's link targets and title, read in the same call as the first composed DOM (markdown, html)
   * when renderFormats was asked for them (`links`); absent when no such format read the page.
   */
  read?: FrameRead;
  /** The cap renderFormats was asked to read links with, until a renderer has read them. */
  linksWanted?: number;
}

const MAX_MATCHES_PER_SELECTOR = 100;
/** Chromium cannot capture taller than its texture limit; longer pages are cut there and say so. */
export const MAX_SCREENSHOT_HEIGHT = 16_384;

/** Renders one format of the page as it stands, noting what metadata should say in `out`. */
type Renderer = (page: Page, req: ScrapeRequest, out: FormatOutcome) => Promise<unknown>;

/** Consent dialogs and modal overlays go before what a person would look at (once per page). */
async function clearOverlaysOnce(page: Page, req: ScrapeRequest, out: FormatOutcome): Promise<void> {
  if (req.overlays === "keep" || out.overlays) return;
  out.overlays = await clearOverlays(page);
}

/** The composed DOM for markdown and html; its facts go to metadata.frames when it has any. */
async function composed(page: Page, visibleOnly: boolean, out: FormatOutcome): Promise<string> {
  const links = out.read ? undefined : out.linksWanted;
  const c = await composedHtml(page, { visibleOnly, ...(links !== undefined ? { links } : {}) });
  if (c.read) out.read = c.read;
  if (c.frames || c.shadowRoots || c.truncated)
    out.frames = { frames: c.frames, shadowRoots: c.shadowRoots, truncated: c.truncated };
  return c.html;
}

/**
 * Every format's renderer, in the order they run: the DOM-reading formats first, then what overlays
 * are cleared for, then screenshots and PDFs, which may resize or re-layout the page. A format missing
 * here does not compile.
 */
const RENDERERS: { readonly [F in Format]: Renderer } = {
  html: (page, req, out) => (req.htmlMode === "document" ? page.content() : composed(page, false, out)),
  markdown: async (page, req, out) => {
    const html = await composed(page, true, out);
    // In a worker thread with a hard time budget: never blocks this event loop or the slot for long.
    const result = await sharedMarkdownPool()
      .convert(html, {
        baseUrl: page.url(),
        onlyMainContent: req.onlyMainContent ?? false,
        includeTags: req.includeTags,
        excludeTags: req.excludeTags,
      })
      .catch((err: unknown) => {
        throw err instanceof MarkdownOptionError ? new BrowserError(err.code, 422, err.message) : err;
      });
    if (result.mainContent) out.mainContent = result.mainContent;
    if (result.pageType) out.pageType = result.pageType;
    if (result.degraded) out.markdownDegraded = true;
    return result.markdown;
  },
  links: (page, req) =>
    composedLinks(page, {
      visibleOnly: req.links?.visibleOnly ?? false,
      excludeExternal: req.links?.excludeExternal ?? false,
    }),
  elements: async (page, req) => {
    const results = [];
    for (const selector of req.selectors ?? []) {
      try {
        results.push({
          selector,
          matches: await elementsAcrossFrames(page, selector, MAX_MATCHES_PER_SELECTOR),
        });
      } catch (err) {
        results.push({ selector, matches: [], error: errorOf(err).message });
      }
    }
    if (results.every((r) => "error" in r))
      throw new BrowserError("invalid_selector", 422, results.map((r) => r.error).join("; "));
    return results;
  },
  accessibility: (page) => page.ariaSnapshot({ timeout: 10_000 }),
  changes: async () => {
    // Like json, made after the render (from its markdown) by the api and the jobs program.
    throw new BrowserError(
      "not_supported",
      422,
      "the changes format is not available in live sessions: POST /web/v1/scrape with formats [changes] on the page's URL",
    );
  },
  json: async () => {
    // Scrapes, batches and crawls never send json here (the api and the jobs program make it from
    // markdown); only a live session's formats can still ask for it.
    throw new BrowserError(
      "not_supported",
      422,
      "the json format is not available in live sessions yet: ask for markdown here, or POST /web/v1/scrape with formats [json] on the page's URL",
    );
  },
  controls: async (page, req, out) => {
    await clearOverlaysOnce(page, req, out);
    const { controls, truncated, text } = await readControls(
      page,
      req.controls?.visibleOnly ?? true,
      req.controls?.limit ?? 200,
    );
    if (truncated) out.controlsTruncated = true;
    out.controlsText = text;
    return controls;
  },
  screenshot: async (page, req, out) => {
    await clearOverlaysOnce(page, req, out);
    return screenshot(page, req, out);
  },
  pdf: async (page, req, out) => {
    await clearOverlaysOnce(page, req, out);
    const o = req.pdf;
    const buf = await page.pdf({
      format: o?.format ?? "A4",
      landscape: o?.landscape ?? false,
      printBackground: o?.printBackground ?? true,
      scale: o?.scale ?? 1,
    });
    return buf.toString("base64");
  },
};

/**
 * Render every requested format from the page as it stands; one failing format never voids the others.
 * `links`: the first format that reads the composed DOM also reads the page's link targets (at most this
 * many) and title, as `read`.
 */
export async function renderFormats(
  page: Page,
  req: ScrapeRequest,
  formats: readonly Format[],
  links?: number,
): Promise<FormatOutcome> {
  const out: FormatOutcome = { data: {}, errors: {}, timings: {} };
  if (links !== undefined) out.linksWanted = links;
  for (const f of (Object.keys(RENDERERS) as Format[]).filter((x) => formats.includes(x))) {
    const started = performance.now();
    try {
      out.data[f] = await RENDERERS[f](page, req, out);
    } catch (err) {
      out.errors[f] = errorOf(err);
    }
    out.timings[f] = performance.now() - started;
  }
  delete out.linksWanted;
  return out;
}

async function screenshot(page: Page, req: ScrapeRequest, out: FormatOutcome): Promise<string> {
  const o = req.screenshot;
  const vp = o?.viewport;
  if (vp?.width || vp?.height) {
    const current = page.viewportSize() ?? { width: 1280, height: 720 };
    await page.setViewportSize({ width: vp.width ?? current.width, height: vp.height ?? current.height });
  }
  const shotOpts = {
    type: o?.type ?? "png",
    quality: o?.type === "jpeg" ? (o.quality ?? 80) : undefined,
    omitBackground: o?.omitBackground ?? false,
    timeout: 15_000,
  } as const;
  if (o?.maxWidth !== undefined) {
    const region: ShotRegion = o.selector
      ? await page
          .locator(o.selector)
          .first()
          .boundingBox({ timeout: 15_000 })
          .then((b) => {
            if (!b)
              throw new BrowserError("selector_not_visible", 422, `${o.selector} has no box on the page`);
            return b;
          })
      : o.fullPage
        ? "full"
        : "viewport";
    const shot = await scaledScreenshot(page, region, o.maxWidth, shotOpts);
    if (shot.truncated) out.screenshotTruncated = true;
    return shot.data;
  }
  if (o?.selector) return (await page.locator(o.selector).first().screenshot(shotOpts)).toString("base64");
  if (!o?.fullPage) return (await page.screenshot(shotOpts)).toString("base64");
  const size = await page.evaluate(pageSize);
  const buf =
    size.height > MAX_SCREENSHOT_HEIGHT
      ? await page.screenshot({
          ...shotOpts,
          fullPage: true,
          clip: { x: 0, y: 0, width: size.width, height: MAX_SCREENSHOT_HEIGHT },
        })
      : await page.screenshot({ ...shotOpts, fullPage: true });
  if (size.height > MAX_SCREENSHOT_HEIGHT) out.screenshotTruncated = true;
  return buf.toString("base64");
}

type ShotRegion = "viewport" | "full" | { x: number; y: number; width: number; height: number };

/**
 * A screenshot at most `maxWidth` pixels wide, scaled by Chromium while it captures (CDP
 * Page.captureScreenshot with a clip's scale): no second decode and resize. A region narrower than
 * `maxWidth` is captured at its own size.
 */
async function scaledScreenshot(
  page: Page,
  region: ShotRegion,
  maxWidth: number,
  o: { type: "png" | "jpeg"; quality?: number; omitBackground: boolean },
): Promise<{ data: string; truncated: boolean }> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const m = await cdp.send("Page.getLayoutMetrics");
    const vv = m.cssVisualViewport;
    const content = m.cssContentSize;
    const clip =
      region === "viewport"
        ? { x: vv.pageX, y: vv.pageY, width: vv.clientWidth, height: vv.clientHeight }
        : region === "full"
          ? { x: 0, y: 0, width: content.width, height: Math.min(content.height, MAX_SCREENSHOT_HEIGHT) }
          : { x: region.x + vv.pageX, y: region.y + vv.pageY, width: region.width, height: region.height };
    if (o.omitBackground)
      await cdp.send("Emulation.setDefaultBackgroundColorOverride", { color: { r: 0, g: 0, b: 0, a: 0 } });
    const { data } = await cdp.send("Page.captureScreenshot", {
      format: o.type,
      ...(o.type === "jpeg" ? { quality: o.quality ?? 80 } : {}),
      clip: { ...clip, scale: Math.min(1, maxWidth / Math.max(1, clip.width)) },
      captureBeyondViewport: region !== "viewport",
      fromSurface: true,
    });
    if (o.omitBackground) await cdp.send("Emulation.setDefaultBackgroundColorOverride", {}).catch(() => {});
    return { data, truncated: region === "full" && content.height > MAX_SCREENSHOT_HEIGHT };
  } finally {
    await cdp.detach().catch(() => {});
  }
}

/** The AI snapshot gives each control a ref that a later act resolves with `aria-ref=`. */
export async function readControls(
  page: Page,
  visibleOnly: boolean,
  limit: number,
): Promise<{ controls: Control[]; truncated: boolean; text: string[] }> {
  const snapshot = page.ariaSnapshotJSON({ mode: "ai", boxes: true, timeout: 10_000 });
  // Asked right behind the snapshot, not after its answer (see control-selectors.ts).
  const early = controlSelectorsBeside(page, limit * 2);
  const tree = await snapshot;
  const { controls, total } = controlsFromSnapshot(tree, { visibleOnly, limit });
  await addSelectors(page, controls, early);
  return { controls, truncated: total > controls.length, text: textFromSnapshot(tree) };
}
