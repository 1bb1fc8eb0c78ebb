import type { Action, ActionOutcome } from "@browserfleet/contracts";
import type { Page, Request } from "playwright-core";
import type { GuardProxy } from "../net/guard-proxy.ts";
import type { PageState, Seen } from "../page/settle.ts";
import { ActionError, actionErrorOf, oneLine } from "./action-errors.ts";
import { type ActionDone, actionKind, handlerOf } from "./action-handlers.ts";
import { withSettle } from "./settle.ts";
import { withLocalRef } from "./tabs.ts";
import type { ActionCtx, SessionControls } from "./targets.ts";

/** A session's tabs and dialogs as a run of actions uses them. */
export interface ActSession extends SessionControls {
  /** The active tab's page: each action runs on the page active when it starts. */
  activePage(): Page;
  activeTab(): string;
  openTabs(): string[];
  /** Which action is running (undefined: none), for the dialogs it opens. */
  actionStarted(index: number | undefined): void;
}

export interface RunActionsOptions<S = unknown> {
  /** The most the whole run may take (ms); an action that would start past it fails with code "timeout" and the rest are skipped. */
  budgetMs: number;
  /** The most one action may wait for its element (ms); default 10 s, never past the budget. */
  actionTimeoutMs?: number;
  /** Called after each action that ran, for metrics. */
  onAction?: (action: string, ok: boolean, ms: number, a: Action) => void;
  /**
   * After the last action, read the result right away instead of first waiting for the page's handlers
   * (see withSettle); not after a wait, navigate or back, whose page is still to come.
   */
  speculate?: () => Promise<S | undefined>;
  /** What the last read of the page before the run found (see withSettle). */
  seen?: Seen;
  /**
   * In a session: its tabs (each action runs on the active tab's page, and a ref must be of that tab) and
   * its dialogs (the tab and dialog actions).
   */
  session?: ActSession;
}

/** Actions after which the page is still on its way: nothing to read at once. */
const NOT_SPECULATED = new Set(["wait", "navigate", "back", "tab", "dialog"]);
/** Actions that do nothing on the page, so nothing to wait for after them. */
const NOT_SETTLED = new Set(["wait", "tab", "dialog", "saveProfile"]);

/**
 * Whether the wait for the page's handlers after this action may be skipped when the page has asked for
 * nothing since the last read (see withSettle's `seen`): only after typing text without Enter. A key
 * press, click, selection or check may start a navigation (a form sent by Enter, a link), which the
 * page's bookkeeping does not count and which is reported only once it has begun: the wait for the
 * page's task and frame is what lets it be seen, so the settle then waits for the new page.
 */
const mayStartNavigation = (a: Action): boolean => !("type" in a) || a.type.submit === true;

const DEFAULT_ACTION_TIMEOUT_MS = 10_000;
/** How long past the budget a stuck browser call may run before the run gives up on it. */
const BUDGET_SLACK_MS = 500;

/** Run the actions in order on the page; the first failure stops the run and skips the rest. */
export async function runActions<S = unknown>(
  firstPage: Page,
  proxy: GuardProxy,
  actions: Action[],
  opts: RunActionsOptions<S>,
): Promise<{
  outcomes: ActionOutcome[];
  stoppedAt: number | null;
  /** The page's settle state after the last action, when it ran and started nothing (see withSettle). */
  state?: PageState;
  /** What `speculate` read after the last action, when it was kept. */
  speculated?: S;
}> {
  const since = Date.now();
  const deadline = since + opts.budgetMs;
  let state: PageState | undefined;
  let speculated: S | undefined;
  let seen = opts.seen;
  const outcomes: ActionOutcome[] = [];
  let stoppedAt: number | null = null;
  const session = opts.session;
  // Every main-frame navigation hop of the current action, to explain a refused one.
  let hops: Request[] = [];
  let page = firstPage;
  const onRequest = (r: Request) => {
    if (r.isNavigationRequest() && r.frame() === page.mainFrame()) hops.push(r);
  };
  let listening: Page | undefined;
  const listenTo = (p: Page) => {
    if (listening === p) return;
    listening?.off("request", onRequest);
    p.on("request", onRequest);
    listening = p;
  };
  try {
    for (const [index, a] of actions.entries()) {
      const action = actionKind(a);
      if (stoppedAt !== null) {
        outcomes.push({ index, action, status: "skipped" });
        continue;
      }
      if (Date.now() >= deadline) {
        stoppedAt = index;
        outcomes.push({
          index,
          action,
          status: "failed",
          error: {
            code: "timeout",
            message: `not started: the act's time budget (${opts.budgetMs} ms) ran out before this action; send it again in a new act`,
          },
        });
        continue;
      }
      page = session?.activePage() ?? firstPage;
      listenTo(page);
      session?.actionStarted(index);
      hops = [];
      state = undefined;
      speculated = undefined;
      const started = performance.now();
      let notActing = 0;
      let error: { code: string; message: string } | undefined;
      try {
        const last = index === actions.length - 1;
        const speculate = last && !NOT_SPECULATED.has(action) ? opts.speculate : undefined;
        const quietSeen = mayStartNavigation(a) ? undefined : seen;
        const done = await runOne(
          page,
          session ? withLocalRef(a, session.activeTab(), session.openTabs()) : a,
          {
            deadline,
            actionTimeoutMs: opts.actionTimeoutMs ?? DEFAULT_ACTION_TIMEOUT_MS,
            ...(session ? { session } : {}),
            // Between actions only: after the last, the page's state is read for the result anyway.
            ...(quietSeen && !last ? { seen: quietSeen } : {}),
          },
          since,
          speculate,
          quietSeen,
        );
        ({ state, speculated, seen } = done);
        notActing = done.speculateMs ?? 0;
        const blocked = await blockedNavigation(proxy, hops);
        if (blocked) error = { code: "ssrf_blocked", message: blocked };
      } catch (err) {
        const refused = hops.map((r) => proxy.refusalFor(r.url())).find((e) => e !== undefined);
        error = refused ? { code: "ssrf_blocked", message: refused.message } : actionErrorOf(err);
        if (error.code === "page_closed" && closedItsOwnTab(page, session)) error = undefined;
      }
      const ms = Math.round(performance.now() - started - notActing);
      opts.onAction?.(action, !error, ms, a);
      if (error) {
        state = undefined;
        speculated = undefined;
        stoppedAt = index;
        outcomes.push({
          index,
          action,
          status: "failed",
          error: { ...error, message: oneLine(error.message) },
          ms,
        });
      } else outcomes.push({ index, action, status: "ok", ms });
    }
  } finally {
    listening?.off("request", onRequest);
    session?.actionStarted(undefined);
  }
  return {
    outcomes,
    stoppedAt,
    ...(state ? { state } : {}),
    ...(speculated !== undefined ? { speculated } : {}),
  };
}

/**
 * Whether the action's tab closed under it while the session lives on in another tab: a page that runs
 * window.close() on the press (a menu acting on mousedown) closes before the click returns, and under load
 * even a click handler can. The action did its work; the session goes on in the tab that opened it.
 */
function closedItsOwnTab(page: Page, session: ActSession | undefined): boolean {
  return (
    session !== undefined &&
    page.isClosed() &&
    session.openTabs().length > 0 &&
    !session.activePage().isClosed()
  );
}

/** Runs one action and settles after it; the page's settle state when the action started nothing. */
async function runOne<S>(
  page: Page,
  a: Action,
  ctx: ActionCtx,
  since: number,
  speculate?: () => Promise<S | undefined>,
  seen?: Seen,
): Promise<{ state?: PageState; speculated?: S; speculateMs?: number; seen?: Seen }> {
  const { kind, args, run } = handlerOf(a);
  // Never reported ok having done nothing.
  if (!run) throw new ActionError("unavailable", `this browser worker cannot run ${kind} actions`);
  // Waits settle nothing: they are the waiting; tab, dialog and saveProfile actions do nothing on the page.
  if (NOT_SETTLED.has(kind)) {
    await budgeted(run(page, args, ctx), ctx);
    return {};
  }
  const settled = await withSettle(page, () => budgeted(run(page, args, ctx), ctx), {
    deadline: ctx.deadline,
    since,
    ...(speculate ? { speculate } : {}),
    ...(seen ? { seen } : {}),
    setNothingGoing: (done) => (done as ActionDone | undefined)?.typingUnseen === true,
  });
  return {
    state: settled.state,
    speculated: settled.speculated,
    speculateMs: settled.speculateMs,
    seen: settled.seen,
  };
}

/** Races a browser call against the budget, so a call without its own timeout cannot hang the run. */
async function budgeted<T>(p: Promise<T>, ctx: ActionCtx): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ActionError("timeout", "the action ran past the act's time budget")),
      Math.max(0, ctx.deadline - Date.now()) + BUDGET_SLACK_MS,
    );
  });
  p.catch(() => {});
  try {
    return await Promise.race([p, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether the action's final main-frame navigation was answered by the guard proxy's refusal. */
async function blockedNavigation(proxy: GuardProxy, hops: Request[]): Promise<string | undefined> {
  const last = hops.at(-1);
  if (!last) return undefined;
  const check = async () => {
    const response = await last.response();
    // headers() is at hand without a round trip to the browser (headerValue() makes one).
    if (!response?.headers()["x-fleet-blocked"]) return undefined;
    return (
      hops.map((r) => proxy.refusalFor(r.url())).find((e) => e !== undefined)?.message ??
      `refusing to fetch ${response.url()}: it resolves to a blocked address`
    );
  };
  return Promise.race([
    check().catch(() => undefined),
    new Promise<undefined>((r) => setTimeout(() => r(undefined), 1000)),
  ]);
}
