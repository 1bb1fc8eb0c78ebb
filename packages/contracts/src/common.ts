import { z } from "zod";
import {
  COOKIE_NAME,
  COOKIE_PATH,
  COOKIE_VALUE,
  FIELD_VALUE,
  jsonObject,
  LINE,
  refusing,
  TEXT,
  text,
  textRule,
  utf8Length,
} from "./text.ts";

const PORT = "(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4})";
const IPV4_PART = "(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])";
/** Control characters: a URL holds them only percent-encoded (%00), and PostgreSQL cannot store NUL. */
const URL_CONTROLS = "\\u0000-\\u001f\\u007f";
/** Letters of host names: ASCII and the Latin, Greek, Cyrillic and CJK ones that IDNA takes. */
const HOST_CHAR =
  "A-Za-z0-9_\\u00c0-\\u00d6\\u00d8-\\u00f6\\u00f8-\\u017f\\u03b1-\\u03c9\\u0410-\\u044f\\u4e00-\\u9fff-";
const HOST_LETTER =
  "A-Za-z_\\u00c0-\\u00d6\\u00d8-\\u00f6\\u00f8-\\u017f\\u03b1-\\u03c9\\u0410-\\u044f\\u4e00-\\u9fff-";
/**
 * The published shape of an absolute http(s) URL: a host name whose last label is not a number (or a dotted
 * IPv4 address, or a bracketed IPv6 one), an optional port, then anything without spaces. Every string it
 * matches parses as a URL; the api takes a little more than it promises (other IPv4 spellings, punycode), so
 * that those reach the SSRF check and get its answer rather than a 400 for their spelling. Written with [0-9]
 * rather than \d so that clients reading it with other regex engines (Python's, where \d is any Unicode
 * digit) generate only what the api takes.
 */
export const HTTP_URL_PATTERN = `^[Hh][Tt][Tt][Pp][Ss]?://([^\\s${URL_CONTROLS}/?#@\\\\]*@)?(([${HOST_CHAR}]+\\.)*[${HOST_CHAR}]*[${HOST_LETTER}][${HOST_CHAR}]*\\.?|${IPV4_PART}(\\.${IPV4_PART}){3}|\\[(([0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}|::([0-9A-Fa-f]{1,4}(:[0-9A-Fa-f]{1,4}){0,5})?)\\])(:${PORT})?([/?#][^\\s${URL_CONTROLS}]*)?$`;

/** An absolute http(s) URL. Address checks (SSRF) happen at fetch time, after DNS. */
export const httpUrl = text(
  refusing(URL_CONTROLS, "must not contain control characters: a URL holds them only percent-encoded (%00)"),
)
  .max(8192)
  .refine(
    (value) => {
      try {
        const u = new URL(value);
        return u.protocol === "http:" || u.protocol === "https:";
      } catch {
        return false;
      }
    },
    { message: "must be an absolute http:// or https:// URL" },
  )
  // No format "uri": the api takes IRIs (a path in any script), which RFC 3986 does not.
  .meta({ pattern: HTTP_URL_PATTERN });

/** A page cursor that is a row id (the ledger, a job's results): what `next` gave out. */
export const rowCursor = z
  .string()
  .regex(/^[0-9]{1,15}$/, "not a cursor this api gave out: use the `next` value of the previous page");

export const FORMATS = [
  "markdown",
  "html",
  "links",
  "screenshot",
  "pdf",
  "elements",
  "json",
  "accessibility",
  "controls",
  "changes",
] as const;
export const format = z.enum(FORMATS);
export type Format = z.infer<typeof format>;

/** The formats a model reads as text: counted in tokens, and cut to fit maxTokens. */
export const TEXT_FORMATS = [
  "markdown",
  "html",
  "links",
  "elements",
  "json",
  "accessibility",
  "controls",
] as const;
export type TextFormat = (typeof TEXT_FORMATS)[number];
export const isTextFormat = (f: string): f is TextFormat => (TEXT_FORMATS as readonly string[]).includes(f);

/** The encoding token counts are made in (packages/tokens says why this one). */
export const TOKEN_ENCODING_NAME = "o200k_base";

export const maxTokens = z
  .int()
  .min(256)
  .max(10_000_000)
  .describe(
    `Cap on the tokens (${TOKEN_ENCODING_NAME}, GPT-4o's encoding; other models count a few percent differently) of the text formats together (markdown, html, links, elements, json, accessibility, controls). Past it the answer is cut at a block boundary, never inside a word, a link, a table row or a code block; metadata.truncated names the format cut and the formats left out, and gives a cursor for the rest. Screenshots and PDFs do not count.`,
  );

export const tokenCounts = z
  .partialRecord(z.enum(TEXT_FORMATS), z.int())
  .describe(
    `Tokens of each text format in this answer, counted in ${TOKEN_ENCODING_NAME} (GPT-4o's encoding); other models' tokenizers differ by a few percent`,
  );

export const truncation = z
  .object({
    format: format.optional().describe("The format cut inside; the next part starts where it stopped"),
    omitted: z.array(format).describe("Formats left out of this answer entirely; the next parts carry them"),
    remainingTokens: z
      .int()
      .describe(
        "Tokens left for the next parts: exact up to 100,000 characters left in the cut format, estimated within a few percent beyond",
      ),
    cursor: z
      .string()
      .optional()
      .describe(
        "POST /web/v1/scrape with { cursor, maxTokens } returns the next part of this same render (no new page load); absent only when the render could not be kept",
      ),
    expiresAt: z.string().optional().describe("When the kept render, and so the cursor, expires (ISO 8601)"),
  })
  .describe("The answer did not fit maxTokens: what was cut and how to read on");

export const viewport = z.strictObject({
  width: z.int().min(100).max(3840).default(1280),
  height: z.int().min(100).max(4320).default(720),
  deviceScaleFactor: z.number().min(0.5).max(3).default(1),
});

/** A CSS selector: the browser reads any text but NUL (a stored batch or crawl request cannot hold NUL). */
export const cssSelector = () => text(TEXT).min(1).max(1000);

export const screenshotOptions = z.strictObject({
  fullPage: z.boolean().default(false),
  type: z.enum(["png", "jpeg"]).default("png"),
  quality: z.int().min(0).max(100).optional().describe("JPEG quality; only with type jpeg"),
  omitBackground: z.boolean().default(false),
  selector: cssSelector().optional().describe("Capture only the first element matching this CSS selector"),
  viewport: viewport
    .partial()
    .optional()
    .describe("Viewport for the screenshot; defaults to the request's viewport"),
  maxWidth: z
    .int()
    .min(64)
    .max(3840)
    .optional()
    .describe(
      "Scale the image down to at most this many pixels wide, its height in proportion (never up): a vision model reads a smaller image for fewer tokens. Chromium scales while capturing",
    ),
});

export const PDF_PAPER = [
  "Letter",
  "Legal",
  "Tabloid",
  "Ledger",
  "A0",
  "A1",
  "A2",
  "A3",
  "A4",
  "A5",
  "A6",
] as const;
export const pdfOptions = z.strictObject({
  format: z.enum(PDF_PAPER).default("A4"),
  landscape: z.boolean().default(false),
  printBackground: z.boolean().default(true),
  scale: z.number().min(0.1).max(2).default(1),
});

export const linksOptions = z.strictObject({
  visibleOnly: z.boolean().default(false).describe("Only links a person can see on the page"),
  excludeExternal: z.boolean().default(false).describe("Only links to the page's own host"),
});

export const controlsOptions = z.strictObject({
  visibleOnly: z
    .boolean()
    .default(true)
    .describe("Drop disabled controls and controls with no size on screen"),
  limit: z
    .int()
    .min(1)
    .max(1000)
    .default(200)
    .describe("Return at most this many controls; metadata says when cut"),
});

export const WAIT_UNTIL = ["auto", "load", "domcontentloaded", "networkidle", "commit"] as const;
export const waitOptions = z.strictObject({
  until: z
    .enum(WAIT_UNTIL)
    .default("auto")
    .describe(
      "auto (default): until the page has nothing left to do: its DOM has stopped changing, no recent fetch, XHR, script, frame or subresource request is in flight, no short timer is pending, and a script or meta-refresh redirect has been followed; what never ends (websockets, EventSource, long-polls, beacons, media, a hanging subresource) is ignored, and wait.budget bounds it. A page that never fires load is captured once its DOM is ready and quiet. load, domcontentloaded, networkidle and commit are Playwright's lifecycle events, exactly",
    ),
  selector: cssSelector()
    .optional()
    .describe("Also wait until this CSS selector is visible (it pierces open shadow roots)"),
  timeout: z
    .int()
    .min(100)
    .max(120_000)
    .default(30_000)
    .describe(
      "Milliseconds for the page to be ready: for auto, to start loading (commit) and for wait.selector; for the other values, to reach that event. Exceeded: the task fails with timeout",
    ),
  budget: z
    .int()
    .min(100)
    .max(60_000)
    .optional()
    .describe(
      "auto: the most milliseconds to wait for the page to settle after it started loading; when it runs out the page is taken as it stands (metadata.settle.reason budget), never an error. Default: the operator's SETTLE_BUDGET_MS (5000)",
    ),
});
export type WaitOptions = z.infer<typeof waitOptions>;

export const scrollOptions = z.strictObject({
  enabled: z
    .boolean()
    .default(true)
    .describe(
      "Scroll the page down in viewport steps before any format is taken, so content and images that load when scrolled into view are there; then back to the top. Then the same for the page's largest panels that scroll on their own (a feed or a chat pane with overflow auto), each put back where it was",
    ),
  maxSteps: z
    .int()
    .min(1)
    .max(100)
    .default(20)
    .describe("Viewport steps at most, for the page and again for each scrolling panel"),
  budget: z
    .int()
    .min(100)
    .max(30_000)
    .default(4_000)
    .describe(
      "Milliseconds of scrolling at most, the page's and its panels' together; an endless feed stops here",
    ),
});

/** The latest cookie expiry Playwright takes: 9999-12-31T23:59:59Z, in seconds. */
const MAX_COOKIE_EXPIRES = 253_402_300_799;
/** Chromium refuses a cookie whose name and value together pass this many bytes of UTF-8. */
export const COOKIE_NAME_VALUE_BYTES = 4096;
/** And any attribute (path) past this many. */
export const COOKIE_ATTRIBUTE_BYTES = 1024;

/** A cookie domain: a host name (letters as in URLs, punycode for others) or IPv4 address, a leading dot allowed. */
const COOKIE_DOMAIN = textRule(
  `^\\.?[${HOST_CHAR}]+(\\.[${HOST_CHAR}]+)*\\.?$`,
  () => "a cookie domain is a host name such as example.com or .example.com (punycode for other scripts)",
);

/** A cookie for the page, as Chromium's cookie store takes it (what it refuses would fail the whole task). */
export const cookie = z
  .strictObject({
    name: text(COOKIE_NAME).min(1).max(4096),
    value: text(COOKIE_VALUE).max(4096),
    domain: text(COOKIE_DOMAIN).max(255).optional(),
    path: text(COOKIE_PATH)
      .max(COOKIE_ATTRIBUTE_BYTES)
      .optional()
      .describe(`At most ${COOKIE_ATTRIBUTE_BYTES} bytes of UTF-8`),
    secure: z.boolean().optional(),
    httpOnly: z.boolean().optional(),
    sameSite: z.enum(["Strict", "Lax", "None"]).optional(),
    expires: z
      .union([z.literal(-1), z.number().min(0).max(MAX_COOKIE_EXPIRES)])
      .optional()
      .describe("Unix time in seconds; -1 (or none): a session cookie"),
  })
  .describe(`name and value together at most ${COOKIE_NAME_VALUE_BYTES} bytes of UTF-8`)
  .check((ctx) => {
    const { name, value, path } = ctx.value;
    if (utf8Length(name) + utf8Length(value) > COOKIE_NAME_VALUE_BYTES)
      ctx.issues.push({
        code: "custom",
        path: ["value"],
        message: `a cookie's name and value together take at most ${COOKIE_NAME_VALUE_BYTES} bytes of UTF-8 (Chromium's limit)`,
        input: value,
        continue: true,
      });
    if (path !== undefined && utf8Length(path) > COOKIE_ATTRIBUTE_BYTES)
      ctx.issues.push({
        code: "custom",
        path: ["path"],
        message: `a cookie path takes at most ${COOKIE_ATTRIBUTE_BYTES} bytes of UTF-8 (Chromium's limit)`,
        input: path,
        continue: true,
      });
  });

/** Request headers Chromium refuses from a caller (net::ERR_INVALID_ARGUMENT): it sets them, or they are hop-by-hop. */
export const BROWSER_SET_HEADERS = [
  "connection",
  "content-length",
  "cookie2",
  "host",
  "keep-alive",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
] as const;
const anyCase = (s: string) => s.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** An HTTP field name (an RFC 9110 token) that the browser lets a caller set: none of those above, nor proxy-*. */
const HEADER_NAME = textRule(
  `^(?!(${BROWSER_SET_HEADERS.map(anyCase).join("|")})$|${anyCase("proxy-")})[!#$%&'*+.^_\`|~0-9A-Za-z-]+$`,
  (name) =>
    TOKEN.test(name)
      ? `the browser sets ${name.toLowerCase()} itself and refuses it from a caller (so are ${BROWSER_SET_HEADERS.join(", ")} and proxy-*)`
      : "must be a valid HTTP header name (an RFC 9110 token: letters, digits and !#$%&'*+.^_`|~-)",
);

export const requestOptions = z.strictObject({
  headers: z
    .record(text(HEADER_NAME).max(256), text(FIELD_VALUE).max(8192))
    .refine((h) => Object.keys(h).length <= 50, "at most 50 headers")
    .optional(),
  cookies: z.array(cookie).max(100).optional(),
  userAgent: text(FIELD_VALUE).min(1).max(1024).optional(),
  auth: z
    .strictObject({ username: text(LINE).max(1024), password: text(LINE).max(1024) })
    .optional()
    .describe("HTTP authentication; no control characters (RFC 7617)"),
});

export const RESOURCE_TYPES = [
  "document",
  "stylesheet",
  "image",
  "media",
  "font",
  "script",
  "texttrack",
  "xhr",
  "fetch",
  "eventsource",
  "websocket",
  "manifest",
  "other",
] as const;
export const blockOptions = z.strictObject({
  resourceTypes: z.array(z.enum(RESOURCE_TYPES)).max(RESOURCE_TYPES.length).optional(),
  urlPatterns: z
    .array(text(LINE).min(1).max(2048))
    .max(100)
    .optional()
    .describe("Glob patterns (* and **) matched against each request URL"),
});

export const jsonOptions = z
  .strictObject({
    prompt: text(TEXT).max(10_000).optional(),
    schema: jsonObject().optional().describe("JSON Schema the extracted object must match"),
  })
  .refine((j) => j.prompt !== undefined || j.schema !== undefined, "json needs a prompt, a schema, or both")
  // The rule above, as the published schema says it.
  .meta({ anyOf: [{ required: ["prompt"] }, { required: ["schema"] }] });

export const documentsOptions = z.strictObject({
  enabled: z
    .boolean()
    .default(true)
    .describe("Convert PDF, Word, Excel, CSV and OpenDocument files to markdown"),
  maxBytes: z.int().min(1).max(50_000_000).optional(),
});
