import type { ElementHandle, Page } from "playwright-core";
import lazyPanelScroll from "../injected/generated/lazy-panel-scroll.ts";
import lazyPanels from "../injected/generated/lazy-panels.ts";
import lazyScrollSize from "../injected/generated/lazy-scroll-size.ts";
import lazyScrollStep from "../injected/generated/lazy-scroll-step.ts";
import lazyScrollTop from "../injected/generated/lazy-scroll-top.ts";
import lazyScrollWhere from "../injected/generated/lazy-scroll-where.ts";
import twoFrames from "../injected/generated/two-frames.ts";
import type { GuardProxy } from "../net/guard-proxy.ts";
import { settlePage } from "./settle.ts";

export interface ScrollOutcome {
  steps: number;
  height: number;
  /** The bottom was reached and the page stopped growing. */
  complete: boolean;
  ms: number;
  /** The page's scrolling panels, scrolled after the window; absent when it has none. */
  panels?: PanelsOutcome;
}

/** How the scrolling panels (injected/lib/scroll-panels.ts: a feed, a chat pane) were scrolled. */
export interface PanelsOutcome {
  /** Panels found (at most MAX_PANELS). */
  count: number;
  /** Panel-height steps scrolled, all panels together. */
  steps: number;
  /** Every panel reached its end and stopped growing. */
  complete: boolean;
}

interface ScrollBounds {
  maxSteps: number;
  /** Date.now() time. */
  deadline: number;
  proxy?: GuardProxy;
  countImages: boolean;
}

/** The longest one step waits for what scrolling into view started (an IntersectionObserver's fetch). */
const STEP_SETTLE_MS = 1_500;

/**
 * Lets the page run a rendering step and the tasks after it (IntersectionObserver callbacks are
 * delivered there): two frames, and no timer, which the settle bookkeeping would count as activity.
 */
const nextFrame = (page: Page) => page.evaluate(twoFrames).catch(() => {});

/**
 * Scroll the page down in viewport steps, letting each step's lazy content load, until the bottom is
 * reached and the page stops growing, or `maxSteps` or `budgetMs` run out (an endless feed); then back
 * to the top. Then, when script on the page may react to it, the same for each of its scrolling panels
 * (injected/lib/scroll-panels.ts: an element that scrolls on its own, a feed or a chat pane whose lazy
 * content an IntersectionObserver rooted at it, or its scroll event, loads): `maxSteps` panel heights at
 * most for each, within what is left of the same `budgetMs`, each put back where it was. A page that fits
 * its viewport and has no panels costs one evaluate and reports nothing.
 */
export async function scrollForLazyContent(
  page: Page,
  opts: { maxSteps: number; budgetMs: number; proxy?: GuardProxy; countImages: boolean },
): Promise<ScrollOutcome | undefined> {
  const started = Date.now();
  const bounds: ScrollBounds = { ...opts, deadline: started + opts.budgetMs };
  const size = await page.evaluate(lazyScrollSize).catch(() => undefined);
  if (!size) return undefined;
  const tall = size.height > size.view + 2;
  if (!tall && size.panels === 0) return undefined;
  const win = tall
    ? await scrollWindow(page, bounds, size.height)
    : { steps: 0, height: size.height, complete: true };
  const panels = size.panels > 0 ? await scrollPanels(page, bounds) : undefined;
  // The panels counted may be gone by the time they are looked for (the page took them away).
  if (!tall && !panels?.count) return undefined;
  return { ...win, ms: Date.now() - started, ...(panels?.count ? { panels } : {}) };
}

/**
 * Waits for what a scroll step set going, as the settle after a navigation does, STEP_SETTLE_MS at most.
 * False when the whole budget ran out first: what the step started may still be on its way, so the page
 * cannot be said to have stopped growing.
 */
async function settleStep(page: Page, b: ScrollBounds): Promise<boolean> {
  await nextFrame(page);
  const done = await settlePage(page, {
    deadline: Math.min(b.deadline, Date.now() + STEP_SETTLE_MS),
    proxy: b.proxy,
    countImages: b.countImages,
  });
  return done.reason === "quiet" || Date.now() < b.deadline;
}

async function scrollWindow(page: Page, b: ScrollBounds, height: number) {
  let steps = 0;
  let complete = false;
  try {
    while (steps < b.maxSteps && Date.now() < b.deadline) {
      const before = await page.evaluate(lazyScrollStep);
      steps++;
      const settled = await settleStep(page, b);
      const after = await page.evaluate(lazyScrollWhere);
      height = after.height;
      if (settled && after.bottom >= after.height - 2 && after.height <= before.height) {
        complete = true;
        break;
      }
    }
  } catch {
    // The page navigated or closed under the scroll: take it as it stands.
  } finally {
    await page.evaluate(lazyScrollTop).catch(() => {});
    await nextFrame(page);
  }
  return { steps, height, complete };
}

/** Each scrolling panel in turn, largest first, while the budget lasts. */
async function scrollPanels(page: Page, b: ScrollBounds): Promise<PanelsOutcome> {
  const out: PanelsOutcome = { count: 0, steps: 0, complete: true };
  const list = await page.evaluateHandle(lazyPanels).catch(() => undefined);
  if (!list) return { ...out, complete: false };
  const handles = [...(await list.getProperties().catch(() => new Map())).values()];
  try {
    const panels = handles.flatMap((h) => h.asElement() ?? []);
    out.count = panels.length;
    for (const panel of panels) {
      if (Date.now() >= b.deadline) {
        out.complete = false;
        break;
      }
      const one = await scrollPanel(page, panel, b);
      out.steps += one.steps;
      if (!one.complete) out.complete = false;
    }
  } finally {
    await Promise.all([list, ...handles].map((h) => h.dispose().catch(() => {})));
    await nextFrame(page);
  }
  return out;
}

/**
 * One panel down in steps of its own height until its end is reached and it stops growing, it cannot
 * move (a panel the page took away or locked), or `maxSteps` or the budget run out; then back to where it was.
 */
async function scrollPanel(page: Page, panel: ElementHandle, b: ScrollBounds) {
  let steps = 0;
  let complete = false;
  let start: number | undefined;
  try {
    while (steps < b.maxSteps && Date.now() < b.deadline) {
      const before = await panel.evaluate(lazyPanelScroll, "step" as const);
      start ??= before.top;
      steps++;
      const settled = await settleStep(page, b);
      const after = await panel.evaluate(lazyPanelScroll, "where" as const);
      const grew = after.height > before.height;
      if (!settled) break;
      if (after.bottom >= after.height - 2 && !grew) {
        complete = true;
        break;
      }
      if (after.top <= before.top && !grew) break;
    }
  } catch {
    // The page navigated, or took the panel away: take it as it stands.
  } finally {
    if (start !== undefined) await panel.evaluate(lazyPanelScroll, { restore: start }).catch(() => {});
  }
  return { steps, complete };
}
