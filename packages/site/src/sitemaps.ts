import { createGunzip } from "node:zlib";
import { ErrorLevel, XMLToSitemapIndexStream, XMLToSitemapItemStream } from "sitemap";
import { robotsRules } from "./robots.ts";
import { normalizeUrl } from "./url.ts";

export interface SiteFetchResult {
  status: number;
  contentType?: string;
  body: Buffer;
  /** The body was cut at maxBytes. */
  truncated: boolean;
  /** The URL after redirects. */
  finalUrl: string;
}

/** Fetch at most `maxBytes` of a URL (following redirects); throws when there is no answer at all. */
export type SiteFetcher = (url: string, maxBytes: number) => Promise<SiteFetchResult>;

export interface SitemapEntry {
  url: string;
  lastmod?: string;
}

export interface SitemapOptions {
  /** The site's robots.txt body: its `Sitemap:` lines are read first. */
  robotsTxt?: string;
  /** Sitemap files fetched at most (indexes and their children included). */
  maxSitemaps: number;
  /** URLs kept at most; one more accepted URL sets `truncated` and stops the reading. */
  maxUrls: number;
  /** Bytes read of one file at most, both as downloaded and after gunzip. */
  maxBytesPerFile: number;
  /** Epoch ms: no fetch starts after it and a running one is abandoned at it. */
  deadline: number;
  /** Keep only URLs it accepts (e.g. a `siteScope`), before they count toward maxUrls. */
  filter?: (url: string) => boolean;
}

export interface SitemapDiscovery {
  /** Normalized, de-duplicated, in the order the sitemaps list them. */
  urls: SitemapEntry[];
  /** Sitemap files (indexes included) that were read as sitemaps. */
  sitemapsRead: number;
  /** Sitemaps that could not be read, and why; bounds that were hit. */
  warnings: string[];
  /** A bound (maxUrls, maxSitemaps, maxBytesPerFile, deadline) cut the listing short. */
  truncated: boolean;
}

const MAX_WARNINGS = 20;
const CHUNK = 64 * 1024;
/** How much of a file is looked at to tell XML, HTML and plain text apart. */
const SNIFF_BYTES = 64 * 1024;
const MAX_TEXT_LINE = 8192;

type Kind = "urlset" | "sitemapindex" | "text" | "html" | { other: string };

/** Where a sitemap URL came from: a guess (/sitemap.xml) that is missing is not worth a warning. */
interface Source {
  url: string;
  guessed: boolean;
}

class DeadlineError extends Error {}

function beforeDeadline<T>(p: Promise<T>, deadline: number): Promise<T> {
  p.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  const left = deadline - Date.now();
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DeadlineError("the time budget ran out")), Math.max(0, left));
    }),
  ]).finally(() => clearTimeout(timer));
}

const isGzip = (b: Buffer) => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;

/** The file's text in chunks: the body itself, or its gunzipped stream, both cut at `cap` bytes. */
async function* bodyChunks(
  body: Buffer,
  cap: number,
  state: { capped: boolean; gzipError?: string },
): AsyncGenerator<Buffer> {
  if (!isGzip(body)) {
    const end = Math.min(body.length, cap);
    if (body.length > cap) state.capped = true;
    for (let i = 0; i < end; i += CHUNK) yield body.subarray(i, Math.min(i + CHUNK, end));
    return;
  }
  // Streamed, never held whole: the output is counted as it comes and the stream dropped at the cap
  // (zlib's maxOutputLength only bounds the one-shot functions, which would hold all of it).
  const gunzip = createGunzip({ chunkSize: CHUNK });
  let out = 0;
  try {
    gunzip.end(body);
    for await (const piece of gunzip as AsyncIterable<Buffer>) {
      if (out + piece.length > cap) {
        state.capped = true;
        if (cap > out) yield piece.subarray(0, cap - out);
        return;
      }
      out += piece.length;
      yield piece;
    }
  } catch (err) {
    state.gzipError = (err as Error).message;
  } finally {
    gunzip.destroy();
  }
}

/** The first element's local name, skipping the XML declaration, comments, doctype and processing instructions. */
function rootElement(head: string): string | undefined {
  const re = /<(?:\?[\s\S]*?\?>|!--[\s\S]*?-->|![^>]*>)|<([A-Za-z_][\w.:-]*)/g;
  for (let m = re.exec(head); m; m = re.exec(head)) {
    if (m[1]) return (m[1].split(":").pop() ?? m[1]).toLowerCase();
  }
  return undefined;
}

function kindOf(head: string, contentType: string | undefined): Kind | undefined {
  const text = head.replace(/^\uFEFF/, "").trimStart();
  if (text.length === 0) return undefined;
  if (!text.startsWith("<")) return /html/i.test(contentType ?? "") ? "html" : "text";
  const root = rootElement(text);
  if (root === undefined) return undefined;
  if (root === "urlset" || root === "sitemapindex") return root;
  if (root === "html" || root === "head" || root === "body") return "html";
  return { other: root };
}

/** Reads one file's chunks; `onLoc` gets each URL in it and answers false to stop. */
interface Reading {
  /** Parser complaints (malformed XML is read past, as far as it goes). */
  errors: number;
  firstError?: string;
  /** Stopped on a deadline. */
  late: boolean;
}

async function readXml(
  kind: "urlset" | "sitemapindex",
  chunks: AsyncIterable<Buffer>,
  onLoc: (loc: string, lastmod?: string) => boolean,
  deadline: number,
): Promise<Reading> {
  const opts = { level: ErrorLevel.SILENT, logger: false as const };
  const parser = kind === "urlset" ? new XMLToSitemapItemStream(opts) : new XMLToSitemapIndexStream(opts);
  const reading: Reading = { errors: 0, late: false };
  let stopped = false;
  parser.on("data", (item: { url?: string; lastmod?: string }) => {
    if (!stopped && item.url && !onLoc(item.url, item.lastmod || undefined)) stopped = true;
  });
  // A listener keeps sax going past malformed XML (it would throw otherwise), so the URLs before
  // and after a broken spot still count.
  parser.saxStream.on("error", (err: Error) => {
    reading.errors++;
    reading.firstError ??= err.message.split("\n")[0];
  });
  const ended = new Promise<void>((resolve) => {
    parser.once("end", resolve);
    parser.once("error", () => resolve());
    parser.once("close", resolve);
  });
  try {
    for await (const chunk of chunks) {
      await new Promise<void>((resolve) => parser.write(chunk, () => resolve()));
      if (stopped) break;
      if (Date.now() >= deadline) {
        reading.late = true;
        break;
      }
    }
  } finally {
    if (stopped || reading.late) parser.destroy();
    else parser.end();
    await ended;
  }
  return reading;
}

async function readText(
  chunks: AsyncIterable<Buffer>,
  onLoc: (loc: string) => boolean,
  deadline: number,
): Promise<Reading & { urls: number; lines: number }> {
  const decoder = new TextDecoder("utf-8");
  const reading = { errors: 0, late: false, urls: 0, lines: 0 };
  let partial = "";
  const line = (raw: string): boolean => {
    const l = raw.trim();
    if (l === "") return true;
    reading.lines++;
    if (!/^https?:\/\/\S+$/i.test(l)) return true;
    reading.urls++;
    return onLoc(l);
  };
  for await (const chunk of chunks) {
    const lines = (partial + decoder.decode(chunk, { stream: true })).split(/\r?\n/);
    partial = lines.pop() ?? "";
    if (partial.length > MAX_TEXT_LINE) partial = "";
    for (const l of lines) if (!line(l)) return reading;
    if (Date.now() >= deadline) {
      reading.late = true;
      return reading;
    }
  }
  line(partial + decoder.decode());
  return reading;
}

/**
 * The URLs a site's sitemaps list. Sources, in order: the robots.txt `Sitemap:` lines, then
 * `/sitemap.xml` at the start URL's origin; `/sitemap_index.xml` only when neither gave a sitemap.
 * Sitemap indexes are followed (nested, breadth-first, each file once however often it is listed or
 * redirected to). Files may be XML (`<urlset>`, `<sitemapindex>`), plain text (one URL per line), or
 * either one gzipped (told by its magic bytes). Malformed XML is read as far as it goes.
 *
 * Never throws: a file that cannot be fetched, a 4xx/5xx, an HTML page, a file that is no sitemap
 * becomes a warning (a missing guessed `/sitemap.xml` is not worth one). Bounded: `maxSitemaps`
 * files, `maxUrls` URLs (accepted by `filter`), `maxBytesPerFile` per file (downloaded and unzipped;
 * the unzipped text is streamed through the parser, not held), and the `deadline`.
 */
export async function discoverSitemapUrls(
  fetch: SiteFetcher,
  startUrl: string,
  opts: SitemapOptions,
): Promise<SitemapDiscovery> {
  const out: SitemapDiscovery = { urls: [], sitemapsRead: 0, warnings: [], truncated: false };
  let dropped = 0;
  const warn = (message: string) => {
    if (out.warnings.length < MAX_WARNINGS) out.warnings.push(message);
    else dropped++;
  };
  const start = normalizeUrl(startUrl);
  if (!start) {
    warn(`${startUrl} is not an http(s) URL`);
    return out;
  }
  const origin = new URL(start).origin;
  const queue: Source[] = [];
  const seen = new Set<string>();
  const enqueue = (url: string, guessed: boolean) => {
    if (seen.has(url)) return false;
    seen.add(url);
    queue.push({ url, guessed });
    return true;
  };
  if (opts.robotsTxt) {
    for (const url of robotsRules(`${origin}/robots.txt`, opts.robotsTxt).sitemaps) enqueue(url, false);
  }
  enqueue(`${origin}/sitemap.xml`, true);
  let fallback = false;
  const found = new Set<string>();
  let full = false;
  let fetched = 0;

  while (!full) {
    if (queue.length === 0) {
      if (out.sitemapsRead > 0 || fallback) break;
      fallback = true;
      if (!enqueue(`${origin}/sitemap_index.xml`, true)) break;
    }
    if (fetched >= opts.maxSitemaps) {
      out.truncated = true;
      warn(`${queue.length} more sitemap file(s) not read: at most ${opts.maxSitemaps} are read`);
      break;
    }
    if (Date.now() >= opts.deadline) {
      out.truncated = true;
      warn(`the time budget ran out with ${queue.length} sitemap file(s) not read`);
      break;
    }
    const source = queue.shift()!;
    fetched++;
    let res: SiteFetchResult;
    try {
      res = await beforeDeadline(fetch(source.url, opts.maxBytesPerFile), opts.deadline);
    } catch (err) {
      if (err instanceof DeadlineError) out.truncated = true;
      warn(`${source.url}: ${(err as Error).message}`);
      continue;
    }
    const finalUrl = normalizeUrl(res.finalUrl) ?? source.url;
    if (finalUrl !== source.url) {
      // A redirect to a file already read (or queued) is the same file.
      if (seen.has(finalUrl)) continue;
      seen.add(finalUrl);
    }
    if (res.status < 200 || res.status >= 300) {
      if (!source.guessed) warn(`${source.url}: HTTP ${res.status}`);
      continue;
    }

    const state: { capped: boolean; gzipError?: string } = { capped: false };
    const iterator = bodyChunks(res.body, opts.maxBytesPerFile, state)[Symbol.asyncIterator]();
    // Look at the start to tell what the file is.
    const head: Buffer[] = [];
    let headBytes = 0;
    let kind: Kind | undefined;
    let exhausted = false;
    while (kind === undefined) {
      const next = await iterator.next();
      if (next.done) {
        exhausted = true;
      } else {
        head.push(next.value);
        headBytes += next.value.length;
      }
      const text = Buffer.concat(head).toString("utf8");
      kind = kindOf(text, res.contentType);
      if (exhausted || headBytes >= SNIFF_BYTES) break;
    }
    const chunks = (async function* () {
      try {
        yield* head;
        if (!exhausted) yield* { [Symbol.asyncIterator]: () => iterator };
      } finally {
        // However the reading ends (done, full, late), the gunzip stream behind it is let go.
        await iterator.return?.(undefined);
      }
    })();

    if (kind === undefined || kind === "html" || typeof kind === "object") {
      await iterator.return?.(undefined);
      if (state.gzipError) warn(`${source.url}: could not gunzip it: ${state.gzipError}`);
      else if (kind === "html") {
        if (!source.guessed) warn(`${source.url}: an HTML page, not a sitemap`);
      } else if (kind === undefined) warn(`${source.url}: empty, or not a sitemap`);
      else warn(`${source.url}: not a sitemap (its root element is <${kind.other}>)`);
      continue;
    }

    const children: string[] = [];
    let moreChildren = false;
    const onUrl = (loc: string, lastmod?: string): boolean => {
      const url = normalizeUrl(loc, finalUrl);
      if (!url || found.has(url) || (opts.filter && !opts.filter(url))) return true;
      if (out.urls.length >= opts.maxUrls) {
        out.truncated = true;
        full = true;
        return false;
      }
      found.add(url);
      out.urls.push(lastmod ? { url, lastmod } : { url });
      return true;
    };
    const onChild = (loc: string): boolean => {
      const url = normalizeUrl(loc, finalUrl);
      if (!url || seen.has(url) || children.includes(url)) return true;
      if (fetched + queue.length + children.length >= opts.maxSitemaps) {
        moreChildren = true;
        return false;
      }
      children.push(url);
      return true;
    };

    let reading: Reading;
    let textUrls = -1;
    if (kind === "text") {
      const r = await readText(chunks, (loc) => onUrl(loc), opts.deadline);
      reading = r;
      textUrls = r.urls;
    } else {
      reading = await readXml(kind, chunks, kind === "urlset" ? onUrl : onChild, opts.deadline);
    }
    for (const c of children) enqueue(c, false);

    if (textUrls === 0) {
      warn(`${source.url}: not a sitemap (no URLs in it)`);
      continue;
    }
    out.sitemapsRead++;
    if (moreChildren) {
      out.truncated = true;
      warn(`${source.url}: lists more sitemaps than the ${opts.maxSitemaps} read`);
    }
    if (res.truncated || state.capped) {
      out.truncated = true;
      warn(`${source.url}: larger than ${opts.maxBytesPerFile} bytes; only its start was read`);
    } else if (state.gzipError) {
      warn(`${source.url}: gzip data is damaged (${state.gzipError}); read what came before`);
    }
    if (reading.late) {
      out.truncated = true;
      warn(`${source.url}: the time budget ran out while reading it`);
    }
    if (reading.errors > 0)
      warn(
        `${source.url}: malformed XML (${reading.firstError}${reading.errors > 1 ? `, and ${reading.errors - 1} more problem(s)` : ""}); read what could be read`,
      );
  }
  if (dropped > 0) out.warnings.push(`and ${dropped} more warning(s)`);
  return out;
}
