/*
 * Functions that run inside the page (page.evaluate). Each must be self-contained:
 * Playwright serializes the function source, so nothing from module scope is visible there, and
 * named inner functions must be avoided (esbuild's keepNames wraps them in a `__name` helper).
 */

export interface PageLink {
  url: string;
  text: string;
}

export interface ElementMatch {
  text: string;
  html: string;
  attributes: Record<string, string>;
  box: { x: number; y: number; width: number; height: number } | null;
}

export function describeElements(els: Element[], max: number): ElementMatch[] {
  return els.slice(0, max).map((el) => {
    const r = el.getBoundingClientRect();
    const attributes: Record<string, string> = {};
    for (const a of Array.from(el.attributes)) attributes[a.name] = a.value;
    const html = el.outerHTML;
    return {
      // innerText, not textContent: the text as rendered, without hidden parts.
      text: ((el as HTMLElement).innerText ?? el.textContent ?? "").trim(),
      html: html.length > 20_000 ? `${html.slice(0, 20_000)}…` : html,
      attributes,
      box: r.width || r.height ? { x: r.x, y: r.y, width: r.width, height: r.height } : null,
    };
  });
}

/** A CSS selector that finds this element again: an id when unique, else a short nth-of-type path. */
export function cssPathOf(el: Element): string {
  // No named inner functions here: the bundler would wrap them in a helper the page does not have.
  if (el.id && document.querySelectorAll(`#${CSS.escape(el.id)}`).length === 1)
    return `#${CSS.escape(el.id)}`;
  const parts: string[] = [];
  let node: Element | null = el;
  while (node && node.nodeType === 1 && node !== document.documentElement) {
    if (node.id && document.querySelectorAll(`#${CSS.escape(node.id)}`).length === 1) {
      parts.unshift(`#${CSS.escape(node.id)}`);
      break;
    }
    const tag = node.tagName.toLowerCase();
    const name = node.getAttribute("name");
    const parent: Element | null = node.parentElement;
    let part = tag;
    if (
      name &&
      parent &&
      parent.querySelectorAll(`:scope > ${tag}[name="${CSS.escape(name)}"]`).length === 1
    ) {
      part = `${tag}[name="${CSS.escape(name)}"]`;
    } else if (parent) {
      const same = Array.from(parent.children).filter((c) => c.tagName === node!.tagName);
      if (same.length > 1) part = `${tag}:nth-of-type(${same.indexOf(node) + 1})`;
    }
    parts.unshift(part);
    node = parent;
  }
  return parts.join(" > ");
}
