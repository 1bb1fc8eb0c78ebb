import { walkElements } from "./dom.ts";

const UNSAFE_LINK_PROTOCOLS = new Set(["javascript:", "vbscript:", "data:"]);
// blob: URLs only exist inside the page that created them.
const UNUSABLE_IMAGE_PROTOCOLS = new Set(["javascript:", "vbscript:", "data:", "blob:"]);

function tryUrl(value: string, base: string | undefined): URL | undefined {
  try {
    return new URL(value, base);
  } catch {
    return undefined;
  }
}

/** The URL relative references resolve against: the document's <base href> if any, else the page URL. */
export function resolveBaseUrl(baseHref: string | undefined, pageUrl: string): string | undefined {
  const page = tryUrl(pageUrl, undefined)?.href;
  if (!baseHref) return page;
  return tryUrl(baseHref, page)?.href ?? page;
}

function unwrap(el: Element): void {
  el.replaceWith(...Array.from(el.childNodes));
}

/**
 * Rewrites every link href and image src to an absolute URL. Links that cannot
 * be followed (javascript:, unparsable) keep their text; such images are removed.
 */
export function absolutizeUrls(root: Element, base: string | undefined): void {
  const links: Element[] = [];
  const images: Element[] = [];
  walkElements(root, (el) => {
    if (el.nodeName === "A" && el.hasAttribute("href")) links.push(el);
    else if (el.nodeName === "IMG") images.push(el);
    return true;
  });
  for (const a of links) {
    // The URL parser strips tabs/newlines, so "java\nscript:" is caught too.
    const url = tryUrl(a.getAttribute("href")?.trim() ?? "", base);
    if (!url || UNSAFE_LINK_PROTOCOLS.has(url.protocol)) unwrap(a);
    else a.setAttribute("href", url.href);
  }
  for (const img of images) {
    const src = img.getAttribute("src")?.trim();
    const url = src ? tryUrl(src, base) : undefined;
    if (!url || UNUSABLE_IMAGE_PROTOCOLS.has(url.protocol)) img.remove();
    else img.setAttribute("src", url.href);
  }
}
