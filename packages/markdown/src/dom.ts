import { parseHTML } from "linkedom";

/**
 * linkedom keeps a document as one linked list in document order: each element's start, its attributes,
 * its contents, then its end marker. Walking that list is what the sibling getters do underneath, without
 * skipping attribute nodes and text on every step. The two links are symbols it does not export.
 */
const LINKS = (() => {
  const probe = parseHTML("<!doctype html><html><body><p></p></body></html>").document.body;
  const symbols = Object.getOwnPropertySymbols(probe);
  const next = symbols.find((s) => s.description === "next");
  const end = symbols.find((s) => s.description === "end");
  const marker = end && (probe as unknown as Record<symbol, object>)[end];
  const start = marker && Object.getOwnPropertySymbols(marker).find((s) => s.description === "start");
  return next && end && start ? { next, end, start } : undefined;
})();

interface Linked extends Element {
  [link: symbol]: Linked;
}

/**
 * Depth-first walk over the elements under `root` (not `root` itself), in document order.
 * Returning false from `visit` skips that element's descendants. Much cheaper than linkedom's
 * querySelectorAll on large pages; collect first and mutate after the walk, since it follows live links.
 */
export function walkElements(root: Element, visit: (el: Element) => boolean | undefined): void {
  const end = LINKS && (root as Linked)[LINKS.end];
  if (!LINKS || !end) {
    walkBySiblings(root, visit);
    return;
  }
  const { next: NEXT, end: END } = LINKS;
  let node: Linked | undefined = (root as Linked)[NEXT];
  while (node && node !== end) {
    if (node.nodeType === 1 && visit(node) === false) node = node[END] as Linked;
    node = node[NEXT];
  }
}

export interface TreeVisitor {
  /** An element's start, before anything under it. */
  open(el: Element): void;
  /** An element's end, after everything under it. */
  close(el: Element): void;
  text(node: Text): void;
}

/**
 * Everything under `root` in document order: elements as they open and close, and text nodes. One pass
 * along linkedom's list, allocating nothing: the cheap way to keep a stack of open elements.
 */
export function walkTree(root: Element, on: TreeVisitor): void {
  const end = LINKS && (root as Linked)[LINKS.end];
  if (!LINKS || !end) {
    walkTreeBySiblings(root, on);
    return;
  }
  const { next: NEXT, start: START } = LINKS;
  for (let node = (root as Linked)[NEXT]; node && node !== end; node = node[NEXT]) {
    const type = node.nodeType;
    if (type === 1) on.open(node);
    else if (type === 3) on.text(node as unknown as Text);
    else if (node[START]) on.close(node[START]);
  }
}

function walkTreeBySiblings(root: Element, on: TreeVisitor): void {
  let node: Node | null = root.firstChild;
  while (node) {
    if (node.nodeType === 1) {
      on.open(node as Element);
      if (node.firstChild) {
        node = node.firstChild;
        continue;
      }
      on.close(node as Element);
    } else if (node.nodeType === 3) on.text(node as Text);
    while (!node.nextSibling) {
      node = node.parentNode;
      if (!node || node === root) return;
      on.close(node as Element);
    }
    node = node.nextSibling;
  }
}

function walkBySiblings(root: Element, visit: (el: Element) => boolean | undefined): void {
  let el = root.firstElementChild;
  while (el) {
    let next = visit(el) === false ? null : el.firstElementChild;
    for (let cur: Element | null = el; !next && cur && cur !== root; cur = cur.parentElement) {
      next = cur.nextElementSibling;
    }
    el = next;
  }
}

/**
 * The length of `el.textContent`, counted no further than `cap + 1`: enough to tell "at most cap" from
 * "more", without building the text of a large element (asked of every element, that text is the
 * page's once per ancestor).
 */
export function textLengthUpTo(el: Element, cap: number): number {
  const end = LINKS && (el as Linked)[LINKS.end];
  if (!LINKS || !end) return Math.min(el.textContent?.length ?? 0, cap + 1);
  let n = 0;
  for (let node = (el as Linked)[LINKS.next]; node && node !== end; node = node[LINKS.next]) {
    const type = node.nodeType;
    if (type === 3 || type === 4) {
      n += (node as unknown as CharacterData).data.length;
      if (n > cap) return cap + 1;
    }
  }
  return n;
}

const NOT_SPACE = /\S/;

/**
 * How many child elements `el` has, counted no further than `cap`. linkedom's childElementCount builds
 * the list of children to count it; this steps over each child's subtree along the document-order list.
 */
export function childElementsUpTo(el: Element, cap: number): number {
  const end = LINKS && (el as Linked)[LINKS.end];
  if (!LINKS || !end) return Math.min(el.childElementCount, cap);
  const { next: NEXT, end: END } = LINKS;
  let n = 0;
  for (let node = (el as Linked)[NEXT]; node && node !== end && n < cap; node = node[NEXT]) {
    if (node.nodeType !== 1) continue;
    n++;
    node = node[END] as Linked;
  }
  return n;
}

/** Whether `el` holds text other than whitespace (`textContent.trim() !== ""`), read up to its first such character. */
export function hasText(el: Element): boolean {
  const end = LINKS && (el as Linked)[LINKS.end];
  if (!LINKS || !end) return NOT_SPACE.test(el.textContent ?? "");
  for (let node = (el as Linked)[LINKS.next]; node && node !== end; node = node[LINKS.next]) {
    const type = node.nodeType;
    if ((type === 3 || type === 4) && NOT_SPACE.test((node as unknown as CharacterData).data)) return true;
  }
  return false;
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

const isLink = (el: Element) => el.nodeName === "A" && el.hasAttribute("href");
const TITLE_TAGS = new Set(["H2", "H3", "H4"]);

/**
 * The links under `root` (what querySelectorAll("a[href]") finds, a template's insides left out).
 * Passes that ask this of every candidate item would otherwise compile the selector on every call.
 */
export function linksUnder(root: Element): Element[] {
  const links: Element[] = [];
  walkElements(root, (el) => {
    if (el.nodeName === "TEMPLATE") return false;
    if (isLink(el)) links.push(el);
    return true;
  });
  return links;
}

/** Whether `root` holds a link (querySelector("a[href]") !== null). */
export function hasLinkUnder(root: Element): boolean {
  const stack: Element[] = [];
  for (let c = root.firstElementChild; c; c = c.nextElementSibling) stack.push(c);
  while (stack.length) {
    const el = stack.pop() as Element;
    if (isLink(el)) return true;
    if (el.nodeName !== "TEMPLATE")
      for (let c = el.firstElementChild; c; c = c.nextElementSibling) stack.push(c);
  }
  return false;
}

/**
 * How many elements under `root` are a linked title: an h2-h4 inside a link, or a link inside an h2-h4,
 * ancestors above `root` counted (querySelectorAll("h2 a[href], ..., a[href] h4").length).
 */
export function linkedTitlesUnder(root: Element): number {
  let inTitle = false;
  let inLink = false;
  for (let up: Element | null = root; up; up = up.parentElement) {
    if (TITLE_TAGS.has(up.nodeName)) inTitle = true;
    if (isLink(up)) inLink = true;
  }
  let count = 0;
  const visit = (parent: Element, title: boolean, link: boolean): void => {
    for (let c = parent.firstElementChild; c; c = c.nextElementSibling) {
      if (c.nodeName === "TEMPLATE") continue;
      const isTitle = TITLE_TAGS.has(c.nodeName);
      const linked = isLink(c);
      if ((linked && title) || (isTitle && link)) count++;
      visit(c, title || isTitle, link || linked);
    }
  };
  visit(root, inTitle, inLink);
  return count;
}
