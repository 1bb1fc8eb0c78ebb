/*
 * The button the host is about to click: marked with the call's token so the host's locator finds it,
 * its container marked done, and a navigation guard on until the next pass (or 1.5 s).
 */
import { up } from "./flat-tree.ts";
import { DONE_MARK, GUARD_KEY, LAST_TARGET_KEY, TARGET_MARK } from "./overlay-marks.ts";

const slots = (): Record<symbol, unknown> => window as unknown as Record<symbol, unknown>;
const GUARD = Symbol.for(GUARD_KEY);
const LAST = Symbol.for(LAST_TARGET_KEY);

/** Ends the last click's navigation guard, if it is still on. */
export function removeClickGuard(): void {
  const undo = slots()[GUARD];
  if (typeof undo === "function") undo();
}

/** The previous click's navigation guard and target mark end here. */
export function releaseTarget(): void {
  const w = slots();
  removeClickGuard();
  const last = w[LAST];
  if (last instanceof Element) last.removeAttribute(TARGET_MARK);
  w[LAST] = undefined;
}

/** `el` or one of its flat-tree ancestors is a container already clicked in. */
export function isDone(el: Element): boolean {
  for (let x: Element | null = el; x; x = up(x)) if (x.hasAttribute(DONE_MARK)) return true;
  return false;
}

/** Marks `el` as the target and `container` as done, and guards the page against what the click starts. */
export function aimAt(el: HTMLElement, container: Element, token: string): void {
  const w = slots();
  el.setAttribute(TARGET_MARK, token);
  w[LAST] = el;
  container.setAttribute(DONE_MARK, token);
  // Until the next pass (or 1.5 s): whatever the click starts, it must not take the page away.
  // Form submissions are stopped at their submit event: cancelling their navigation would leave
  // Playwright waiting for it.
  const nav = (window as unknown as { navigation?: EventTarget }).navigation;
  const onSubmit = (e: Event) => e.preventDefault();
  const onNavigate = (e: Event) => {
    const n = e as Event & { formData?: unknown; sourceElement?: Element | null };
    if (e.cancelable && !n.formData && n.sourceElement?.tagName !== "FORM") e.preventDefault();
  };
  addEventListener("submit", onSubmit, true);
  nav?.addEventListener("navigate", onNavigate);
  const off = () => {
    removeEventListener("submit", onSubmit, true);
    nav?.removeEventListener("navigate", onNavigate);
    clearTimeout(timer);
    if (w[GUARD] === off) w[GUARD] = undefined;
  };
  const timer = setTimeout(off, 1500);
  w[GUARD] = off;
}
