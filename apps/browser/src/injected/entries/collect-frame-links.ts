/** One link of the links format: its absolute URL and its text. */
export interface PageLink {
  url: string;
  text: string;
}

export interface LinkArgs {
  visibleOnly: boolean;
  excludeExternal: boolean;
  /** The top page's hostname for excludeExternal; null in the top frame (its own hostname). */
  host: string | null;
  /** Iframe elements of this frame whose visibility the caller wants to know, in this order. */
  frames: (Element | null)[];
  maxShadowRoots: number;
}

export interface LinkResult {
  links: PageLink[];
  host: string;
  /** Per LinkArgs.frames: whether a person could see that iframe. */
  framesVisible: boolean[];
  shadowRoots: number;
  shadowTruncated: boolean;
}

/**
 * Run in one frame (frame.evaluate): the links format's links of the document and every open shadow root
 * in it: absolute http(s) URLs without fragment, de-duplicated, the first non-empty text kept.
 */
export default function collectFrameLinks(args: LinkArgs): LinkResult {
  const host = args.host ?? location.hostname;
  const seen = new Map<string, PageLink>();
  const roots: (Document | ShadowRoot)[] = [document];
  let shadowTruncated = false;
  for (let r = 0; r < roots.length; r++) {
    const root = roots[r]!;
    for (const a of Array.from(root.querySelectorAll<Element>("a[href], area[href]"))) {
      const raw = (a as HTMLAnchorElement).href;
      let url: URL;
      try {
        url = new URL(typeof raw === "string" ? raw : (a.getAttribute("href") ?? ""), document.baseURI);
      } catch {
        continue;
      }
      if (url.protocol !== "http:" && url.protocol !== "https:") continue;
      if (args.excludeExternal && url.hostname !== host) continue;
      if (
        args.visibleOnly &&
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
    const all = root.querySelectorAll("*");
    for (let i = 0; i < all.length; i++) {
      const shadow = all[i]!.shadowRoot;
      if (!shadow) continue;
      if (roots.length > args.maxShadowRoots) {
        shadowTruncated = true;
        break;
      }
      roots.push(shadow);
    }
  }
  const framesVisible = args.frames.map((f) => {
    if (!f?.isConnected) return false;
    const r = f.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && f.checkVisibility({ visibilityProperty: true } as never);
  });
  return {
    links: Array.from(seen.values()),
    host,
    framesVisible,
    shadowRoots: roots.length - 1,
    shadowTruncated,
  };
}
