import { z } from "zod";
import {
  blockOptions,
  controlsOptions,
  cssSelector,
  documentsOptions,
  FORMATS,
  format,
  httpUrl,
  jsonOptions,
  linksOptions,
  maxTokens,
  pdfOptions,
  requestOptions,
  screenshotOptions,
  scrollOptions,
  tokenCounts,
  truncation,
  viewport,
  waitOptions,
} from "./common.ts";
import { proxy } from "./egress.ts";
import { checkPlaceRules, device, location, PLACE_RULES_SCHEMA } from "./places.ts";
import { profileLoad } from "./profiles.ts";
import { TEXT, text } from "./text.ts";

/** Raw HTML instead of a URL: any text but NUL, which the HTML parser drops anyway. */
export const rawHtml = () => text(TEXT).min(1).max(5_000_000);

/** Fields shared by scrape, session, batch and crawl: what to render and how. */
export const renderFields = {
  formats: z.array(format).min(1).max(FORMATS.length).meta({ uniqueItems: true }).default(["markdown"]),
  selectors: z.array(cssSelector()).min(1).max(50).optional(),
  json: jsonOptions.optional(),
  screenshot: screenshotOptions.optional(),
  pdf: pdfOptions.optional(),
  links: linksOptions.optional(),
  controls: controlsOptions.optional(),
  wait: waitOptions.optional(),
  scroll: scrollOptions.optional(),
  overlays: z
    .enum(["dismiss", "keep"])
    .default("dismiss")
    .optional()
    .describe(
      "Before screenshot, pdf and controls: dismiss: decline (or else accept) cookie-consent dialogs by their own buttons, never a link or anything that buys, then hide fixed overlays that still cover most of the page and unlock its scrolling, so they show the page a person sees once the banner is gone; keep: capture the page as it first appears. Text formats are read before and are not affected",
    ),
  htmlMode: z
    .enum(["rendered", "document"])
    .default("rendered")
    .optional()
    .describe(
      "html: rendered (default) is the page as a person sees it: the live DOM after scripts ran, with open shadow roots and iframes (same- and cross-origin) inline where they appear; document is the main document's serialized DOM alone (Playwright's page.content())",
    ),
  request: requestOptions.optional(),
  block: blockOptions.optional(),
  documents: documentsOptions.optional(),
  onlyMainContent: z
    .boolean()
    .default(false)
    // Optional outside too, so request objects built in code need not spell the default out.
    .optional()
    .describe(
      "markdown: only the page's main content, without navigation, headers, footers, cookie banners, ads, share buttons and related links, chosen by the kind of page (metadata.pageType): an article's or documentation's body, a product's name, price, description and specifications, every item card of a collection or listing, every post of a forum thread. When no credible main content is found, the whole page is converted and metadata.mainContent says fallback_whole_page",
    ),
  includeTags: z
    .array(cssSelector())
    .min(1)
    .max(50)
    .optional()
    .describe(
      "markdown: CSS selectors; only matching elements (with what they contain, in page order) are converted. Applied after excludeTags and before onlyMainContent",
    ),
  excludeTags: z
    .array(cssSelector())
    .min(1)
    .max(50)
    .optional()
    .describe("markdown: CSS selectors; matching elements are removed before conversion"),
  maxAge: z
    .int()
    .min(0)
    .max(30 * 24 * 3600 * 1000)
    .optional()
    .describe("Accept a cached render up to this many ms old"),
  binaryAs: z
    .enum(["base64", "url"])
    .default("base64")
    .describe(
      "How screenshots and PDFs come back: base64 inside the answer, or url: an HTTPS link under this api (/web/v1/artifacts/...) that serves the file without a key until metadata.filesExpireAt (24 hours by default). The link is a signed capability: anyone holding it can fetch the file.",
    ),
  viewport: viewport.optional(),
  location: location.optional(),
  device: device.optional(),
  proxy: proxy.optional(),
  maxTokens: maxTokens.optional(),
  profile: profileLoad.optional(),
};

type RenderLike = { formats: readonly string[]; selectors?: unknown; json?: unknown } & Parameters<
  typeof checkPlaceRules
>[0];

/**
 * The rules of checkRenderRules that JSON Schema can say: elements needs selectors, json needs json, and a
 * location that sets languages takes no Accept-Language header.
 */
export const RENDER_RULES_SCHEMA = {
  allOf: [
    {
      if: { required: ["formats"], properties: { formats: { contains: { const: "elements" } } } },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then
      then: { required: ["selectors"] },
    },
    {
      if: { required: ["formats"], properties: { formats: { contains: { const: "json" } } } },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then
      then: { required: ["json"] },
    },
    PLACE_RULES_SCHEMA,
  ],
};

/** Cross-field rules every render request obeys (RENDER_RULES_SCHEMA publishes them). */
export function checkRenderRules(v: RenderLike, ctx: z.RefinementCtx): void {
  if (new Set(v.formats).size !== v.formats.length) {
    ctx.addIssue({ code: "custom", path: ["formats"], message: "formats must not repeat" });
  }
  if (v.formats.includes("elements") && v.selectors === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["selectors"],
      message: "selectors is required when formats contains elements",
    });
  }
  if (v.formats.includes("json") && v.json === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["json"],
      message: "json { prompt, schema } is required when formats contains json",
    });
  }
  checkPlaceRules(v, ctx);
}

/** "Give exactly one of url or html", as the published schema says it. */
export const URL_OR_HTML = { oneOf: [{ required: ["url"] }, { required: ["html"] }], ...RENDER_RULES_SCHEMA };

/** A truncated answer's cursor: base64url, as metadata.truncated.cursor gives it. */
export const renderCursor = z
  .string()
  .min(1)
  .max(200)
  .regex(
    /^[A-Za-z0-9_-]+$/,
    "not a cursor this api gave out: use metadata.truncated.cursor of the previous answer",
  );

export const scrapeRequest = z
  .strictObject({
    url: httpUrl.optional().describe("Page to process. Exactly one of url, html or cursor is given."),
    html: rawHtml().optional().describe("Raw HTML used instead of url"),
    cursor: renderCursor
      .optional()
      .describe(
        "Read on: metadata.truncated.cursor of an earlier answer. Returns the next part of that same render (no new page load), at most maxTokens (default: the budget of the call that gave the cursor), charged as one cached format. Every other field is taken from that render.",
      ),
    ...renderFields,
  })
  .superRefine((v, ctx) => {
    const given = [v.url, v.html, v.cursor].filter((x) => x !== undefined).length;
    if (given !== 1) {
      ctx.addIssue({
        code: "custom",
        path: [v.cursor !== undefined ? "cursor" : "url"],
        message: "give exactly one of url, html or cursor",
      });
    }
    checkRenderRules(v, ctx);
  })
  .meta({
    oneOf: [{ required: ["url"] }, { required: ["html"] }, { required: ["cursor"] }],
    ...RENDER_RULES_SCHEMA,
  });
export type ScrapeRequest = z.infer<typeof scrapeRequest>;
export type ScrapeRequestInput = z.input<typeof scrapeRequest>;

export const DOCUMENT_TYPES = ["pdf", "docx", "xlsx", "csv", "odt", "ods"] as const;
export const documentFacts = z.object({
  type: z.enum(DOCUMENT_TYPES),
  contentType: z.string().optional().describe("Content-Type the server sent"),
  bytes: z.int(),
  pages: z.int().optional().describe("PDF pages"),
  sheets: z.int().optional().describe("Spreadsheet sheets (a CSV is one)"),
});
export type DocumentFacts = z.infer<typeof documentFacts>;

export const pageMetadata = z.object({
  url: z.string().describe("Final URL after redirects"),
  statusCode: z.int().optional().describe("HTTP status of the target page"),
  title: z.string().optional(),
  formats: z.array(format),
  renders: z.int().describe("One per format rendered"),
  browserMsUsed: z.int(),
  ms: z.int(),
  cached: z.array(format).optional(),
  controlsTruncated: z.boolean().optional().describe("The controls list was cut at controls.limit"),
  screenshotTruncated: z.boolean().optional().describe("A full-page screenshot was cut at 16384 px"),
  mainContent: z
    .enum(["extracted", "fallback_candidate", "fallback_whole_page"])
    .optional()
    .describe(
      "With onlyMainContent: extracted (the content chosen for the page's type); fallback_candidate when that held less than a fifth of the text of another candidate (the page's <main> or <article>, or the best-scoring block before the type's own narrowing), which is taken instead; fallback_whole_page when no credible main content was found and markdown is the whole page (on a page with little prose, the whole page without the site's menus, header, footer and sidebars)",
    ),
  markdownDegraded: z
    .boolean()
    .optional()
    .describe(
      "The markdown conversion ran out of its time budget (or failed) and markdown is the page's plain text instead",
    ),
  pageType: z
    .enum(["article", "documentation", "forum", "product", "collection", "listing", "service"])
    .optional()
    .describe(
      "With onlyMainContent: what kind of page it is, read from its structured data (JSON-LD, microdata, og:type), URL and shape; it decides what the main content is (a collection or listing keeps its item cards, a forum its posts)",
    ),
  settle: z
    .object({
      reason: z
        .enum(["quiet", "budget", "selector", "load", "domcontentloaded", "networkidle", "commit"])
        .describe(
          "quiet: the page had nothing left to do; budget: wait.budget ran out first; selector: wait.selector appeared; otherwise the explicit wait.until event",
        ),
      ms: z.int().describe("From the start of navigation to the end of the wait"),
      redirects: z
        .array(z.string())
        .optional()
        .describe("Pages left by script or meta-refresh redirects during the wait, in order"),
    })
    .optional()
    .describe("How the wait for the page ended"),
  scroll: z
    .object({
      steps: z.int().describe("Viewport steps scrolled"),
      height: z.int().describe("The page's height in CSS pixels after scrolling"),
      complete: z.boolean().describe("The bottom was reached and the page stopped growing"),
      ms: z.int(),
      panels: z
        .object({
          count: z.int().describe("Panels found (the largest few)"),
          steps: z.int().describe("Panel-height steps scrolled, all panels together"),
          complete: z.boolean().describe("Every panel reached its end and stopped growing"),
        })
        .optional()
        .describe(
          "Elements that scroll on their own (a feed, a chat pane) scrolled to their end after the page; absent when the page has none",
        ),
    })
    .optional()
    .describe("How far the page was scrolled to load lazy content (absent when no scrolling was needed)"),
  overlays: z
    .object({ dismissed: z.array(z.string()), hidden: z.int() })
    .optional()
    .describe("Consent dialogs dismissed and overlays hidden before screenshot, pdf or controls"),
  frames: z
    .object({ frames: z.int(), shadowRoots: z.int(), truncated: z.boolean() })
    .optional()
    .describe(
      "iframes and open shadow roots included inline in markdown and html, and whether limits cut them",
    ),
  document: documentFacts
    .optional()
    .describe("Present when the url served a document (PDF, Word, Excel, CSV, OpenDocument)"),
  seenAs: z
    .object({
      languages: z.array(z.string()).optional().describe("Accept-Language and navigator.languages, in order"),
      timezone: z.string().optional(),
      geolocation: z.object({ latitude: z.number(), longitude: z.number(), accuracy: z.number() }).optional(),
      device: z.string().optional().describe("The Playwright device registry name the page ran as"),
      proxy: z
        .string()
        .describe(
          'How the browser went out: "none" (directly), "pool:<name>", or "own" (the caller\'s proxy)',
        ),
    })
    .optional()
    .describe(
      "What the page was told of where it is and what it runs on, and the way out it took, as the browser got them (a country's defaults filled in): present when the request set location, device or proxy, or went out through a pool",
    ),
  tokens: tokenCounts.optional(),
  truncated: truncation.optional(),
  filesExpireAt: z
    .string()
    .optional()
    .describe("With binaryAs url: when the files' links stop working and the files are deleted (ISO 8601)"),
});

export type PageMetadata = z.infer<typeof pageMetadata>;

export const formatError = z.object({ code: z.string(), message: z.string() });

export const scrapeResponse = z.object({
  success: z.boolean().describe("true when at least one format came out"),
  data: z.record(z.string(), z.unknown()).describe("One key per requested format that succeeded"),
  errors: z.record(z.string(), formatError).describe("One key per requested format that failed"),
  metadata: pageMetadata,
});
export type ScrapeResponse = z.infer<typeof scrapeResponse>;
