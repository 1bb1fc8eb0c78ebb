/** includeTags / excludeTags: CSS selectors that narrow the page before conversion. */

export class MarkdownOptionError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "MarkdownOptionError";
  }
}

function matchAll(root: Element, selector: string, option: string): Element[] {
  try {
    return Array.from(root.querySelectorAll(selector));
  } catch (err) {
    throw new MarkdownOptionError(
      "invalid_selector",
      `${option}: ${JSON.stringify(selector)} is not a valid CSS selector (${(err as Error).message ?? err})`,
    );
  }
}

/** Removes every element matching one of `selectors`. */
export function excludeElements(root: Element, selectors: readonly string[]): void {
  for (const selector of selectors) {
    for (const el of matchAll(root, selector, "excludeTags")) el.remove();
  }
}

/**
 * Keeps only the elements matching one of `selectors`, in document order, outermost only (a match
 * inside another match comes along with it). Nothing matching leaves an empty body.
 */
export function includeElements(body: Element, selectors: readonly string[]): void {
  const picked = new Set<Element>();
  for (const selector of selectors) for (const el of matchAll(body, selector, "includeTags")) picked.add(el);
  const kept: Element[] = [];
  // Document order, outermost first: walk the tree once rather than sort the matches.
  const stack: Element[] = [];
  for (let el = body.lastElementChild; el; el = el.previousElementSibling) stack.push(el);
  while (stack.length > 0) {
    const el = stack.pop() as Element;
    if (picked.has(el)) {
      kept.push(el);
      continue;
    }
    for (let child = el.lastElementChild; child; child = child.previousElementSibling) stack.push(child);
  }
  body.replaceChildren(...kept);
}
