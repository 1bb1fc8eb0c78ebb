import type { MapReply, MapResponse, MapTask, ScrapeRequest, TaskError } from "@browserfleet/contracts";
import {
  discoverSitemapUrls,
  normalizeUrl,
  type SiteFetcher,
  type SitemapDiscovery,
  siteScope,
} from "@browserfleet/site";
import type { Browser, BrowserContext } from "playwright-core";
import { BrowserError, failureOf } from "../errors.ts";
import linksWithText from "../injected/generated/links-with-text.ts";
import type { GuardProxy } from "../net/guard-proxy.ts";
import { guardedFetch } from "../net/guarded-fetch.ts";
import { newTaskContext } from "../page/context.ts";
import { openPage } from "../page/navigation.ts";

/** The bounds of one map; `limit` (at most 5000) bounds the answer itself. */
export const MAP_BOUNDS = {
  /** Sitemap files read at most (robots.txt's, /sitemap.xml, indexes and their children). */
  maxSitemaps: 25,
  /** Bytes of one sitemap file, as downloaded and again after gunzip (the protocol's maximum is 50 MB). */
  maxBytesPerFile: 16 * 1024 * 1024,
  /** RFC 9309 asks crawlers to read at least 500 KiB of a robots.txt. */
  robotsMaxBytes: 512 * 1024,
  /** The page's own load budget, at most. */
  pageTimeoutMs: 30_000,
  /** From the start of navigation, the longest to wait for the page to settle (links that scripts build late). */
  settleMs: 5_000,
  /** Scrolling for lazy links, at most. */
  scrollMs: 2_000,
  /** Links read off the page at most. */
  maxPageLinks: 20_000,
  /** A robots.txt that takes longer is skipped (its sitemaps with it), so the sitemaps keep their time. */
  robotsTimeoutMs: 10_000,
  /** Kept free before the task's deadline to build and send the reply. */
  replyMarginMs: 1_000,
} as const;

interface RenderedPage {
  finalUrl: string;
  title?: string;
  /** [href as the browser resolved it, the anchor's text] in document order. */
  links: [string, string][];
}

async function renderLinks(
  browser: Browser,
  proxy: GuardProxy,
  url: string,
  deadline: number,
): Promise<RenderedPage> {
  const timeout = Math.min(MAP_BOUNDS.pageTimeoutMs, deadline - Date.now() - MAP_BOUNDS.settleMs - 500);
  if (timeout < 1000) throw new BrowserError("timeout", 504, "no time was left to render the page");
  const req: ScrapeRequest = {
    url,
    formats: ["links"],
    binaryAs: "base64",
    wait: {
      until: "auto",
      timeout,
      budget: Math.max(100, Math.min(MAP_BOUNDS.settleMs, deadline - Date.now() - 1000)),
    },
    scroll: { enabled: true, maxSteps: 10, budget: MAP_BOUNDS.scrollMs },
    // The links are all a map wants of the page.
    block: { resourceTypes: ["image", "media", "font"] },
  };
  let context: BrowserContext | undefined;
  try {
    context = await newTaskContext(browser, req);
    const { page } = await openPage(context, proxy, req);
    const links = await page.evaluate(linksWithText, MAP_BOUNDS.maxPageLinks);
    const title = await page.title().catch(() => "");
    return { finalUrl: page.url(), title: title.trim() || undefined, links };
  } finally {
    await context?.close().catch(() => {});
  }
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };
const settle = <T>(p: Promise<T>): Promise<Settled<T>> =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

const fail = (error: TaskError): MapReply => ({ ok: false, error });

/**
 * Did the start page redirect to another host of the same domain (example.com to shop.example.com, or
 * back)? That host is then the site too. A redirect off the domain (to a login provider, say) is not.
 */
function related(start: string, final: string): boolean {
  const bare = (u: string) => new URL(u).hostname.replace(/^www\./, "");
  const a = bare(start);
  const b = bare(final);
  return a !== b && (a.endsWith(`.${b}`) || b.endsWith(`.${a}`));
}

/**
 * List a site's URLs: the sitemaps (robots.txt `Sitemap:` lines, /sitemap.xml, indexes, gzip) read
 * through the SSRF guard with the crawler's user agent, and, with `includePage`, the links of the
 * rendered start page (script-built ones included), both at once. URLs are normalized, de-duplicated
 * and kept to the site and the caller's filters; sitemap entries come first, then the links only the
 * page has (the page itself first). A URL's title is the page's anchor text for it, when it has one.
 *
 * The start page refused by the SSRF guard fails the task. A page that fails to render while the
 * sitemaps were read is a warning; both failing fail the task with the page's error.
 */
export async function runMapTask(browser: Browser, proxy: GuardProxy, task: MapTask): Promise<MapReply> {
  const started = performance.now();
  const req = task.request;
  const start = normalizeUrl(req.url);
  if (!start)
    return fail({ code: "invalid_request", message: `${req.url} is not an http(s) URL`, status: 400 });
  const origin = new URL(start).origin;
  const deadline = task.deadline - MAP_BOUNDS.replyMarginMs;
  if (deadline - Date.now() < 500)
    return fail({ code: "timeout", message: "the map task arrived with no time left", status: 504 });
  const inScope = siteScope(start, req);
  const stop = new AbortController();
  const fetchWithin = (url: string, maxBytes: number, ms: number) =>
    guardedFetch(proxy, url, {
      maxBytes,
      timeoutMs: Math.max(1, Math.min(ms, deadline - Date.now())),
      userAgent: task.userAgent,
      overflow: "truncate",
      signal: stop.signal,
    });
  const fetcher: SiteFetcher = (url, maxBytes) => fetchWithin(url, maxBytes, Number.POSITIVE_INFINITY);

  const warnings: string[] = [];
  let siteError: unknown;
  const sitemaps = (async (): Promise<SitemapDiscovery> => {
    let robotsTxt: string | undefined;
    try {
      const res = await fetchWithin(
        `${origin}/robots.txt`,
        MAP_BOUNDS.robotsMaxBytes,
        MAP_BOUNDS.robotsTimeoutMs,
      );
      if (res.status >= 200 && res.status < 300) robotsTxt = res.body.toString("utf8");
    } catch (err) {
      siteError = err;
      if (err instanceof BrowserError && err.code === "ssrf_blocked" && proxy.refusalFor(start)) throw err;
      warnings.push(`${origin}/robots.txt: ${(err as Error).message}`);
    }
    return discoverSitemapUrls(fetcher, start, {
      robotsTxt,
      maxSitemaps: MAP_BOUNDS.maxSitemaps,
      // One more than the answer holds is enough to know it was cut.
      maxUrls: req.limit + 1,
      maxBytesPerFile: MAP_BOUNDS.maxBytesPerFile,
      deadline,
      filter: inScope,
    });
  })();
  const page = req.includePage ? renderLinks(browser, proxy, start, deadline) : undefined;
  const [sm, rendered] = await Promise.all([settle(sitemaps), page ? settle(page) : undefined]).finally(() =>
    stop.abort(),
  );

  const pageError = rendered && !rendered.ok ? failureOf(rendered.error) : undefined;
  if (pageError?.code === "ssrf_blocked") return fail(pageError);
  if (!sm.ok) return fail(failureOf(sm.error));
  const found = sm.value;
  if (pageError) {
    if (found.sitemapsRead === 0) return fail(pageError);
    warnings.push(`the page could not be rendered, so only the sitemaps were read: ${pageError.message}`);
  } else if (!rendered && found.sitemapsRead === 0 && siteError) {
    // Not even robots.txt answered: the site is unreachable, not merely without a sitemap.
    return fail(failureOf(siteError));
  }
  warnings.push(...found.warnings);
  if (found.sitemapsRead === 0 && found.warnings.length === 0)
    warnings.push("no sitemap found (robots.txt Sitemap: lines, /sitemap.xml, /sitemap_index.xml)");

  const view = rendered?.ok ? rendered.value : undefined;
  const finalUrl = view ? (normalizeUrl(view.finalUrl) ?? start) : start;
  const finalScope = related(start, finalUrl) ? siteScope(finalUrl, req) : undefined;
  const keep = (url: string) => inScope(url) || (finalScope?.(url) ?? false);

  const titles = new Map<string, string>();
  const pageLinks: string[] = [];
  if (view) {
    if (view.title) titles.set(finalUrl, view.title);
    pageLinks.push(finalUrl);
    for (const [href, text] of view.links) {
      const url = normalizeUrl(href);
      if (!url) continue;
      pageLinks.push(url);
      if (text && !titles.has(url)) titles.set(url, text);
    }
  }
  const links: MapResponse["links"] = [];
  const seen = new Set<string>();
  const add = (url: string) => {
    seen.add(url);
    const title = titles.get(url);
    links.push(title ? { url, title } : { url });
  };
  for (const { url } of found.urls) if (!seen.has(url) && keep(url)) add(url);
  const fromSitemaps = links.length;
  for (const url of pageLinks) if (!seen.has(url) && keep(url)) add(url);

  const truncated = found.truncated || links.length > req.limit;
  const kept = links.slice(0, req.limit);
  return {
    ok: true,
    result: {
      success: kept.length > 0,
      links: kept,
      metadata: {
        url: finalUrl,
        sitemaps: found.sitemapsRead,
        fromSitemaps: Math.min(fromSitemaps, kept.length),
        fromPage: Math.max(0, kept.length - fromSitemaps),
        truncated,
        ...(warnings.length > 0 ? { warnings } : {}),
        ms: Math.round(performance.now() - started),
      },
    },
  };
}
