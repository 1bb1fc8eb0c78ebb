import type { Page, Request, Response } from "playwright-core";
import { BrowserError } from "../errors.ts";
import type { PageRead } from "../injected/entries/read-page.ts";
import readPage from "../injected/generated/read-page.ts";
import settleInit from "../injected/generated/settle-init.ts";
import type { Seen, SettleState } from "../injected/lib/settle/api.ts";
import type { GuardProxy } from "../net/guard-proxy.ts";
import { API_YOUNG_MS, PAGE_QUIET_MS as QUIET_MS, SUBRESOURCE_YOUNG_MS } from "../settle-windows.ts";

export type { Seen };
export { API_YOUNG_MS, QUIET_MS, SUBRESOURCE_YOUNG_MS };

/** A meta refresh due later than this is a page's choice to stay, not a redirect. */
const REFRESH_MAX_MS = 3_000;
/** Script or meta-refresh redirects followed at most. */
export const MAX_CLIENT_REDIRECTS = 5;
const POLL_MS = 40;

const settleDefaults = { budgetMs: 5_000 };
/** The operator's default budget (SETTLE_BUDGET_MS), for requests that set none. */
export function setSettleDefaults(opts: { budgetMs?: number }): void {
  if (opts.budgetMs) settleDefaults.budgetMs = opts.budgetMs;
}
export const defaultSettleBudget = () => settleDefaults.budgetMs;

export type SettleReason = "quiet" | "budget";

export interface SettleOutcome {
  reason: SettleReason;
  /** URLs of the pages left by script or meta-refresh redirects, in order. */
  redirects: string[];
  /** The HTTP status of the page a redirect led to. */
  status?: number;
  /** The page's state when it was found quiet. */
  state?: PageState;
  /** With `scroll`: whether scrolling the page may change it, read with that state (readPage). */
  mayScroll?: boolean;
}

/**
 * What the in-page bookkeeping says (injected/lib/settle/api.ts, the one description of it); the fields
 * added after the first ones may be missing from a page whose bookkeeping was installed by an older worker.
 */
type LaterFields = "lastChange" | "origin" | "asked" | "pendingFrames" | "lastPosted" | "frameHooks";
export type PageState = Omit<SettleState, LaterFields> & Partial<Pick<SettleState, LaterFields>>;

const COUNTED: Record<string, number> = {
  document: API_YOUNG_MS,
  script: API_YOUNG_MS,
  fetch: API_YOUNG_MS,
  xhr: API_YOUNG_MS,
  stylesheet: SUBRESOURCE_YOUNG_MS,
  image: SUBRESOURCE_YOUNG_MS,
  font: SUBRESOURCE_YOUNG_MS,
};

const BUILDS_CONTENT = new Set(["document", "script", "fetch", "xhr"]);

/**
 * Network bookkeeping of one page for a settle: requests in flight by age, polls left out, and the
 * main frame's navigations (script and meta-refresh redirects) with what the guard said of them.
 */
class PageActivity {
  readonly inFlight = new Map<Request, number>();
  readonly finishedUrls = new Set<string>();
  lastEnd = 0;
  navigating: Request | undefined;
  blocked: string | undefined;
  status: number | undefined;
  readonly redirects: string[] = [];
  private wake: (() => void) | undefined;

  constructor(
    private readonly page: Page,
    private readonly proxy: GuardProxy | undefined,
    private readonly countImages: boolean,
  ) {}

  private readonly onRequest = (r: Request) => {
    const main = this.page.mainFrame();
    if (r.isNavigationRequest() && r.frame() === main) {
      if (!r.redirectedFrom()) this.redirects.push(this.page.url());
      this.navigating = r;
    } else {
      const type = r.resourceType();
      if (!(type in COUNTED) || (type === "image" && !this.countImages)) return;
      // A second request to a URL already answered is a poll: it never tells when the page is done.
      if ((type === "fetch" || type === "xhr") && this.finishedUrls.has(r.url())) return;
      this.inFlight.set(r, Date.now());
    }
    this.poke();
  };
  private readonly onDone = (r: Request) => {
    if (this.inFlight.delete(r)) {
      // What can build content (a script, an API answer, a frame) opens a quiet window when it ends;
      // an image, stylesheet or font that arrives changes no text.
      if (BUILDS_CONTENT.has(r.resourceType())) this.lastEnd = Date.now();
      this.finishedUrls.add(r.url());
    }
    if (r === this.navigating) {
      const refused = this.proxy?.refusalFor(r.url());
      if (refused && r.failure()) this.blocked = refused.message;
    }
    this.poke();
  };
  private readonly onResponse = (res: Response) => {
    if (res.request() !== this.navigating) return;
    this.status = res.status();
    // headers() is at hand without a round trip to the browser (headerValue() makes one).
    if (res.headers()["x-fleet-blocked"])
      this.blocked = this.proxy?.refusalFor(res.url())?.message ?? `refusing to fetch ${res.url()}`;
  };
  private readonly onNavigated = (f: unknown) => {
    if (f === this.page.mainFrame()) {
      this.navigating = undefined;
      this.poke();
    }
  };

  private readonly onLifecycle = () => this.poke();

  start(): this {
    this.page.on("request", this.onRequest);
    this.page.on("requestfinished", this.onDone);
    this.page.on("requestfailed", this.onDone);
    this.page.on("response", this.onResponse);
    this.page.on("framenavigated", this.onNavigated);
    this.page.on("domcontentloaded", this.onLifecycle);
    this.page.on("load", this.onLifecycle);
    return this;
  }

  stop(): void {
    this.page.off("request", this.onRequest);
    this.page.off("requestfinished", this.onDone);
    this.page.off("requestfailed", this.onDone);
    this.page.off("response", this.onResponse);
    this.page.off("framenavigated", this.onNavigated);
    this.page.off("domcontentloaded", this.onLifecycle);
    this.page.off("load", this.onLifecycle);
    this.poke();
  }

  /** Requests still young enough to wait for, and the soonest one of them turns old. */
  pending(): { count: number; nextExpiry: number } {
    const t = Date.now();
    let count = 0;
    let nextExpiry = Number.POSITIVE_INFINITY;
    for (const [r, started] of this.inFlight) {
      const young = COUNTED[r.resourceType()] ?? API_YOUNG_MS;
      const left = started + young - t;
      if (left > 0) {
        count++;
        nextExpiry = Math.min(nextExpiry, left);
      }
    }
    return { count, nextExpiry };
  }

  private poke(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  /** Resolves at the next network event or after ms. */
  next(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, ms));
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/**
 * How young a fetch, XHR or stream must be to be waited for: API_YOUNG_MS, and never started before
 * `since` (Date.now() time) when given.
 */
export function youngFor(since: number | undefined): number {
  return since === undefined ? API_YOUNG_MS : Math.min(API_YOUNG_MS, Math.max(0, Date.now() - since));
}

/**
 * `youngMs`: a fetch, XHR or stream older than this is not waited for. `scroll`: the scroll check's
 * arguments (readPage), read in the same call; its answer comes as the state's `mayScroll`.
 */
async function readState(
  page: Page,
  youngMs: number,
  scroll?: PageRead["scroll"],
): Promise<(PageState & { mayScroll?: boolean }) | undefined> {
  try {
    const read = await page.evaluate(readPage, { settle: { youngMs }, ...(scroll ? { scroll } : {}) });
    if (read.state)
      return read.mayScroll === undefined ? read.state : { ...read.state, mayScroll: read.mayScroll };
    // A document the init script missed (page.setContent's): install the bookkeeping from here on.
    await page.evaluate(settleInit);
    return undefined;
  } catch {
    // The document went away under the call (a navigation): read the next one.
    return undefined;
  }
}

/**
 * What is left before the page may count as settled, in ms (0: settled now). Pure, for tests:
 * the DOM must be parsed, nothing young may be in flight, no short timer or redirect due, and the page
 * must have been quiet for QUIET_MS since its last activity (a page with none since DOMContentLoaded
 * is quiet at once: nothing is building it).
 */
export function settleWait(
  s: PageState,
  net: { count: number; lastEnd: number; now: number },
  quietMs = QUIET_MS,
): number {
  if (s.readyState === "loading") return POLL_MS;
  if (net.count > 0 || s.pendingRequests > 0 || s.pendingStreams > 0) return POLL_MS;
  let wait = 0;
  if (s.nextTimer >= 0) wait = Math.max(wait, s.nextTimer - s.now + 1, 1);
  if (s.refreshAt >= 0 && s.refreshAt - s.now <= REFRESH_MAX_MS)
    wait = Math.max(wait, s.refreshAt - s.now + 50, 1);
  if (s.lastActivity >= 0) wait = Math.max(wait, quietMs - (s.now - s.lastActivity));
  if (net.lastEnd > 0) wait = Math.max(wait, quietMs - (net.now - net.lastEnd));
  return Math.max(0, wait);
}

/**
 * Wait until the page has nothing left to do (`wait.until: auto`), following script and meta-refresh
 * redirects, at most until `deadline` (Date.now() time). Never fails on time: the page is taken as it
 * stands. Fails only when a redirect leads to an address the guard refuses.
 */
export async function settlePage(
  page: Page,
  opts: {
    deadline: number;
    proxy?: GuardProxy;
    countImages?: boolean;
    quietMs?: number;
    /**
     * Date.now() time: what the page started before it (a long-poll, a stream) is not waited for,
     * only what it started since (after an act: what the actions set going).
     */
    since?: number;
    /** The page's state read a moment ago (with `youngFor(since)`), used instead of reading it again. */
    first?: PageState;
    /**
     * The scroll check's arguments (readPage): each read asks it too, and a quiet outcome carries the
     * answer of the read that found the page quiet as `mayScroll` (a navigation needs it next).
     */
    scroll?: PageRead["scroll"];
  },
): Promise<SettleOutcome> {
  let first = opts.first;
  const activity = new PageActivity(page, opts.proxy, opts.countImages ?? true).start();
  try {
    for (;;) {
      if (activity.blocked) throw new BrowserError("ssrf_blocked", 400, activity.blocked);
      const left = opts.deadline - Date.now();
      if (left <= 0 || activity.redirects.length > MAX_CLIENT_REDIRECTS)
        return { reason: "budget", redirects: activity.redirects, status: activity.status };
      if (activity.navigating) {
        await activity.next(Math.min(left, 250));
        continue;
      }
      const state = first ?? (await readState(page, youngFor(opts.since), opts.scroll));
      first = undefined;
      if (activity.navigating) continue;
      if (!state) {
        await activity.next(Math.min(left, POLL_MS));
        continue;
      }
      const net = activity.pending();
      const wait = settleWait(
        state,
        { count: net.count, lastEnd: activity.lastEnd, now: Date.now() },
        opts.quietMs,
      );
      if (wait <= 0) {
        if (activity.blocked) throw new BrowserError("ssrf_blocked", 400, activity.blocked);
        const { mayScroll, ...quiet } = state as PageState & { mayScroll?: boolean };
        return {
          reason: "quiet",
          redirects: activity.redirects,
          status: activity.status,
          state: quiet,
          ...(mayScroll !== undefined ? { mayScroll } : {}),
        };
      }
      await activity.next(Math.min(left, wait, net.count ? net.nextExpiry + 1 : wait, POLL_MS * 5));
    }
  } finally {
    activity.stop();
  }
}

export function seenIn(state: PageState | undefined): Seen | undefined {
  return state?.origin !== undefined && state.asked !== undefined
    ? { origin: state.origin, asked: state.asked }
    : undefined;
}
