/**
 * Text written twice for screen readers: a visible "GBP 0.00" followed by a visually hidden span
 * saying "GBP 0.00" again (eBay, many shop themes), which the page's CSS hides and markdown would
 * print as "GBP 0.00GBP 0.00". A span whose text repeats the text right before it is that copy.
 */
import { walkElements } from "./dom.ts";

/** Shorter repeats ("5", "Yes") may be two values that happen to be alike. */
const MIN_CHARS = 4;
const collapse = (s: string) => s.replace(/\s+/g, " ").trim();

/** The node before `el` in its parent, whitespace-only text skipped. */
function previousNode(el: Element): Node | undefined {
  let node = el.previousSibling;
  while (node && node.nodeType === 3 && collapse(node.textContent ?? "") === "") node = node.previousSibling;
  return node ?? undefined;
}

export function removeScreenReaderCopies(root: Element): void {
  const copies: Element[] = [];
  walkElements(root, (el) => {
    if (el.nodeName !== "SPAN") return true;
    const text = collapse(el.textContent ?? "");
    if (text.length < MIN_CHARS) return true;
    const before = previousNode(el);
    if (before && collapse(before.textContent ?? "") === text) {
      copies.push(el);
      return false;
    }
    return true;
  });
  for (const el of copies) el.remove();
}
