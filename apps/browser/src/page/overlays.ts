import type { Frame, Page } from "playwright-core";
import type { PassArgs, PassFrame, PassResult } from "../injected/entries/overlay-pass.ts";
import clickElement from "../injected/generated/click-element.ts";
import overlayPass from "../injected/generated/overlay-pass.ts";
import removeOverlayGuard from "../injected/generated/remove-overlay-guard.ts";
import { TARGET_MARK } from "../injected/lib/overlays/overlay-marks.ts";

/*
 * Cookie-consent banners and modal overlays, cleared before a screenshot or a controls snapshot:
 * first a consent dialog's own reject (else accept, else close) button is clicked, then whatever
 * still covers the page is hidden with `display: none !important` and a page-locked scroll is restored.
 *
 * This is the driver; each pass runs in the page (injected/entries/overlay-pass.ts, with the phrases
 * and consent platforms it knows in injected/lib/consent-rules.ts and consent-platforms.ts).
 *
 * Marks left in the page (all carry the call's token as value; injected/lib/overlay-marks.ts):
 *   data-bf-overlay-hidden    an element this module hid
 *   data-bf-overlay-unlocked  html/body whose scroll lock was undone, or content made non-inert again
 *   data-bf-overlay-done      a consent container already clicked in (never clicked twice; hidden if it stays)
 *   data-bf-overlay-target    the button about to be clicked (removed by the next pass)
 *
 * Why not DuckDuckGo's autoconsent (tried with 16.23.0): bundled with its compact rules as an injected
 * entry, run in the page's main world (its eval rules call the CMP's API directly) with opt-out, cosmetic
 * rules off, one detection try, and only after this pass saw a consent dialog, bounded by the same budget.
 * On the fixtures of real CMPs (test/fixture-site/consent-platforms.ts: OneTrust, Cookiebot and Didomi with
 * their window APIs, Borlabs) and the known-markup ones in test/overlays.test.ts, 2 CPUs, default budget:
 *   - no decline it made that this pass does not make: every fixture was declined either way;
 *   - slower where it acts: OneTrust 776 ms against 355 ms (its rule waits 500 ms before clicking);
 *     Cookiebot, which it answers through window.Cookiebot.withdraw() and 1.5 s of waits, ran past the
 *     budget: declined but not reported (dismissed []), where this pass clicks Deny in 161 ms;
 *   - worse outcomes: OneTrust without a reject button: it opens the settings to untick purposes (over
 *     2 s), so the banner was left half-done and hidden, not answered; CookieYes without its data-cky-tag
 *     attributes: its opt-out is a CSS hide it reports as a success (a "dismissal" that clicked nothing);
 *     Usercentrics in a shadow root: its script found, its popup not, it held its share of the budget
 *     (4.3 s of 5) before this pass clicked Deny. overlays.test.ts: 66 of 71 with it, 71 of 71 without;
 *   - cost: 347 KB of page code (everything else in injected/generated is 55 KB); one evaluate of it is
 *     30 ms on a page that has run it before and 166 ms as a new page's first call (compiling), so it
 *     could only run behind this pass's gate (a page without a banner stayed at one evaluate, ~10 ms);
 *   - MPL-2.0, and each rules update a regenerated bundle to review.
 * What it did better: it names more platforms (Borlabs was "generic-consent" here, now a known CMP) and,
 * given seconds, can decline behind a settings screen, which a 1.5 s budget before a capture does not give.
 */

export interface ClearOverlaysOptions {
  /** The whole call's bound, clicks and waits included. */
  timeoutMs?: number;
}

export interface ClearOverlaysResult {
  /** Consent dialogs whose button was clicked: "onetrust", "usercentrics", "generic-consent", "sourcepoint", … */
  dismissed: string[];
  /** Elements set to display:none (banners that stayed, backdrops, modals, consent iframes). */
  hidden: number;
}

export const DEFAULT_OVERLAY_TIMEOUT_MS = 1_500;
const MAX_CLICKS = 3;
/** A click may take this long (Playwright's actionability checks included); then a DOM click. */
const CLICK_MS = 500;
/** After a click, how long to wait for its banner to go. */
const SETTLE_MS = 300;
/** Kept back from clicking for the final pass that hides. */
const RESERVE_MS = 150;
/** Past the bound, how long what a late pass or click did may still be read (only when the bound was hit). */
const LATE_MS = 1_000;

/** Resolves to undefined when `ms` pass first or the promise rejects; never rejects. */
async function bounded<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p.catch(() => undefined),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), Math.max(0, ms));
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function frameLabel(f: PassFrame): string {
  let where = f.name;
  try {
    const u = new URL(f.src);
    where += ` ${u.hostname}${u.pathname}`;
  } catch {
    // no usable src
  }
  if (/sp_message|privacy-mgmt|sourcepoint/i.test(where)) return "sourcepoint";
  if (/truste|trustarc/i.test(where)) return "trustarc";
  return "consent-frame";
}

/**
 * Clear consent dialogs and modal overlays before a capture: click a consent dialog's reject
 * (else accept, else close) button, then hide what still covers the page and restore its scrolling.
 * Bounded by `timeoutMs`; never throws. A page without overlays costs one evaluate.
 */
export async function clearOverlays(
  page: Page,
  opts: ClearOverlaysOptions = {},
): Promise<ClearOverlaysResult> {
  const deadline = performance.now() + (opts.timeoutMs ?? DEFAULT_OVERLAY_TIMEOUT_MS);
  const left = () => deadline - performance.now();
  const result: ClearOverlaysResult = { dismissed: [], hidden: 0 };
  const token = Math.random().toString(36).slice(2, 10);
  // A pass or a click the bound gave up on may still act in the page (a loaded machine): what it did is
  // read once more at the end, within LATE_MS, so metadata does not leave out a banner that went.
  let latePass: Promise<PassResult | undefined> | undefined;
  let lateClick: { frame: Frame; name: string } | undefined;
  const pass = async (
    frame: Frame,
    args: Omit<PassArgs, "token" | "deadline">,
  ): Promise<PassResult | undefined> => {
    // Before the pass that would take its mark off the button.
    await readLateClick();
    const running = frame.evaluate(overlayPass, { ...args, token, deadline: Date.now() + left() });
    const r = await bounded(running, left());
    if (r === undefined) latePass = running.catch(() => undefined);
    return r;
  };
  const readLateClick = async (): Promise<void> => {
    const late = lateClick;
    lateClick = undefined;
    if (!late || late.frame.isDetached()) return;
    const still = await bounded(late.frame.locator(`[${TARGET_MARK}="${token}"]`).count(), LATE_MS);
    if (still === 0) result.dismissed.push(late.name);
  };
  const click = async (frame: Frame, name: string): Promise<boolean> => {
    const target = frame.locator(`[${TARGET_MARK}="${token}"]`);
    try {
      let clicked = false;
      const ms = Math.min(CLICK_MS, left() - RESERVE_MS);
      if (ms > 50)
        clicked = await target.click({ timeout: ms }).then(
          () => true,
          () => false,
        );
      // A click that landed though its wait ran out (a loaded machine): the button is gone with its banner.
      // One still there is covered by another overlay, or never stable: its own click handler, directly.
      const present =
        clicked || left() < RESERVE_MS + 50 ? undefined : await bounded(target.count(), left() - RESERVE_MS);
      if (present === 0) clicked = true;
      if (!clicked && present === undefined) lateClick = { frame, name };
      const direct = Math.min(CLICK_MS, left() - RESERVE_MS);
      if (!clicked && present !== undefined && direct > 50)
        clicked =
          (await bounded(target.evaluate(clickElement, undefined, { timeout: direct }), direct)) === true;
      const wait = Math.min(SETTLE_MS, left() - RESERVE_MS);
      if (clicked && wait > 10) await target.waitFor({ state: "hidden", timeout: wait }).catch(() => {});
      return clicked;
    } catch {
      return false;
    } finally {
      // Sent now, so it runs before anything the caller does next; the next pass would do it too.
      frame.evaluate(removeOverlayGuard).catch(() => {});
    }
  };

  try {
    const main = page.mainFrame();
    let clicks = 0;
    let acted = false;
    let framesDone = false;
    for (let round = 0; round < 2 * MAX_CLICKS + 2 && left() > 0; round++) {
      const allowClick = clicks < MAX_CLICKS && left() > CLICK_MS / 2 + RESERVE_MS;
      const r = await pass(main, { mode: "main", allowClick, framesDone, acted });
      if (!r) break;
      result.hidden += r.hidden;
      if (r.target) {
        clicks++;
        if (await click(main, r.target.name)) {
          result.dismissed.push(r.target.name);
          acted = true;
        }
        continue;
      }
      if (r.frames && !framesDone) {
        framesDone = true;
        for (const ref of r.frames) {
          if (clicks >= MAX_CLICKS || left() < CLICK_MS / 2 + RESERVE_MS) break;
          const frame = main
            .childFrames()
            .find((f) => !f.isDetached() && ((ref.name && f.name() === ref.name) || f.url() === ref.src));
          if (!frame) continue;
          const fr = await pass(frame, { mode: "frame", allowClick: true, framesDone: true, acted });
          if (!fr?.target) continue;
          clicks++;
          if (await click(frame, frameLabel(ref))) {
            result.dismissed.push(frameLabel(ref));
            acted = true;
          }
        }
        continue;
      }
      break;
    }
  } catch {
    // A page that closed or navigated: report what was done.
  }
  await readLateClick();
  if (latePass) {
    const r = await bounded(latePass, LATE_MS);
    if (r) result.hidden += r.hidden;
  }
  return result;
}
