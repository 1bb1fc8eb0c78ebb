import type { Locator } from "playwright-core";
import { registerSelectorEngine } from "../page/selector-engine.ts";

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

const ENGINE_SOURCE = `(() => {
  const readyToType = ${readyToType.toString()};
  const answer = (root) => (root && root.nodeType === 1 && readyToType(root) ? [root] : []);
  return {
    query: (root) => answer(root)[0] || null,
    queryAll: (root) => answer(root),
  };
})()`;

const engineReady = registerSelectorEngine(ENGINE, ENGINE_SOURCE);

/**
 * Whether the target is a text field ready to be typed into, now selected and focused for it; false
 * (nothing changed) when it is not, is not found, or the check did not answer within `ms`.
 */
export async function selectForTyping(locator: Locator, ms: number): Promise<boolean> {
  if (!(await engineReady())) return false;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<number>((r) => {
    timer = setTimeout(() => r(0), ms);
  });
  const asked = locator.locator(`${ENGINE}=field`).count();
  asked.catch(() => {});
  try {
    return (await Promise.race([asked, late]).catch(() => 0)) === 1;
  } finally {
    clearTimeout(timer);
  }
}
