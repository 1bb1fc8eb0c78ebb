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
