import type { Locator } from "playwright-core";
import typeReadyEngine from "../injected/generated/type-ready-engine.ts";
import { registerSelectorEngine } from "../page/selector-engine.ts";
import type { Seen } from "../page/settle.ts";

/**
 * Typing into a plain text field in one call into the page instead of Playwright's four.
 *
 * Playwright's `fill` resolves the element, waits for its frame, takes a handle to it, checks that it is
 * visible, enabled and editable and selects its text, each a round trip into the page, then inserts the
 * text (Input.insertText). Here the element is resolved by Playwright's own selector (an `aria-ref=` or
 * the caller's CSS selector), and a selector engine chained behind it (run in Playwright's utility world,
 * like Playwright's own checks) checks the element and selects its text as Playwright's `fill` does, in
 * the one `count()` call, which answers at once and never waits. The text then goes in the same way.
 *
 * Only a field plainly ready for it is done so: an `<input>` that takes typed text (not a number, date,
 * colour...) or a `<textarea>`, connected, visible, not disabled, not read-only, with no `aria-disabled`,
 * `aria-readonly` or `inert` on it or above it (across shadow roots). Anything else (a label, a
 * contenteditable, a field that is not ready yet, an element not found, a frame's ref) answers "not
 * ready", having changed nothing, and the action goes through Playwright's `fill`, which waits for it and
 * says what is wrong, as before.
 *
 * Given what the last read of the page found (`seen`), the same call also tells whether the page's own
 * script can see the text going in (injected/entries/settle-init.ts, the typing hooks): read in the
 * page's world once the field is focused, the page has queued nothing since that read, sets nothing going
 * at its next rendering step, and has no listener, handler, shadow root or frame that typing could reach.
 * Then the text runs no page script and queues nothing: the wait for the page's handlers after it (see
 * session/settle.ts) would find nothing to wait for, and is not asked.
 */
const ENGINE = "bf-type-ready";

/** The engine itself, its query syntax and answer: injected/entries/type-ready-engine.ts. */
const engineReady = registerSelectorEngine(ENGINE, typeReadyEngine);

/**
 * Whether the target is a text field ready to be typed into, now selected and focused for it: "no"
 * (nothing changed) when it is not, is not found, or the check did not answer within `ms`; "unseen"
 * when, besides, page script cannot see the typing and the page queued nothing since `seen` (see above);
 * else "ready".
 */
export async function selectForTyping(
  locator: Locator,
  ms: number,
  seen?: Seen,
): Promise<"no" | "ready" | "unseen"> {
  if (!(await engineReady())) return "no";
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<number>((r) => {
    timer = setTimeout(() => r(0), ms);
  });
  const body = seen ? `field:${seen.origin}:${seen.asked}` : "field";
  const asked = locator.locator(`${ENGINE}=${body}`).count();
  asked.catch(() => {});
  try {
    const n = await Promise.race([asked, late]).catch(() => 0);
    return n === 2 ? "unseen" : n === 1 ? "ready" : "no";
  } finally {
    clearTimeout(timer);
  }
}
