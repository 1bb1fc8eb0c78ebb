import type { Page } from "playwright-core";
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
 * to the top. A page that fits its viewport costs one evaluate and reports nothing.
 */
export async function scrollForLazyContent(
  page: Page,
  opts: { maxSteps: number; budgetMs: number; proxy?: GuardProxy; countImages: boolean },
): Promise<ScrollOutcome | undefined> {
  const started = Date.now();
  const deadline = started + opts.budgetMs;
  const size = await page.evaluate(lazyScrollSize).catch(() => undefined);
  if (!size || size.height <= size.view + 2) return undefined;
  let steps = 0;
  let complete = false;
  let height = size.height;
  try {
    while (steps < opts.maxSteps && Date.now() < deadline) {
      const before = await page.evaluate(lazyScrollStep);
      steps++;
      await nextFrame(page);
      await settlePage(page, {
        deadline: Math.min(deadline, Date.now() + STEP_SETTLE_MS),
        proxy: opts.proxy,
        countImages: opts.countImages,
      });
      const after = await page.evaluate(lazyScrollWhere);
      height = after.height;
      if (after.bottom >= after.height - 2 && after.height <= before.height) {
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
  return { steps, height, complete, ms: Date.now() - started };
}
