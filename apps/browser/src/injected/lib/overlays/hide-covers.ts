/*
 * Hiding what covers the page: `display: none !important` and a mark, never on the page's own layout,
 * and only over page content (a cover over nothing is the page).
 */
import { within } from "./flat-tree.ts";
import { HIDDEN_MARK } from "./overlay-marks.ts";
import type { PageView } from "./page-view.ts";

/** Modal dialogs, found by role or element. */
export const DIALOGS = "dialog, [role=dialog], [role=alertdialog], [aria-modal='true']";
/** Words in an id, class or aria-label that name a modal. */
export const DIALOG_WORDS =
  /modal|popup|pop-up|dialog|newsletter|overlay|lightbox|interstitial|paywall|subscribe/i;

export interface Hider {
  /** Hides `el` and marks it with the token; a modal dialog is closed too. */
  hide(el: Element): void;
  /** `el` is inside (or is) an element hidden in this pass. */
  isHidden(el: Element): boolean;
}

export function hider(token: string): Hider {
  const hiddenEls: Element[] = [];
  return {
    hide(el) {
      el.setAttribute(HIDDEN_MARK, token);
      (el as HTMLElement).style.setProperty("display", "none", "important");
      // A modal dialog keeps the rest of the page inert until it is closed, hidden or not.
      if (el.tagName === "DIALOG" && el.matches(":modal")) (el as HTMLDialogElement).close();
      hiddenEls.push(el);
    },
    isHidden: (el) => hiddenEls.some((h) => within(h, el)),
  };
}

// The page's own layout (an SPA root that is fixed and full-size) is never an overlay.
export function appShellTest(body: HTMLElement): (el: Element) => boolean {
  let bodyCount = -1;
  let bodyText = -1;
  return (el) => {
    if (el.querySelector("main, [role=main]")) return true;
    if (bodyCount < 0) {
      bodyCount = body.getElementsByTagName("*").length;
      bodyText = (body.textContent ?? "").length;
    }
    return (
      el.getElementsByTagName("*").length >= 0.5 * bodyCount &&
      (el.textContent ?? "").length >= 0.5 * bodyText
    );
  };
}

/** The share of the viewport a box covers. */
export function coverage(view: PageView, r: DOMRect): number {
  const { vw, vh } = view;
  const ix = Math.max(0, Math.min(r.right, vw) - Math.max(r.left, 0));
  const iy = Math.max(0, Math.min(r.bottom, vh) - Math.max(r.top, 0));
  return (ix * iy) / (vw * vh);
}

const PROBES = [
  [0.5, 0.5],
  [0.25, 0.25],
  [0.75, 0.75],
  [0.25, 0.75],
  [0.75, 0.25],
] as const;

// Is there page content beneath it? Content beside it (or beside an ancestor) that it is painted
// over (inert content is not hit-tested, so this looks at boxes), or anything but its ancestors
// below it at a probe point.
export function coversSomething(
  view: PageView,
  isHidden: (el: Element) => boolean,
  el: Element,
  r: DOMRect,
): boolean {
  const { doc, root, body, vw, vh } = view;
  let checked = 0;
  for (let x: Element = el; x !== body && x !== root; ) {
    const pn = x.parentNode;
    if (!pn) return false;
    for (const s of Array.from((pn as ParentNode).children)) {
      if (s === x || ++checked > 400) continue;
      if (/^(SCRIPT|STYLE|LINK|META|TEMPLATE|NOSCRIPT)$/.test(s.tagName)) continue;
      const sr = s.getBoundingClientRect();
      const left = Math.max(r.left, sr.left, 0);
      const top = Math.max(r.top, sr.top, 0);
      const ix = Math.min(r.right, sr.right, vw) - left;
      const iy = Math.min(r.bottom, sr.bottom, vh) - top;
      if (ix < 8 || iy < 8 || isHidden(s) || !view.shown(s)) continue;
      for (const [px, py] of PROBES) {
        const hit = doc.elementFromPoint(left + ix * px, top + iy * py);
        if (hit && (hit === el || within(el, hit) || (hit.shadowRoot && within(hit, el)))) return true;
      }
    }
    x = pn instanceof ShadowRoot ? pn.host : (pn as Element);
  }
  const left = Math.max(r.left, 0);
  const top = Math.max(r.top, 0);
  const ix = Math.min(r.right, vw) - left;
  const iy = Math.min(r.bottom, vh) - top;
  for (const [px, py] of PROBES) {
    const stack = doc.elementsFromPoint(left + ix * px, top + iy * py);
    const i = stack.findIndex((e) => e === el || within(el, e));
    if (i < 0) continue;
    if (stack.slice(i + 1).some((e) => e !== root && e !== body && !within(e, el) && !within(el, e)))
      return true;
  }
  return false;
}
