import type { ScrapeRequest } from "@browserfleet/contracts";
import type { Browser, BrowserContext } from "playwright-core";
import { installBlockRules } from "./block-rules.ts";
import type { ContextLease } from "./job-contexts.ts";
import { SETTLE_SCRIPT } from "./settle-script.ts";

export async function newTaskContext(browser: Browser, req: ScrapeRequest): Promise<BrowserContext> {
  const vp = req.viewport;
  const context = await browser.newContext({
    viewport: { width: vp?.width ?? 1280, height: vp?.height ?? 720 },
    deviceScaleFactor: vp?.deviceScaleFactor ?? 1,
    userAgent: req.request?.userAgent,
    extraHTTPHeaders: req.request?.headers,
    httpCredentials: req.request?.auth ? { ...req.request.auth, send: "unauthorized" } : undefined,
    ignoreHTTPSErrors: false,
    serviceWorkers: "block",
    acceptDownloads: false,
  });
  // Before any page script: what `wait.until: auto` reads to tell when the page is done.
  await context.addInitScript(SETTLE_SCRIPT);
  await installBlockRules(context, req.block);
  await addRequestCookies(context, req);
  return context;
}

/** The caller's cookies; one without a domain belongs to the origin of the page asked for. */
export async function addRequestCookies(context: BrowserContext, req: ScrapeRequest): Promise<void> {
  if (!req.request?.cookies?.length || !req.url) return;
  const origin = new URL(req.url);
  await context.addCookies(
    req.request.cookies.map((c) => ({
      ...c,
      ...(c.domain ? { domain: c.domain, path: c.path ?? "/" } : { url: origin.origin }),
    })),
  );
}

/** A fresh context for one task, closed when the task is done. */
export async function freshContext(browser: Browser, req: ScrapeRequest): Promise<ContextLease> {
  const context = await newTaskContext(browser, req);
  return { context, reused: false, release: () => context.close().catch(() => {}) };
}
