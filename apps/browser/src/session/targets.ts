import type { ProfileSaved } from "@browserfleet/contracts";
import type { Locator, Page } from "playwright-core";
import type { Seen } from "../page/settle.ts";
import {
  ActionError,
  FRESH_MAP,
  isInvalidSelector,
  isTimeout,
  messageOf,
  shortReason,
  whyNotActionable,
} from "./action-errors.ts";

/** The time an action has: the act's deadline and the per-action element timeout. */
export interface ActionCtx {
  deadline: number;
  actionTimeoutMs: number;
  /**
   * What the last read of the page before the action found, when the action is followed by another and
   * may let the wait between them be skipped (a type without Enter, see type-ready.ts).
   */
  seen?: Seen;
  /** The session's tabs and dialogs, for the tab and dialog actions; absent outside a session. */
  session?: SessionControls;
}

/** What the tab and dialog actions change in a session (see tabs.ts and dialogs.ts). */
export interface SessionControls {
  switchTab(id: string, deadline: number): Promise<void>;
  closeTab(id: string, deadline: number): Promise<void>;
  answerNextDialog(a: { accept: boolean; promptText?: string }): void;
  /** Save the session's browser state to a profile of its account (see SessionHost). */
  saveProfile(name: string | undefined, deadline: number): Promise<ProfileSaved>;
}

/** A control to act on: a ref from the controls map, or a CSS selector. */
export interface Target {
  locator: Locator;
  /** How messages name it: `ref e5` or `selector "#login"`. */
  label: string;
  isRef: boolean;
  /**
   * A ref's check that it is on the page, asked once, beside the first call on it (see `target`); that
   * call is aborted through `signal` when it is not.
   */
  present?: () => Promise<boolean>;
  signal?: AbortSignal;
}

/** A ref from the controls format (Playwright AI snapshot): e5, or f1e3 inside a frame. */
const REF = /^(f\d+)?e\d+$/;

function targetOf(page: Page, raw: string): Target {
  if (REF.test(raw)) return { locator: page.locator(`aria-ref=${raw}`), label: `ref ${raw}`, isRef: true };
  const shown = raw.length > 80 ? `${raw.slice(0, 80)}…` : raw;
  return { locator: page.locator(raw).first(), label: `selector ${JSON.stringify(shown)}`, isRef: false };
}

export function staleRef(t: Target): ActionError {
  return new ActionError(
    "stale_ref",
    `${t.label} is not on the page any more (it is from an older controls map, or the page changed); ${FRESH_MAP}`,
  );
}

/** A ref resolves at once or never (Playwright would wait out the timeout); say so without waiting. */
export async function resolve(page: Page, raw: string): Promise<Target> {
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

/**
 * The target of an action, without a round trip: a ref is checked beside the action's first call on it
 * (onElement), not before it, and that call is aborted as soon as the ref is found not on the page
 * (Playwright would wait out the timeout for it).
 *
 * Beside the call, not later: the check then runs in the page before the call's input does. Asked only
 * once the call had run for a while (38aedd4), it could find the page the call itself had navigated to
 * (a link's click waits for the new document), abort the click that had done its work and report the
 * ref stale.
 */
export function target(page: Page, raw: string): Target {
  const t = targetOf(page, raw);
  if (!t.isRef) return t;
  const abort = new AbortController();
  t.signal = abort.signal;
  let check: Promise<boolean> | undefined;
  t.present = () => {
    if (!check) {
      check = t.locator.count().then(
        (n) => n > 0,
        // "Invalid frame in aria-ref selector": the frame of an f<N>e<M> ref is gone (e.g. navigated).
        (err) => {
          if (/aria-ref/i.test(messageOf(err))) return false;
          throw err;
        },
      );
      check.then(
        (ok) => ok || abort.abort(),
        () => abort.abort(),
      );
    }
    return check;
  };
  return t;
}

/** The element timeout for the next step: the per-action one, never past the budget. */
export function stepTimeout(ctx: ActionCtx, wanted = ctx.actionTimeoutMs): number {
  return Math.max(1, Math.min(wanted, ctx.deadline - Date.now()));
}

/** One Playwright call on an element, with its errors turned into stale_ref, not_found, timeout... */
export async function onElement<T>(
  t: Target,
  verb: string,
  ctx: ActionCtx,
  call: (timeout: number, signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  const wanted = ctx.actionTimeoutMs;
  const timeout = stepTimeout(ctx, wanted);
  const { present } = t;
  present?.().catch(() => {});
  try {
    return await call(timeout, t.signal);
  } catch (err) {
    if (present && !(await present())) throw staleRef(t);
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
