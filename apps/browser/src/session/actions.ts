import type { Action, ActionOutcome } from "@browserfleet/contracts";
import type { CDPSession, Locator, Page, Request } from "playwright-core";
import type { GuardProxy } from "../net/guard-proxy.ts";
import { settlePage } from "../page/settle.ts";
import { withSettle } from "./settle.ts";

export interface RunActionsOptions {
  /** The most the whole run may take (ms); an action that would start past it fails with code "timeout" and the rest are skipped. */
  budgetMs: number;
  /** The most one action may wait for its element (ms); default 10 s, never past the budget. */
  actionTimeoutMs?: number;
  /** Called after each action that ran, for metrics. */
  onAction?: (action: string, ok: boolean, ms: number) => void;
}

type KeysOf<T> = T extends unknown ? keyof T : never;
export type ActionKind = KeysOf<Action>;

const DEFAULT_ACTION_TIMEOUT_MS = 10_000;
const NAVIGATION_TIMEOUT_MS = 30_000;
/** How long past the budget a stuck browser call may run before the run gives up on it. */
const BUDGET_SLACK_MS = 500;
const MAX_MESSAGE = 300;
/** A ref from the controls format (Playwright AI snapshot): e5, or f1e3 inside a frame. */
const REF = /^(f\d+)?e\d+$/;
const FRESH_MAP = 'take a fresh controls map (formats: ["controls"]) and use its refs';

export class ActionError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function actionKind(a: Action): ActionKind {
  return Object.keys(a)[0] as ActionKind;
}

/** Run the actions in order on the page; the first failure stops the run and skips the rest. */
export async function runActions(
  page: Page,
  proxy: GuardProxy,
  actions: Action[],
  opts: RunActionsOptions,
): Promise<{ outcomes: ActionOutcome[]; stoppedAt: number | null }> {
  const deadline = Date.now() + opts.budgetMs;
  const outcomes: ActionOutcome[] = [];
  let stoppedAt: number | null = null;
  // Every main-frame navigation hop of the current action, to explain a refused one.
  let hops: Request[] = [];
  const onRequest = (r: Request) => {
    if (r.isNavigationRequest() && r.frame() === page.mainFrame()) hops.push(r);
  };
  page.on("request", onRequest);
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
      hops = [];
      const started = performance.now();
      let error: { code: string; message: string } | undefined;
      try {
        await runOne(page, a, {
          deadline,
          actionTimeoutMs: opts.actionTimeoutMs ?? DEFAULT_ACTION_TIMEOUT_MS,
        });
        const blocked = await blockedNavigation(proxy, hops);
        if (blocked) error = { code: "ssrf_blocked", message: blocked };
      } catch (err) {
        const refused = hops.map((r) => proxy.refusalFor(r.url())).find((e) => e !== undefined);
        error = refused ? { code: "ssrf_blocked", message: refused.message } : actionErrorOf(err);
      }
      const ms = Math.round(performance.now() - started);
      opts.onAction?.(action, !error, ms);
      if (error) {
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
    page.off("request", onRequest);
  }
  return { outcomes, stoppedAt };
}

interface Ctx {
  deadline: number;
  actionTimeoutMs: number;
}

/** A control to act on: a ref from the controls map, or a CSS selector. */
interface Target {
  locator: Locator;
  /** How messages name it: `ref e5` or `selector "#login"`. */
  label: string;
  isRef: boolean;
}

function targetOf(page: Page, raw: string): Target {
  if (REF.test(raw)) return { locator: page.locator(`aria-ref=${raw}`), label: `ref ${raw}`, isRef: true };
  const shown = raw.length > 80 ? `${raw.slice(0, 80)}…` : raw;
  return { locator: page.locator(raw).first(), label: `selector ${JSON.stringify(shown)}`, isRef: false };
}

function staleRef(t: Target): ActionError {
  return new ActionError(
    "stale_ref",
    `${t.label} is not on the page any more (it is from an older controls map, or the page changed); ${FRESH_MAP}`,
  );
}

/** A ref resolves at once or never (Playwright would wait out the timeout); say so without waiting. */
async function resolve(page: Page, raw: string): Promise<Target> {
  const t = targetOf(page, raw);
  if (!t.isRef) return t;
  let count: number;
  try {
    count = await t.locator.count();
  } catch (err) {
    // "Invalid frame in aria-ref selector": the frame of an f<N>e<M> ref is gone (e.g. navigated).
    if (/aria-ref/i.test(messageOf(err))) throw staleRef(t);
    throw err;
  }
  if (count === 0) throw staleRef(t);
  return t;
}

/** The element timeout for the next step: the per-action one, never past the budget. */
function stepTimeout(ctx: Ctx, wanted = ctx.actionTimeoutMs): number {
  return Math.max(1, Math.min(wanted, ctx.deadline - Date.now()));
}

async function runOne(page: Page, a: Action, ctx: Ctx): Promise<void> {
  // Waits settle nothing: they are the waiting.
  if ("wait" in a) return budgeted(runWait(page, a.wait, ctx), ctx);
  await withSettle(page, () => budgeted(act(page, a, ctx), ctx), { deadline: ctx.deadline });
}

/**
 * Whether the tab has a page to go back to. A session's tab opens on about:blank, which
 * page.goBack() would happily return to, so that entry does not count.
 */
async function hasEarlierPage(page: Page): Promise<boolean> {
  let cdp: CDPSession | undefined;
  try {
    cdp = await page.context().newCDPSession(page);
    const { currentIndex, entries } = await cdp.send("Page.getNavigationHistory");
    const prev = entries[currentIndex - 1];
    return prev !== undefined && prev.url !== "about:blank";
  } catch {
    return true; // Not Chromium, or no CDP: let goBack decide.
  } finally {
    await cdp?.detach().catch(() => {});
  }
}

/** Performs one action; on an element, maps Playwright's errors to ones an agent can act on. */
async function act(page: Page, a: Action, ctx: Ctx): Promise<void> {
  if ("press" in a) {
    try {
      await page.keyboard.press(a.press);
    } catch (err) {
      const m = messageOf(err);
      if (/Unknown key/i.test(m))
        throw new ActionError(
          "invalid_key",
          `unknown key ${JSON.stringify(a.press)}: use Playwright key names such as Enter, Tab, Escape, Backspace, ArrowDown, PageDown, Control+A, Shift+Tab`,
        );
      throw err;
    }
    return;
  }
  if ("navigate" in a) {
    const timeout = stepTimeout(ctx, NAVIGATION_TIMEOUT_MS);
    try {
      // Commit is enough here; the settle step then waits (bounded) for load.
      await page.goto(a.navigate.url, { waitUntil: "commit", timeout });
    } catch (err) {
      const m = messageOf(err);
      if (isTimeout(err))
        throw new ActionError("timeout", `${a.navigate.url} did not start loading within ${timeout} ms`);
      throw new ActionError("upstream_failed", `could not load ${a.navigate.url}: ${shortReason(m)}`);
    }
    return;
  }
  if ("back" in a) {
    if (!(await hasEarlierPage(page)))
      throw new ActionError(
        "no_history",
        "there is no earlier page to go back to in this session; use navigate with a URL instead",
      );
    const timeout = stepTimeout(ctx, NAVIGATION_TIMEOUT_MS);
    try {
      await page.goBack({ waitUntil: "commit", timeout });
    } catch (err) {
      if (isTimeout(err))
        throw new ActionError("timeout", `going back did not reach the earlier page within ${timeout} ms`);
      throw new ActionError("upstream_failed", `could not go back: ${shortReason(messageOf(err))}`);
    }
    return;
  }
  if ("scroll" in a) {
    const { ref, direction = "down", amount = 600 } = a.scroll;
    const dx = direction === "left" ? -amount : direction === "right" ? amount : 0;
    const dy = direction === "up" ? -amount : direction === "down" ? amount : 0;
    if (!ref) {
      await page.evaluate((d) => window.scrollBy({ left: d.dx, top: d.dy, behavior: "instant" }), { dx, dy });
      return;
    }
    const t = await resolve(page, ref);
    await onElement(t, "scroll", ctx, (timeout) =>
      t.locator.evaluate(
        (el, d) => {
          // The element if it can scroll that way, else its nearest ancestor that can, else the page.
          let node: Element | null = el;
          while (node && node !== document.body && node !== document.documentElement) {
            const s = getComputedStyle(node);
            const y =
              d.dy !== 0 && /auto|scroll|overlay/.test(s.overflowY) && node.scrollHeight > node.clientHeight;
            const x =
              d.dx !== 0 && /auto|scroll|overlay/.test(s.overflowX) && node.scrollWidth > node.clientWidth;
            if (x || y) break;
            node = node.parentElement;
          }
          const scroller =
            node && node !== document.body && node !== document.documentElement
              ? node
              : (document.scrollingElement ?? document.documentElement);
          scroller.scrollBy({ left: d.dx, top: d.dy, behavior: "instant" });
        },
        { dx, dy },
        { timeout },
      ),
    );
    return;
  }

  if ("type" in a) {
    const t = await resolve(page, a.type.ref);
    await onElement(t, "type", ctx, (timeout) => t.locator.fill(a.type.text, { timeout }));
    if (a.type.submit) await onElement(t, "type", ctx, (timeout) => t.locator.press("Enter", { timeout }));
  } else if ("click" in a) {
    const t = await resolve(page, a.click.ref);
    const { button, clickCount } = a.click;
    await onElement(t, "click", ctx, (timeout) => t.locator.click({ button, clickCount, timeout }));
  } else if ("hover" in a) {
    const t = await resolve(page, a.hover.ref);
    await onElement(t, "hover", ctx, (timeout) => t.locator.hover({ timeout }));
  } else if ("check" in a) {
    const t = await resolve(page, a.check.ref);
    await onElement(t, "check", ctx, (timeout) => t.locator.check({ timeout }));
  } else if ("uncheck" in a) {
    const t = await resolve(page, a.uncheck.ref);
    await onElement(t, "uncheck", ctx, (timeout) => t.locator.uncheck({ timeout }));
  } else if ("select" in a) {
    const t = await resolve(page, a.select.ref);
    const { values } = a.select;
    // Playwright would wait out the timeout for a missing option; name the options at once instead.
    const options = await onElement(t, "select", ctx, (timeout) =>
      t.locator.evaluate(
        (el) =>
          el instanceof HTMLSelectElement ? Array.from(el.options).map((o) => [o.value, o.label]) : null,
        undefined,
        { timeout },
      ),
    );
    if (options) {
      const missing = values.filter((v) => !options.some(([value, label]) => v === value || v === label));
      if (missing.length) {
        const list = options.map(([value, label]) => (value === label ? value : `${value} (${label})`));
        throw new ActionError(
          "not_found",
          `${t.label} has no option ${missing.map((m) => JSON.stringify(m)).join(", ")}; its options (value or label) are: ${list.join(", ")}`,
        );
      }
    }
    await onElement(t, "select", ctx, (timeout) => t.locator.selectOption(values, { timeout }));
  }
}

async function runWait(page: Page, w: Extract<Action, { wait: unknown }>["wait"], ctx: Ctx): Promise<void> {
  const left = ctx.deadline - Date.now();
  if ("ms" in w) {
    if (w.ms > left)
      throw new ActionError(
        "timeout",
        `wait of ${w.ms} ms is longer than the ${Math.max(0, left)} ms left of this act's time budget; wait less, or wait in a new act`,
      );
    await new Promise((r) => setTimeout(r, w.ms));
    return;
  }
  const timeout = stepTimeout(ctx, w.timeout ?? ctx.actionTimeoutMs);
  const budgetNote = timeout < (w.timeout ?? ctx.actionTimeoutMs) ? " (the act's time budget ran out)" : "";
  if ("until" in w) {
    if (w.until === "commit") return;
    if (w.until === "auto") {
      // Never fails on time: the page is taken as it stands when the budget runs out.
      await settlePage(page, { deadline: Date.now() + timeout });
      return;
    }
    try {
      await page.waitForLoadState(w.until, { timeout });
    } catch (err) {
      if (isTimeout(err))
        throw new ActionError(
          "timeout",
          `the page did not reach ${w.until} within ${timeout} ms${budgetNote}`,
        );
      throw err;
    }
    return;
  }
  const t: Target =
    "selector" in w
      ? await resolve(page, w.selector)
      : { locator: page.getByText(w.text).first(), label: `text ${JSON.stringify(w.text)}`, isRef: false };
  try {
    await t.locator.waitFor({ state: "visible", timeout });
  } catch (err) {
    const m = messageOf(err);
    if (!t.isRef && isInvalidSelector(m))
      throw new ActionError("invalid_selector", `${t.label} is not a valid selector: ${shortReason(m)}`);
    if (isTimeout(err)) {
      if (t.isRef && !/locator resolved to/.test(m)) throw staleRef(t);
      throw new ActionError(
        "timeout",
        `${t.label.replace(/^selector/, "no element matching")} did not become visible within ${timeout} ms${budgetNote}`,
      );
    }
    throw err;
  }
}

/** One Playwright call on an element, with its errors turned into stale_ref, not_found, timeout... */
async function onElement<T>(
  t: Target,
  verb: string,
  ctx: Ctx,
  call: (timeout: number) => Promise<T>,
): Promise<T> {
  const wanted = ctx.actionTimeoutMs;
  const timeout = stepTimeout(ctx, wanted);
  try {
    return await call(timeout);
  } catch (err) {
    const m = messageOf(err);
    if (t.isRef && /aria-ref/i.test(m) && /Invalid frame/i.test(m)) throw staleRef(t);
    if (!t.isRef && isInvalidSelector(m))
      throw new ActionError("invalid_selector", `${t.label} is not a valid selector: ${shortReason(m)}`);
    if (isTimeout(err)) {
      // Never resolved to an element: a ref that went away, or a selector that matches nothing.
      if (!/locator resolved to/.test(m)) {
        if (t.isRef) throw staleRef(t);
        throw new ActionError(
          "not_found",
          `no element matches ${t.label} (waited ${timeout} ms); check the selector, or take a controls map (formats: ["controls"]) and use a ref`,
        );
      }
      const budgetNote = timeout < wanted ? " (the act's time budget ran out)" : "";
      throw new ActionError(
        "timeout",
        `${verb} on ${t.label} timed out after ${timeout} ms${budgetNote}: ${whyNotActionable(m)}`,
      );
    }
    if (/Target page, context or browser has been closed|Target closed/i.test(m)) throw err;
    throw new ActionError("action_failed", `${verb} on ${t.label} failed: ${shortReason(m)}`);
  }
}

/** Races a browser call against the budget, so a call without its own timeout cannot hang the run. */
async function budgeted<T>(p: Promise<T>, ctx: Ctx): Promise<T> {
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

function messageOf(err: unknown): string {
  // Playwright colours its call log; drop the escapes.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes
  return String((err as Error)?.message ?? err).replace(/\u001b\[\d+m/g, "");
}

function isTimeout(err: unknown): boolean {
  return (err as Error)?.name === "TimeoutError" || /Timeout \d+ms exceeded/.test(messageOf(err));
}

function isInvalidSelector(m: string): boolean {
  return /while parsing (css )?selector|not a valid selector|Unknown engine|Unexpected token|Invalid selector/i.test(
    m,
  );
}

/** The first line of a Playwright error without its `locator.click: ` and `Error: ` prefixes. */
function shortReason(m: string): string {
  return m
    .split("\n")[0]!
    .replace(/^[\w.]+: /, "")
    .replace(/^Error: /, "")
    .trim();
}

/** Playwright's reason from the call log, e.g. "element is not enabled". */
function whyNotActionable(m: string): string {
  const lines = m
    .split("\n")
    .map((l) =>
      l
        .trim()
        .replace(/^-\s*/, "")
        .replace(/^\d+ × /, ""),
    )
    .filter(Boolean);
  const reason = lines.findLast((l) =>
    /element is not|intercepts pointer events|did not find|outside of the viewport|not stable|not editable|not attached/i.test(
      l,
    ),
  );
  if (!reason) return "the element never became usable; check that it is visible and enabled";
  if (/did not find some options/.test(reason)) return "the select does not have the requested option";
  return `${reason}; wait for it to become usable (wait.selector / wait.ms), or act on another control`;
}

export function actionErrorOf(err: unknown): { code: string; message: string } {
  if (err instanceof ActionError) return { code: err.code, message: err.message };
  const m = messageOf(err);
  if (/Target page, context or browser has been closed|Target closed|browser has been closed/i.test(m))
    return { code: "page_closed", message: "the page was closed while acting; open a new session" };
  if (/Execution context was destroyed/i.test(m))
    return {
      code: "action_failed",
      message: `the page navigated while the action ran (${shortReason(m)}); ${FRESH_MAP}`,
    };
  if (isTimeout(err)) return { code: "timeout", message: shortReason(m) };
  return { code: "action_failed", message: shortReason(m) };
}

function oneLine(s: string): string {
  const line = s.replace(/\s+/g, " ").trim();
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE - 1)}…` : line;
}
