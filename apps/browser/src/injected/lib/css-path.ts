/** A CSS selector that finds this element again: an id when unique, else a short nth-of-type path. */
export function cssPathOf(el: Element): string {
  const unique = (id: string) => document.querySelectorAll(`#${CSS.escape(id)}`).length === 1;
  if (el.id && unique(el.id)) return `#${CSS.escape(el.id)}`;
  const parts: string[] = [];
  let node: Element | null = el;
  while (node && node.nodeType === 1 && node !== document.documentElement) {
    if (node.id && unique(node.id)) {
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
