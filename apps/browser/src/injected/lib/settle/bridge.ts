import { SETTLE_GLOBAL } from "../globals.ts";

/*
 * The settle bookkeeping lives in the page's own world. What runs in Playwright's isolated world (the
 * selector engines: entries/control-selector-engine.ts, entries/type-ready-engine.ts) sees none of it;
 * it reads the state through a MouseEvent dispatched on the window, whose relatedTarget is a detached
 * element the state is written onto as an attribute. The listener is the window's first capturing one
 * and stops the event there: no page script sees it.
 */

/** The event that asks for the settle state; its `detail` is how young a request must be (ms). */
export const STATE_EVENT = SETTLE_GLOBAL;
/** The event that asks for the typing state. */
export const TYPING_EVENT = `${SETTLE_GLOBAL}:typing`;

/** In the page's world: answers both events. Call the answer at every read (see below). */
export function answerReads(state: (youngMs: number) => unknown, typingState: () => unknown): () => void {
  const bridge = (e: Event) => {
    const out = (e as MouseEvent).relatedTarget as Element | null;
    if (!out || typeof out.setAttribute !== "function" || out.isConnected) return;
    e.stopImmediatePropagation();
    out.setAttribute("data-state", JSON.stringify(state(Number((e as MouseEvent).detail) || 0)));
  };
  const typingBridge = (e: Event) => {
    const out = (e as MouseEvent).relatedTarget as Element | null;
    if (!out || typeof out.setAttribute !== "function" || out.isConnected) return;
    e.stopImmediatePropagation();
    out.setAttribute("data-state", JSON.stringify(typingState()));
  };
  // document.open() (page.setContent) takes the window's listeners away: every read puts it back (adding
  // the same listener twice adds it once).
  return () => {
    window.addEventListener(STATE_EVENT, bridge, true);
    window.addEventListener(TYPING_EVENT, typingBridge, true);
  };
}

/** From any world of the page: the answer to `type` (JSON text), or null when nothing answered. */
export function askPage(type: string, detail?: number): string | null {
  const out = document.createElement("div");
  window.dispatchEvent(new MouseEvent(type, { detail, relatedTarget: out }));
  return out.getAttribute("data-state");
}
