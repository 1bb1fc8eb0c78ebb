import type { Locator } from "playwright-core";
import { registerSelectorEngine } from "../page/selector-engine.ts";
import type { Seen } from "../page/settle.ts";
import { SETTLE_GLOBAL } from "../page/settle-script.ts";

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
 * script can see the text going in (page/settle-script.ts, the typing hooks): read in the page's world
 * once the field is focused, the page has queued nothing since that read, sets nothing going at its next
 * rendering step, and has no listener, handler, shadow root or frame that typing could reach. Then the
 * text runs no page script and queues nothing: the wait for the page's handlers after it (see
 * session/settle.ts) would find nothing to wait for, and is not asked.
 */
const ENGINE = "bf-type-ready";

/** In the page: checks the element and, when it is ready, selects its text and focuses it. */
function readyToType(el: Element): boolean {
  const name = el.nodeName.toLowerCase();
  const input = name === "input" ? (el as HTMLInputElement) : undefined;
  const area = name === "textarea" ? (el as HTMLTextAreaElement) : undefined;
  if (!input && !area) return false;
  if (input && !["", "text", "search", "email", "password", "tel", "url"].includes(input.type.toLowerCase()))
    return false;
  const field = (input ?? area) as HTMLInputElement | HTMLTextAreaElement;
  if (!field.isConnected || field.disabled || field.readOnly || field.matches(":disabled")) return false;
  for (let node: Element | null = field; node; ) {
    if (
      node.hasAttribute("inert") ||
      node.hasAttribute("aria-disabled") ||
      node.hasAttribute("aria-readonly")
    )
      return false;
    const root: ParentNode | null = node.parentNode;
    node = node.parentElement ?? (root && "host" in root ? (root as ShadowRoot).host : null);
  }
  const style = getComputedStyle(field);
  if (style.visibility !== "visible" || style.display === "contents") return false;
  if (typeof field.checkVisibility === "function" && !field.checkVisibility()) return false;
  const box = field.getBoundingClientRect();
  if (!(box.width > 0 && box.height > 0)) return false;
  // As Playwright's fill selects the text it replaces.
  if (input) {
    input.select();
    input.focus();
  } else if (area) {
    area.selectionStart = 0;
    area.selectionEnd = area.value.length;
    area.focus();
  }
  return true;
}

/** In the page: whether, by its bookkeeping, page script cannot see typing and nothing is queued since `seen`. */
function typingUnseen(key: string, seenText: string): boolean {
  const [origin, asked] = seenText.split(":").map(Number);
  if (window !== window.top || !Number.isFinite(origin) || !Number.isFinite(asked)) return false;
  const out = document.createElement("div");
  window.dispatchEvent(new MouseEvent(`${key}:typing`, { relatedTarget: out }));
  const text = out.getAttribute("data-state");
  if (!text) return false;
  const s = JSON.parse(text) as {
    origin: number;
    asked: number;
    pendingFrames: number;
    frameHooks: number;
    typingHooks: number;
  };
  return (
    s.origin === origin &&
    s.asked === asked &&
    s.pendingFrames === 0 &&
    s.frameHooks === 0 &&
    s.typingHooks === 0
  );
}

// Answers the field when it is ready, and with it a second (detached) element when typing is unseen.
const ENGINE_SOURCE = `(() => {
  const readyToType = ${readyToType.toString()};
  const typingUnseen = ${typingUnseen.toString()};
  const answer = (root, body) => {
    if (!root || root.nodeType !== 1 || !readyToType(root)) return [];
    const seen = String(body).split(":").slice(1).join(":");
    let unseen = false;
    try { unseen = seen !== "" && typingUnseen(${JSON.stringify(SETTLE_GLOBAL)}, seen); } catch (e) {}
    return unseen ? [root, document.createElement("div")] : [root];
  };
  return {
    query: (root, body) => answer(root, body)[0] || null,
    queryAll: (root, body) => answer(root, body),
  };
})()`;

const engineReady = registerSelectorEngine(ENGINE, ENGINE_SOURCE);

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
