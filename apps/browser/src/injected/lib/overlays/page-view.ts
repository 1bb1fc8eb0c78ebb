/*
 * The viewport as the overlay pass sees it: what is shown in it and which layer an element paints on.
 * Computed styles are read once per element per pass.
 */

export interface PageView {
  doc: Document;
  root: HTMLElement;
  body: HTMLElement;
  /** Viewport width and height, in CSS pixels. */
  vw: number;
  vh: number;
  style(el: Element): CSSStyleDeclaration;
  /** Rendered, visible, at least 2×2 and at least partly inside the viewport. */
  shown(el: Element): boolean;
  /** `shown`, or a shadow host with something shown in its shadow tree. */
  shownDeep(el: Element): boolean;
  /** "fixed", "sticky", "dialog" (an open dialog), "z" (absolute with z-index ≥ 1000) or "" (in the flow). */
  layerOf(el: Element): string;
}

/** The view of this document, or undefined when it has no html/body or no viewport. */
export function pageView(): PageView | undefined {
  const doc = document;
  const root = doc.documentElement;
  const body = doc.body;
  if (!root || !body) return undefined;
  const vw = window.innerWidth;
  const vh = window.innerHeight;
  if (vw < 1 || vh < 1) return undefined;

  const styles = new Map<Element, CSSStyleDeclaration>();
  const style = (el: Element): CSSStyleDeclaration => {
    let s = styles.get(el);
    if (!s) {
      s = getComputedStyle(el);
      styles.set(el, s);
    }
    return s;
  };
  const shown = (el: Element): boolean => {
    if (!el.isConnected || !el.checkVisibility({ visibilityProperty: true })) return false;
    const r = el.getBoundingClientRect();
    return r.width >= 2 && r.height >= 2 && r.right > 0 && r.bottom > 0 && r.left < vw && r.top < vh;
  };
  // A shadow host often has no box of its own (its banner is fixed inside): look at its shadow tree.
  const shownDeep = (el: Element): boolean => {
    if (shown(el)) return true;
    const sr = el.shadowRoot;
    if (!sr) return false;
    return Array.from(sr.querySelectorAll("*"))
      .slice(0, 300)
      .some((x) => shown(x));
  };
  const layerOf = (el: Element): string => {
    const s = style(el);
    if (s.position === "fixed" || s.position === "sticky") return s.position;
    if (el.tagName === "DIALOG" && (el as HTMLDialogElement).open) return "dialog";
    if (s.position === "absolute" && Number.parseInt(s.zIndex, 10) >= 1000) return "z";
    return "";
  };
  return { doc, root, body, vw, vh, style, shown, shownDeep, layerOf };
}
