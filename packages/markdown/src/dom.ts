/**
 * Depth-first walk over the elements under `root` (not `root` itself).
 * Returning false from `visit` skips that element's descendants. Much cheaper
 * than linkedom's querySelectorAll on large pages; collect first and mutate
 * after the walk, since it follows live sibling links.
 */
export function walkElements(root: Element, visit: (el: Element) => boolean | undefined): void {
  let el = root.firstElementChild;
  while (el) {
    let next = visit(el) === false ? null : el.firstElementChild;
    for (let cur: Element | null = el; !next && cur && cur !== root; cur = cur.parentElement) {
      next = cur.nextElementSibling;
    }
    el = next;
  }
}

/** Characters of an element's text, whitespace left out. */
export const textChars = (el: Element): number => (el.textContent ?? "").replace(/\s+/g, "").length;

const URL_TEXT = /\b(?:https?:\/\/|www\.)\S+/g;
/** Characters of text a person reads: addresses printed as text (a shop's raw field values) do not count. */
export const readableChars = (el: Element): number =>
  (el.textContent ?? "").replace(URL_TEXT, "").replace(/\s+/g, "").length;

/** The nearest element above `from` that contains `el` as well, if any. */
export function sharedAncestor(from: Element, el: Element): Element | undefined {
  let shared = from.parentElement;
  while (shared && !shared.contains(el)) shared = shared.parentElement;
  return shared ?? undefined;
}

/**
 * An element's class attribute, "" when it has none. linkedom's getAttribute("class") joins its class
 * list into a new string on every call; the attribute node holds the same value.
 */
export const classOf = (el: Element): string => el.getAttributeNode("class")?.value ?? "";
