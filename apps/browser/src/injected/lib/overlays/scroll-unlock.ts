/*
 * Undoing what a modal left behind: a scroll lock (overflow hidden on html/body, a fixed body) and page
 * content it made inert or aria-hidden. Each element changed is marked with the token.
 */
import { UNLOCKED_MARK } from "./overlay-marks.ts";
import type { PageView } from "./page-view.ts";

/**
 * Restores scrolling locked on html/body, when something was clicked or hidden (`acted`) or the page
 * is taller than the viewport. How many elements it changed.
 */
export function undoScrollLock(view: PageView, acted: boolean, token: string): number {
  const { root, body, vh } = view;
  let unlocked = 0;
  const tall = Math.max(root.scrollHeight, body.scrollHeight) > vh + 20;
  for (const el of [root, body]) {
    const s = view.style(el);
    if ((s.overflowY === "hidden" || s.overflowY === "clip") && (acted || tall)) {
      el.style.setProperty("overflow-y", "auto", "important");
      el.setAttribute(UNLOCKED_MARK, token);
      unlocked++;
    }
  }
  const bs = view.style(body);
  if (bs.position === "fixed" && (acted || body.scrollHeight > vh + 20)) {
    const top = Number.parseFloat(body.style.top || bs.top) || 0;
    body.style.setProperty("position", "static", "important");
    body.style.setProperty("top", "auto", "important");
    body.setAttribute(UNLOCKED_MARK, token);
    unlocked++;
    if (top < 0) window.scrollTo(0, -top);
  }
  return unlocked;
}

/** Makes page content a hidden modal left inert or aria-hidden live again. How many elements it changed. */
export function undoInert(view: PageView, isHidden: (el: Element) => boolean, token: string): number {
  let unlocked = 0;
  for (const el of Array.from(
    view.doc.querySelectorAll("body > [inert], body > [aria-hidden='true'], [data-aria-hidden='true']"),
  )) {
    if (isHidden(el)) continue;
    el.removeAttribute("inert");
    el.removeAttribute("aria-hidden");
    el.setAttribute(UNLOCKED_MARK, token);
    unlocked++;
  }
  return unlocked;
}
