import type { ScrapeRequest, ScrapeResponse, TaskError, TaskReply } from "@browserfleet/contracts";
import type { Browser, BrowserContext, Page, Request, Response } from "playwright-core";
import { installBlockRules } from "./block-rules.ts";
import { type DocumentCandidate, documentsWanted, scrapeDocument, watchNavigation } from "./document.ts";
import { errorOf, type FormatOutcome, renderFormats } from "./formats/render.ts";
import type { GuardProxy } from "./guard-proxy.ts";
import type { ContextLease } from "./job-contexts.ts";

export class TaskFailure extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A task that failed as a whole, as the reply's error. */
export function failureOf(err: unknown): TaskError {
  if (err instanceof TaskFailure) return { code: err.code, message: err.message, status: err.status };
  const { message } = errorOf(err);
  if (isBrowserGone(message))
    return {
      code: "browser_crashed",
      message: `the browser failed while rendering: ${message}`,
      status: 503,
    };
  return { code: "render_failed", message, status: 502 };
}

export const isBrowserGone = (message: string) =>
  /Target.*closed|browser has been closed|crash|has been closed/i.test(message);

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

export interface ScrapeHooks {
  onFormat?: (format: string, ms: number, ok: boolean) => void;
  /** Runs on the rendered page before its context closes (a crawl reads the page's links here). */
  onPage?: (page: Page) => Promise<void>;
}

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

/**
 * Open the page the request describes and wait for it to be ready. With `documents`, a navigation
 * that lands on a document (by its Content-Type, or because Chromium made it a download) is returned
 * as `document` instead, before any wait.selector: the caller converts it without the browser.
 */
export async function openPage(
  context: BrowserContext,
  proxy: GuardProxy,
  req: ScrapeRequest,
  opts: { documents?: boolean; page?: Page } = {},
): Promise<{ page: Page; status?: number; document?: DocumentCandidate }> {
  const page = opts.page ?? (await context.newPage());
  try {
    return await navigate(page, proxy, req, opts);
  } catch (err) {
    // The context may outlive this task (a job's shared one), so a failed page must not stay open in it.
    await page.close().catch(() => {});
    throw err;
  }
}

async function navigate(
  page: Page,
  proxy: GuardProxy,
  req: ScrapeRequest,
  opts: { documents?: boolean },
): Promise<{ page: Page; status?: number; document?: DocumentCandidate }> {
  const watch = opts.documents && documentsWanted(req) ? watchNavigation(page) : undefined;
  // Every hop of the main document, redirects included, to explain a refused navigation.
  const hops: string[] = [];
  const onRequest = (r: Request) => {
    if (r.isNavigationRequest() && r.frame() === page.mainFrame()) hops.push(r.url());
  };
  page.on("request", onRequest);
  try {
    return await navigateWatched(page, proxy, req, hops, watch);
  } finally {
    // The page may serve another task of the same job: leave no listener behind.
    page.off("request", onRequest);
    watch?.stop();
  }
}

async function navigateWatched(
  page: Page,
  proxy: GuardProxy,
  req: ScrapeRequest,
  hops: string[],
  watch: ReturnType<typeof watchNavigation> | undefined,
): Promise<{ page: Page; status?: number; document?: DocumentCandidate }> {
  const refusal = () => hops.map((u) => proxy.refusalFor(u)).find((e) => e !== undefined);
  const timeout = req.wait?.timeout ?? 30_000;
  const until = req.wait?.until ?? "load";
  const started = Date.now();
  let response: Response | null = null;
  try {
    if (req.url) response = await page.goto(req.url, { waitUntil: until, timeout });
    else await page.setContent(req.html ?? "", { waitUntil: until === "commit" ? "load" : until, timeout });
  } catch (err) {
    const refused = refusal();
    if (refused) throw new TaskFailure("ssrf_blocked", 400, refused.message);
    const download = watch?.fromError(err, hops.at(-1) ?? req.url ?? "");
    if (download) return { page, document: download };
    const { code, message } = errorOf(err);
    if (code === "timeout")
      throw new TaskFailure(
        "timeout",
        504,
        `the page did not finish loading within ${timeout} ms (wait.until=${until})`,
      );
    throw new TaskFailure("upstream_failed", 502, `could not load the page: ${message}`);
  }
  if (response && (await response.headerValue("x-fleet-blocked"))) {
    throw new TaskFailure(
      "ssrf_blocked",
      400,
      refusal()?.message ?? `refusing to fetch ${response.url()}: it resolves to a blocked address`,
    );
  }
  const document = watch?.fromResponse(response);
  if (document) return { page, status: response?.status(), document };
  await waitForSelector(page, req, timeout, started);
  return { page, status: response?.status() };
}

/** The request's wait.selector, within what is left of the page's wait budget. */
async function waitForSelector(page: Page, req: ScrapeRequest, timeout: number, started: number) {
  if (req.wait?.selector) {
    const left = Math.max(100, timeout - (Date.now() - started));
    try {
      await page.locator(req.wait.selector).first().waitFor({ state: "visible", timeout: left });
    } catch (err) {
      const { code, message } = errorOf(err);
      if (code === "timeout")
        throw new TaskFailure(
          "timeout",
          504,
          `wait.selector ${req.wait.selector} did not appear within ${timeout} ms`,
        );
      throw new TaskFailure("invalid_request", 400, `wait.selector: ${message}`);
    }
  }
}

/**
 * One scrape: one navigation, every requested format. The context is a fresh one unless `lease`
 * lends one (a job's pages share theirs); either way the page is closed and the lease returned.
 */
export async function runScrape(
  browser: Browser,
  proxy: GuardProxy,
  req: ScrapeRequest,
  hooks: ScrapeHooks = {},
  lease: (browser: Browser, req: ScrapeRequest) => Promise<ContextLease> = freshContext,
): Promise<TaskReply> {
  const started = performance.now();
  let held: ContextLease | undefined;
  let opened: Page | undefined;
  let reusable = false;
  try {
    held = await lease(browser, req);
    const { context } = held;
    if (held.reused) await addRequestCookies(context, req);
    const { page, status, document } = await openPage(context, proxy, req, {
      documents: true,
      ...(held.page ? { page: held.page } : {}),
    });
    opened = page;
    if (document) {
      // A document is converted without the browser; undefined means its bytes were a page after all.
      const result = await scrapeDocument({ context, page, proxy, req, candidate: document, started, hooks });
      if (result) {
        reusable = false;
        return { ok: true, result };
      }
      await waitForSelector(page, req, req.wait?.timeout ?? 30_000, Date.now());
    }
    const outcome = await renderFormats(page, req, req.formats);
    for (const [f, ms] of Object.entries(outcome.timings)) hooks.onFormat?.(f, ms, f in outcome.data);
    await hooks.onPage?.(page);
    const result: ScrapeResponse = {
      success: Object.keys(outcome.data).length > 0,
      data: outcome.data,
      errors: outcome.errors,
      metadata: {
        ...(await pageFacts(page, outcome, req.url !== undefined)),
        statusCode: status,
        formats: req.formats,
        renders: req.formats.length,
        browserMsUsed: Math.round(performance.now() - started),
        ms: 0,
      },
    };
    reusable = true;
    return { ok: true, result };
  } catch (err) {
    return { ok: false, error: failureOf(err) };
  } finally {
    // Only a page that rendered cleanly may serve the job's next task; any other is closed.
    const keep = reusable && opened && !opened.isClosed() ? opened : undefined;
    if (!keep) await opened?.close().catch(() => {});
    await held?.release(keep);
  }
}
