import { createHash } from "node:crypto";
import {
  controlsOptions,
  deviceName,
  FORMATS,
  type Format,
  linksOptions,
  pdfOptions,
  placeOf,
  type ScrapeRequest,
  screenshotOptions,
  scrollOptions,
  viewport,
} from "@browserfleet/contracts";
import type { z } from "zod";

/** Bump when the key material changes shape, so old rows are simply never found again. */
const KEY_VERSION = 2;

/**
 * Whether a request may read or write the shared render cache. Spec rule 6: requests carrying cookies,
 * auth or custom headers are never cached; raw `html` input has no URL to key on. Empty `headers`/`cookies`
 * carry nothing and do not prevent caching.
 */
export function isCacheable(req: ScrapeRequest): boolean {
  if (req.html !== undefined || req.url === undefined) return false;
  // A page seen through a saved login is its account's alone.
  if (req.profile !== undefined) return false;
  // Through the caller's own proxy: what its network sees, and its credentials.
  if (typeof req.proxy === "object") return false;
  const r = req.request;
  if (r?.auth !== undefined) return false;
  if (r?.cookies !== undefined && r.cookies.length > 0) return false;
  if (r?.headers !== undefined && Object.keys(r.headers).length > 0) return false;
  return cacheUrl(req.url) !== undefined;
}

/** The URL as cached: the #fragment never reaches the server, so it is dropped; the query is kept as is. */
export function cacheUrl(url: string): string | undefined {
  try {
    const u = new URL(url);
    u.hash = "";
    return u.href;
  } catch {
    return undefined;
  }
}

/**
 * The cache key of one format of a request, or undefined when the request must never touch the cache.
 * A sha256 (hex) over a canonical JSON (sorted keys, defaults filled in) of the URL, the format, every
 * option that changes that format's output, and `scope` when given (an account id under CACHE_SCOPE=account).
 */
export function cacheKeyFor(req: ScrapeRequest, format: Format, scope?: string): string | undefined {
  return cacheKeysFor(req, [format], scope)?.get(format);
}

/**
 * The cache keys of several formats of one request (as cacheKeyFor gives them), or undefined when the
 * request must never touch the cache. A cached scrape works them out on every call, and the canonical JSON
 * costs more than the rest of its path in the api, so keys are remembered by the request's plain JSON (the
 * same JSON always gives the same keys), for the last REMEMBERED_MAX requests of at most MEMO_MAX_CHARS.
 */
export function cacheKeysFor(
  req: ScrapeRequest,
  formats: readonly Format[],
  scope?: string,
): ReadonlyMap<Format, string> | undefined {
  if (!isCacheable(req)) return undefined;
  const memo = `${scope ?? ""}\n${formats.join(",")}\n${JSON.stringify(req)}`;
  const remember = memo.length <= MEMO_MAX_CHARS;
  const known = remember ? REMEMBERED.get(memo) : undefined;
  if (known !== undefined) {
    // Map order is the eviction order: a request seen again moves to the back.
    REMEMBERED.delete(memo);
    REMEMBERED.set(memo, known);
    return known;
  }
  const keys = new Map<Format, string>();
  for (const f of formats) if (!NEVER_CACHED.has(f)) keys.set(f, keyOf(req, f, scope));
  if (remember) {
    if (REMEMBERED.size >= REMEMBERED_MAX) REMEMBERED.delete(REMEMBERED.keys().next().value as string);
    REMEMBERED.set(memo, keys);
  }
  return keys;
}

const REMEMBERED = new Map<string, ReadonlyMap<Format, string>>();
const REMEMBERED_MAX = 2_000;
const MEMO_MAX_CHARS = 4_096;

function keyOf(req: ScrapeRequest, format: Format, scope: string | undefined): string {
  const url = cacheUrl(req.url as string) as string;
  const material = {
    v: KEY_VERSION,
    url,
    format,
    common: commonOptions(req),
    options: FORMAT_OPTIONS[format](req),
    ...(scope !== undefined && scope !== "" ? { scope } : {}),
  };
  return createHash("sha256").update(canonicalJson(material)).digest("hex");
}

/** Options that change every format's output: how the page is loaded and laid out. */
function commonOptions(req: ScrapeRequest): unknown {
  return {
    viewport: withDefaults(viewport, req.viewport),
    // wait.timeout only decides whether the page loads in time (else the format fails and nothing is
    // cached); it does not change a successful render, so it is not part of the key.
    wait: {
      until: req.wait?.until ?? "auto",
      selector: req.wait?.selector ?? null,
      // How long auto may wait decides what a late page shows; null is the operator's default.
      budget: req.wait?.budget ?? null,
    },
    scroll: withDefaults(scrollOptions, req.scroll),
    block: {
      resourceTypes: sortedUnique(req.block?.resourceTypes),
      urlPatterns: sortedUnique(req.block?.urlPatterns),
    },
    userAgent: req.request?.userAgent ?? null,
    // What the page was told of where it is and what it runs on, as the browser got it (a country's
    // defaults filled in; "mobile" as the device it stands for). Absent when unset, as "desktop" is, so the
    // keys of requests without them are those from before they existed.
    location: placeOf(req.location),
    device: deviceName(req.device),
    // The way out as asked (a pool's address decides what a geo-aware site shows); absent for auto, the
    // default. A caller's own proxy is never cached (isCacheable).
    proxy: req.proxy === "auto" ? undefined : req.proxy,
  };
}

/**
 * Options that change only one format's output, per format. A format missing here does not compile, so
 * a new format cannot leave its options out of the key.
 */
const FORMAT_OPTIONS: { readonly [F in Format]: (req: ScrapeRequest) => unknown } = {
  screenshot: (req) => {
    const s = withDefaults(screenshotOptions, req.screenshot) as z.infer<typeof screenshotOptions>;
    return {
      ...s,
      // quality only applies to JPEG.
      quality: s.type === "jpeg" ? (s.quality ?? null) : null,
      selector: s.selector ?? null,
      viewport: s.viewport ?? null,
      // The cache keeps the bytes whatever binaryAs says: "url" stores them afresh for each answer.
      binaryAs: "base64",
      overlays: req.overlays ?? "dismiss",
    };
  },
  pdf: (req) => ({
    ...(withDefaults(pdfOptions, req.pdf) as object),
    binaryAs: "base64",
    overlays: req.overlays ?? "dismiss",
  }),
  html: (req) => ({ htmlMode: req.htmlMode ?? "rendered" }),
  links: (req) => withDefaults(linksOptions, req.links),
  controls: (req) => ({
    ...(withDefaults(controlsOptions, req.controls) as object),
    overlays: req.overlays ?? "dismiss",
  }),
  // Order matters: the output follows the selectors' order.
  elements: (req) => ({ selectors: req.selectors ?? [] }),
  json: (req) => ({ prompt: req.json?.prompt ?? null, schema: req.json?.schema ?? null }),
  markdown: (req) => ({
    // Only markdown comes out of a document (PDF, Word, ...); turning conversion off changes it.
    documents: req.documents?.enabled ?? true,
    onlyMainContent: req.onlyMainContent ?? false,
    // Both act as sets: the output follows page order, not the selectors' order.
    includeTags: sortedUnique(req.includeTags),
    excludeTags: sortedUnique(req.excludeTags),
  }),
  // The snapshot has no options of its own.
  accessibility: () => ({}),
  // Never keyed: see NEVER_CACHED.
  changes: () => ({}),
};

/** A comparison with the caller's own previous render is nobody else's, and stale the moment it is made. */
const NEVER_CACHED: ReadonlySet<Format> = new Set(["changes"]);

/** The formats the cache keeps. */
export const CACHED_FORMATS: readonly Format[] = FORMATS.filter((f) => !NEVER_CACHED.has(f));

/** The option object with the contract's defaults filled in, so `{}` and the explicit defaults share a key. */
function withDefaults(schema: z.ZodType, value: unknown): unknown {
  const parsed = schema.safeParse(value ?? {});
  return parsed.success ? parsed.data : (value ?? null);
}

function sortedUnique(values: readonly string[] | undefined): string[] {
  return [...new Set(values ?? [])].sort();
}

/** JSON with object keys sorted at every depth and undefined members dropped. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}
