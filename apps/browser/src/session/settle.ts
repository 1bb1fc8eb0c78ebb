import type { Page, Request } from "playwright-core";
import handlersRanInPage from "../injected/generated/handlers-ran.ts";
import { type PageState, type Seen, seenIn, youngFor } from "../page/settle.ts";
import {
  COMMIT_AFTER_FINISH_MS,
  ACTION_GRACE_MS as GRACE_MS,
  ACTION_LOAD_MS as LOAD_MS,
  ACTION_REQUESTS_MS as QUIET_MS,
} from "../settle-windows.ts";

export interface SettleOptions<S = unknown> {
  /** Absolute time (Date.now()) past which settling never waits. */
  deadline?: number;
  /** Date.now() time: the page's fetches, XHRs and streams started before it are not the action's. */
  since?: number;
  quietMs?: number;
  loadMs?: number;
  /**
   * Read the page's result right after the action, instead of first waiting for its handlers: kept
   * when it says the page has nothing left to do (it answers undefined otherwise) and the action
   * started no request and no navigation; else the settle goes on as without it.
   */
  speculate?: () => Promise<S | undefined>;
  /**
   * What the last read of the page before the action found: when the page has asked for nothing since,
   * its handlers queued nothing and are not waited for (see injected/entries/settle-init.ts).
   */
  seen?: Seen;
  /**
   * Whether the action says, by its result, that it ran no page script and so set nothing going (text
   * typed that no page script could see, see session/type-ready.ts): then, when it started no request
   * and no navigation either, the page's handlers are not waited for, and `seen` holds on.
   */
  setNothingGoing?: (value: unknown) => boolean;
}

export interface Settled<T, S = unknown> {
  value: T;
  /** What `speculate` read, when it was kept: the page as it stands, settled. */
  speculated?: S;
  /** How long `speculate` took, kept or not (not the action's time). */
  speculateMs?: number;
  /** What the last read of the page after the action found, for the next action's `seen`. */
  seen?: Seen;
  /** Main-frame navigation requests the action started, redirect hops included, in order. */
  navigations: Request[];
  /** The main frame committed a new document (or a same-document navigation). */
  committed: boolean;
  /**
   * The page's settle state once its handlers ran, when the action started no request and no
   * navigation: what a settle right after may start from instead of reading it again.
   */
  state?: PageState;
}

/**
 * Resolves once the page has run its handlers for what just happened (a task, and the frame callbacks
 * they asked for, see injected/entries/handlers-ran.ts), with the page's settle state then; or after `ms`,
 * whichever is first. No frame is waited for when nothing asked for one.
 */
async function handlersRan(
  page: Page,
  ms: number,
  youngMs: number,
  seen?: Seen,
): Promise<PageState | undefined> {
  if (ms <= 0) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const state = await Promise.race([
    page.evaluate(handlersRanInPage, [youngMs, seen ?? null] as const).catch(() => null),
    new Promise<null>((r) => {
      timer = setTimeout(() => r(null), ms);
    }),
  ]);
  clearTimeout(timer);
  return state ?? undefined;
}

/**
 * Run an action, then wait (bounded, never failing) for the page to settle: for the navigation
 * it started to reach `load`, else for the requests it started to finish.
 */
export async function withSettle<T, S = unknown>(
  page: Page,
  fn: () => Promise<T>,
  opts: SettleOptions<S> = {},
): Promise<Settled<T, S>> {
  const pending = new Set<Request>();
  const navigations: Request[] = [];
  let committed = false;
  let navDone = false;
  let navFinishedAt = 0;
  let wake: (() => void) | undefined;
  const poke = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const main = page.mainFrame();
  const isMainNav = (r: Request) => r.isNavigationRequest() && r.frame() === main;

  let sawRequest = false;
  const onRequest = (r: Request) => {
    sawRequest = true;
    if (isMainNav(r)) {
      navigations.push(r);
      navDone = false;
    } else pending.add(r);
    poke();
  };
  const onDone = (failed: boolean) => (r: Request) => {
    pending.delete(r);
    if (navigations.at(-1) === r) {
      if (failed) navDone = true;
      else navFinishedAt = Date.now();
    }
    poke();
  };
  const onFinished = onDone(false);
  const onFailed = onDone(true);
  const onNavigated = (f: unknown) => {
    if (f === main) {
      committed = true;
      poke();
    }
  };
  page.on("request", onRequest);
  page.on("requestfinished", onFinished);
  page.on("requestfailed", onFailed);
  page.on("framenavigated", onNavigated);

  /** Resolves at the next event or after ms, whichever is first. */
  const nextEvent = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, ms));
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const deadline = opts.deadline ?? Number.POSITIVE_INFINITY;
  const until = (ms: number) => Math.min(Date.now() + ms, deadline);

  try {
    const value = await fn();
    const quiet = () => !navigations.length && !committed && !pending.size && !sawRequest;
    if (!opts.speculate && opts.setNothingGoing?.(value) && quiet())
      return { value, navigations, committed, ...(opts.seen ? { seen: opts.seen } : {}) };
    let speculateMs: number | undefined;
    if (opts.speculate) {
      const started = performance.now();
      // Its answer comes after the reports of any request the action started (see below).
      const speculated = await opts.speculate().catch(() => undefined);
      speculateMs = performance.now() - started;
      if (speculated !== undefined && quiet())
        return { value, navigations, committed, speculated, speculateMs };
    }
    // Let the page's handlers for the action run (a task, and a frame if they asked for one). A request
    // they start is reported on the same DevTools session before this round trip's answer, so it is in
    // `pending` by then.
    const ran = await handlersRan(
      page,
      Math.min(GRACE_MS, deadline - Date.now()),
      youngFor(opts.since),
      opts.seen,
    );
    let last = ran;
    const state = quiet() ? ran : undefined;

    if (!navigations.length && !committed && pending.size) {
      const end = until(opts.quietMs ?? QUIET_MS);
      while (pending.size && !navigations.length && Date.now() < end) await nextEvent(end - Date.now());
      // Let the page's handlers run on what just arrived.
      if (!navigations.length)
        last = await handlersRan(page, Math.min(GRACE_MS, deadline - Date.now()), youngFor(opts.since));
    }
    if (navigations.length || committed) {
      const end = until(opts.loadMs ?? LOAD_MS);
      // Wait for the commit first: before it, the old document's `load` would answer at once.
      while (!committed && !navDone && Date.now() < end) {
        if (navFinishedAt && Date.now() - navFinishedAt >= COMMIT_AFTER_FINISH_MS) break;
        await nextEvent(Math.min(end - Date.now(), navFinishedAt ? COMMIT_AFTER_FINISH_MS : 1000));
      }
      const left = end - Date.now();
      if (committed && left > 0) await page.waitForLoadState("load", { timeout: left }).catch(() => {});
    }
    return {
      value,
      navigations,
      committed,
      ...(state && quiet() ? { state } : {}),
      ...(speculateMs !== undefined ? { speculateMs } : {}),
      // After a navigation the page is another document: nothing read before it says anything of it.
      ...(!navigations.length && !committed && seenIn(last) ? { seen: seenIn(last) } : {}),
    };
  } finally {
    wake = undefined;
    page.off("request", onRequest);
    page.off("requestfinished", onFinished);
    page.off("requestfailed", onFailed);
    page.off("framenavigated", onNavigated);
  }
}
