import type { Action } from "@browserfleet/contracts";
import type { Page } from "playwright-core";
import { settlePage } from "../page/settle.ts";
import { ActionError, isInvalidSelector, isTimeout, messageOf, shortReason } from "./action-errors.ts";
import { type ActionCtx, resolve, staleRef, stepTimeout, type Target } from "./targets.ts";

type Wait = Extract<Action, { wait: unknown }>["wait"];

/** The wait action: a pause, a load state, or a selector or text becoming visible. */
export async function runWait(page: Page, w: Wait, ctx: ActionCtx): Promise<void> {
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
