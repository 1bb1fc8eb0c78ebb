import type { ScrapeRequest, WaitOptions } from "@browserfleet/contracts";
import type { BrowserContext, Page, Request, Response } from "playwright-core";
import { BrowserError, errorOf } from "../errors.ts";
import type { PageRead } from "../injected/entries/read-page.ts";
import readPage from "../injected/generated/read-page.ts";
import type { GuardProxy } from "../net/guard-proxy.ts";
import { textFormatsOnly } from "./block-rules.ts";
import { closePage } from "./close-page.ts";
import { type DocumentCandidate, documentsWanted, watchNavigation } from "./document-watch.ts";
import { keepNetworkEvents } from "./network-events.ts";
import { type ScrollOutcome, scrollForLazyContent } from "./scroll.ts";
import { defaultSettleBudget, settlePage } from "./settle.ts";

type WaitUntil = Exclude<WaitOptions["until"], "auto">;

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
): Promise<OpenedPage> {
  const page = opts.page ?? (await context.newPage());
  try {
    return await navigate(page, proxy, req, opts);
  } catch (err) {
    // The context may outlive this task (a job's shared one), so a failed page must not stay open in it.
    await closePage(page);
    throw err;
  }
}

async function navigate(
  page: Page,
  proxy: GuardProxy,
  req: ScrapeRequest,
  opts: { documents?: boolean },
): Promise<OpenedPage> {
  keepNetworkEvents(page);
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

/** How the wait for the page ended, for metadata.settle. */
export interface SettleFacts {
  reason: "quiet" | "budget" | "selector" | WaitUntil;
  ms: number;
  redirects?: string[];
}

export interface OpenedPage {
  page: Page;
  status?: number;
  document?: DocumentCandidate;
  settle?: SettleFacts;
  scroll?: ScrollOutcome;
}

/** Formats that want images loaded, not just their URLs. */
const wantsPixels = (req: ScrapeRequest) => req.formats.includes("screenshot") || req.formats.includes("pdf");

async function navigateWatched(
  page: Page,
  proxy: GuardProxy,
  req: ScrapeRequest,
  hops: string[],
  watch: ReturnType<typeof watchNavigation> | undefined,
): Promise<OpenedPage> {
  const refusal = () => hops.map((u) => proxy.refusalFor(u)).find((e) => e !== undefined);
  const timeout = req.wait?.timeout ?? 30_000;
  const until = req.wait?.until ?? "auto";
  const started = Date.now();
  let response: Response | null = null;
  try {
    // auto takes the document as soon as it commits and watches it from there (settlePage).
    if (req.url)
      response = await page.goto(req.url, { waitUntil: until === "auto" ? "commit" : until, timeout });
    else
      await page.setContent(req.html ?? "", {
        waitUntil: until === "auto" || until === "commit" ? "domcontentloaded" : until,
        timeout,
      });
  } catch (err) {
    const refused = refusal();
    if (refused) throw new BrowserError("ssrf_blocked", 400, refused.message);
    const download = watch?.fromError(err, hops.at(-1) ?? req.url ?? "");
    if (download) return { page, document: download };
    const { code, message } = errorOf(err);
    if (code === "timeout")
      throw new BrowserError(
        "timeout",
        504,
        `the page did not ${until === "auto" ? "start loading" : "finish loading"} within ${timeout} ms (wait.until=${until})`,
      );
    throw new BrowserError("upstream_failed", 502, `could not load the page: ${message}`);
  }
  // headers() is at hand without a round trip to the browser; our guard's header is never a raw-only one.
  if (response?.headers()["x-fleet-blocked"]) {
    throw new BrowserError(
      "ssrf_blocked",
      400,
      refusal()?.message ?? `refusing to fetch ${response.url()}: it resolves to a blocked address`,
    );
  }
  const document = watch?.fromResponse(response);
  if (document) return { page, status: response?.status(), document };
  let status = response?.status();
  let settle: SettleFacts;
  // The scroll check is read with the settle's reads when there are some: one call fewer per page.
  let mayScroll: boolean | undefined;
  if (req.wait?.selector) {
    await waitForSelector(page, req, timeout, started);
    settle = { reason: "selector", ms: Date.now() - started };
  } else if (until === "auto") {
    const budget = req.wait?.budget ?? defaultSettleBudget();
    const done = await settlePage(page, {
      deadline: started + budget,
      proxy,
      countImages: true,
      ...(req.scroll?.enabled === false ? {} : { scroll: scrollCheck(req) }),
    });
    mayScroll = done.mayScroll;
    settle = {
      reason: done.reason,
      ms: Date.now() - started,
      ...(done.redirects.length ? { redirects: done.redirects } : {}),
    };
    if (done.status !== undefined) status = done.status;
  } else settle = { reason: until, ms: Date.now() - started };
  const scroll = await scrollIfAsked(page, req, proxy, mayScroll);
  return { page, status, settle, ...(scroll ? { scroll } : {}) };
}

/** readPage's scroll check for the request: any taller page may change when its formats want pixels. */
const scrollCheck = (req: ScrapeRequest): NonNullable<PageRead["scroll"]> => ({
  anyPage: !textFormatsOnly(req),
});

/**
 * The request's scroll for lazy content (on unless scroll.enabled is false). Formats made from the DOM
 * alone skip it on a page where nothing reacts to scrolling (injected/entries/scroll-hooks-init.ts): no
 * step could add to them. Pixels are another matter: a loading=lazy image shows in a screenshot only once
 * scrolled to.
 */
export async function scrollIfAsked(
  page: Page,
  req: ScrapeRequest,
  proxy: GuardProxy,
  /** The check's answer when the settle read it a moment ago, with the state that found the page quiet. */
  known?: boolean,
) {
  const o = req.scroll;
  if (o?.enabled === false) return undefined;
  const worth =
    known ??
    (await page
      .evaluate(readPage, { scroll: scrollCheck(req) })
      .then((r) => r.mayScroll ?? true)
      .catch(() => true));
  if (!worth) return undefined;
  return scrollForLazyContent(page, {
    maxSteps: o?.maxSteps ?? 20,
    budgetMs: o?.budget ?? 4_000,
    proxy,
    countImages: wantsPixels(req),
  });
}
/** The request's wait.selector, within what is left of the page's wait budget. */
export async function waitForSelector(page: Page, req: ScrapeRequest, timeout: number, started: number) {
  if (req.wait?.selector) {
    const left = Math.max(100, timeout - (Date.now() - started));
    try {
      await page.locator(req.wait.selector).first().waitFor({ state: "visible", timeout: left });
    } catch (err) {
      const { code, message } = errorOf(err);
      if (code === "timeout")
        throw new BrowserError(
          "timeout",
          504,
          `wait.selector ${req.wait.selector} did not appear within ${timeout} ms`,
        );
      throw new BrowserError("invalid_request", 400, `wait.selector: ${message}`);
    }
  }
}
