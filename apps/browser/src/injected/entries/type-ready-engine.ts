import type { TypingState } from "../lib/settle/api.ts";
import { askPage, TYPING_EVENT } from "../lib/settle/bridge.ts";

/*
 * A Playwright selector engine (registered with contentScript: true, so it runs in Playwright's utility
 * world, like Playwright's own checks), chained behind the target's selector by session/type-ready.ts.
 * It answers the field when it is ready to be typed into (now selected and focused for it), and with it
 * a second (detached) element when, besides, typing is unseen by page script. The body is `field`, or
 * `field:<origin>:<asked>`, what the last read of the page found (`Seen`).
 */

/** Checks the element and, when it is ready, selects its text and focuses it. */
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

/**
 * Whether, by the page's settle bookkeeping (its typing hooks, read through the bridge from this world),
 * page script cannot see typing and nothing is queued since `seenText` (`<origin>:<asked>`).
 */
function typingUnseen(seenText: string): boolean {
  const [origin, asked] = seenText.split(":").map(Number);
  if (window !== window.top || !Number.isFinite(origin) || !Number.isFinite(asked)) return false;
  const text = askPage(TYPING_EVENT);
  if (!text) return false;
  const s = JSON.parse(text) as TypingState;
  return (
    s.origin === origin &&
    s.asked === asked &&
    s.pendingFrames === 0 &&
    s.frameHooks === 0 &&
    s.typingHooks === 0
  );
}

/** The field when it is ready, and with it a second (detached) element when typing is unseen. */
function answer(root: Node, body: string): Element[] {
  if (root?.nodeType !== 1 || !readyToType(root as Element)) return [];
  const seen = String(body).split(":").slice(1).join(":");
  let unseen = false;
  try {
    unseen = seen !== "" && typingUnseen(seen);
  } catch {}
  return unseen ? [root as Element, document.createElement("div")] : [root as Element];
}

/** Playwright calls this once per frame and keeps the engine it returns. */
export default function typeReadyEngine() {
  return {
    query: (root: Node, body: string): Element | null => answer(root, body)[0] || null,
    queryAll: (root: Node, body: string): Element[] => answer(root, body),
  };
}
