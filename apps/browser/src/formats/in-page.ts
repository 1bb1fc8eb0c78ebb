/*
 * Functions that run inside the page (page.evaluate). Each must be self-contained:
 * Playwright serializes the function source, so nothing from module scope is visible there, and
 * named inner functions must be avoided (esbuild's keepNames wraps them in a `__name` helper).
 */

/** The rendered DOM without what a person cannot see, with every link and image URL made absolute. */
export function visibleDocumentHtml(): string {
  const originals = Array.from(document.documentElement.querySelectorAll("*"));
  const clone = document.documentElement.cloneNode(true) as HTMLElement;
  const copies = Array.from(clone.querySelectorAll("*"));
  const drop: Element[] = [];
  originals.forEach((el, i) => {
    const copy = copies[i];
    if (!copy) return;
    if (el instanceof HTMLElement && !el.closest("head")) {
      const style = getComputedStyle(el);
      if (style.display === "none" || style.visibility === "hidden" || el.hidden) {
        drop.push(copy);
        return;
      }
    }
    if (el instanceof HTMLAnchorElement && el.getAttribute("href")) copy.setAttribute("href", el.href);
    if (el instanceof HTMLImageElement && el.getAttribute("src"))
      copy.setAttribute("src", el.currentSrc || el.src);
  });
  for (const el of drop) el.remove();
  return `<!DOCTYPE html>${clone.outerHTML}`;
}

export interface PageLink {
  url: string;
  text: string;
}

export function collectLinks(opts: { visibleOnly: boolean; excludeExternal: boolean }): PageLink[] {
  const seen = new Map<string, PageLink>();
  const host = location.hostname;
  for (const a of Array.from(
    document.querySelectorAll<HTMLAnchorElement | HTMLAreaElement>("a[href], area[href]"),
  )) {
    let url: URL;
    try {
      url = new URL(a.href, document.baseURI);
    } catch {
      continue;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") continue;
    if (opts.excludeExternal && url.hostname !== host) continue;
    if (
      opts.visibleOnly &&
      a instanceof HTMLElement &&
      !a.checkVisibility({ visibilityProperty: true } as never)
    )
      continue;
    url.hash = "";
    const key = url.href;
    const text = (a.textContent ?? "").replace(/\s+/g, " ").trim();
    const prior = seen.get(key);
    if (!prior) seen.set(key, { url: key, text });
    else if (!prior.text && text) prior.text = text;
  }
  return Array.from(seen.values());
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
