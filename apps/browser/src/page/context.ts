import { isDeepStrictEqual } from "node:util";
import type { ScrapeRequest } from "@browserfleet/contracts";
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import scrollHooksInit from "../injected/generated/scroll-hooks-init.ts";
import settleInit from "../injected/generated/settle-init.ts";
import { installBlockRules } from "./block-rules.ts";
import type { ContextLease } from "./job-contexts.ts";
import { deviceOptions, placeOptions } from "./places.ts";
import type { WarmContext, WarmContexts } from "./warm-contexts.ts";

/** What a task adds to its request when it makes a context. */
export interface ContextExtras {
  /** A saved profile's storage state (JSON): its cookies, localStorage and IndexedDB are there from the start. */
  profileState?: string;
  /** A session's: it keeps what its pages download (a scrape reads an attachment without the browser). */
  acceptDownloads?: boolean;
  /** The worker's guard route to an egress proxy (its URL), when the request goes out through one. */
  egress?: string;
}

/** Everything a context is made with from a request: options a context cannot change once made. */
export function contextOptionsFor(req: ScrapeRequest, egress?: string): BrowserContextOptions {
  return {
    // The context's own proxy replaces the browser's (the direct guard) for every connection it makes.
    ...(egress ? { proxy: { server: egress } } : {}),
    // Viewport, scale, user agent, touch: the device's, the caller's viewport and user agent winning.
    ...deviceOptions(req),
    // Languages, time zone, geolocation.
    ...placeOptions(req.location),
    extraHTTPHeaders: req.request?.headers,
    httpCredentials: req.request?.auth ? { ...req.request.auth, send: "unauthorized" } : undefined,
    ignoreHTTPSErrors: false,
    serviceWorkers: "block",
    acceptDownloads: false,
  };
}

/** A request that sets none of the options a context is made with. */
export const DEFAULT_CONTEXT_REQUEST: ScrapeRequest = { formats: ["markdown"], binaryAs: "base64" };
const DEFAULT_OPTIONS = contextOptionsFor(DEFAULT_CONTEXT_REQUEST);

/**
 * Whether a context made for DEFAULT_CONTEXT_REQUEST serves `req` exactly as one made for it would: true
 * only when every creation option comes out the same (user agent, viewport, device, location, headers,
 * credentials, ...): `device: "desktop"` does, as it is the default page.
 * Cookies and block rules are not creation options: they are added to the context before the page loads.
 */
export function fitsDefaultContext(req: ScrapeRequest): boolean {
  return isDeepStrictEqual(contextOptionsFor(req), DEFAULT_OPTIONS);
}

/** A context with the worker's init scripts, before any cookie or block rule of a caller. */
export async function newBareContext(
  browser: Browser,
  req: ScrapeRequest,
  { profileState, acceptDownloads, egress }: ContextExtras = {},
): Promise<BrowserContext> {
  const context = await browser.newContext({
    ...contextOptionsFor(req, egress),
    ...(profileState ? { storageState: JSON.parse(profileState) } : {}),
    ...(acceptDownloads ? { acceptDownloads: true } : {}),
  });
  // Before any page script: what `wait.until: auto` reads to tell when the page is done, and what tells
  // whether scrolling could change the page (a page whose script watches no scrolling is not scrolled for
  // text formats; without the count, any script would make it scrolled, most of a small page's time).
  // The settle bookkeeping first, then the scroll hooks.
  await context.addInitScript(settleInit);
  await context.addInitScript(scrollHooksInit);
  return context;
}

/** What one caller's request adds to a context before its page loads: block rules and cookies. */
export async function applyRequestToContext(context: BrowserContext, req: ScrapeRequest): Promise<void> {
  await installBlockRules(context, req.block);
  await addRequestCookies(context, req);
}

export async function newTaskContext(
  browser: Browser,
  req: ScrapeRequest,
  extras: ContextExtras = {},
): Promise<BrowserContext> {
  const context = await newBareContext(browser, req, extras);
  await applyRequestToContext(context, req);
  return context;
}

/**
 * The caller's cookies; one without a domain belongs to the host of the page asked for. Playwright takes a
 * url or a domain and path, never a url and a path: a path without a domain goes with the page's host name,
 * which is what Playwright makes of a url.
 */
export async function addRequestCookies(context: BrowserContext, req: ScrapeRequest): Promise<void> {
  if (!req.request?.cookies?.length || !req.url) return;
  const origin = new URL(req.url);
  await context.addCookies(
    req.request.cookies.map(({ domain, path, ...c }) => ({
      ...c,
      ...(domain || path ? { domain: domain ?? origin.hostname, path: path ?? "/" } : { url: origin.origin }),
    })),
  );
}

/** A lease of a context nobody else uses: releasing it closes the whole context, pages and all. */
export interface OwnContextLease extends ContextLease {
  ownsContext: true;
}

/** The context is closed in the background: the caller's answer need not wait for Chromium to tear it down. */
export function ownLease(context: BrowserContext, page?: Page): OwnContextLease {
  return {
    context,
    reused: false,
    ownsContext: true,
    ...(page ? { page } : {}),
    release: async () => {
      void context.close().catch(() => {});
    },
  };
}

/** A fresh context for one task, closed when the task is done. */
export async function freshContext(
  browser: Browser,
  req: ScrapeRequest,
  extras: ContextExtras = {},
): Promise<ContextLease> {
  return ownLease(await newTaskContext(browser, req, extras));
}

/** What the warm pool makes: a context with the default options and one blank page. */
export async function makeWarmContext(browser: Browser): Promise<WarmContext> {
  const context = await newBareContext(browser, DEFAULT_CONTEXT_REQUEST);
  try {
    return { context, page: await context.newPage() };
  } catch (err) {
    await context.close().catch(() => {});
    throw err;
  }
}

/**
 * One task's context: a pre-made one from `warm` when the request's context options are the defaults it
 * was made with (the caller's block rules and cookies are added to it first), else one made for it now.
 */
export function warmOrFreshContext(
  warm: WarmContexts,
  /** `fits`: the request could have used a pre-made context (one was taken, or none was ready). */
  onLease?: (origin: "warm" | "made", fits: boolean) => void,
): (browser: Browser, req: ScrapeRequest) => Promise<ContextLease> {
  return async (browser, req) => {
    const fits = fitsDefaultContext(req);
    const ready = fits ? await warm.take(browser) : undefined;
    if (!ready) {
      onLease?.("made", fits);
      return freshContext(browser, req);
    }
    onLease?.("warm", true);
    const lease = ownLease(ready.context, ready.page);
    try {
      await applyRequestToContext(ready.context, req);
    } catch (err) {
      await lease.release();
      throw err;
    }
    return lease;
  };
}
