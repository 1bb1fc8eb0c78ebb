import type { Page } from "playwright-core";
import { addSelectors, pageBeside } from "../formats/control-selectors.ts";
import { type Control, controlsFromSnapshot, textFromSnapshot } from "../formats/controls-tree.ts";
import { type PageState, settleWait } from "../page/settle.ts";

/** The controls map, the text and the title of a page, with its settle state read at the same moment. */
export interface QuietRead {
  controls: Control[];
  truncated: boolean;
  text: string[];
  title: string;
  state: PageState;
}

/**
 * The controls map of the page as it stands (the AI snapshot, then one in-page pass for the selectors,
 * the title and the page's settle state, asked right behind it: the same two calls as the controls
 * format alone); undefined when the page is not done, which the state read right after the snapshot
 * tells: anything it still has to do (a timer due, a request in flight, a frame callback or a message
 * it queued, a change within `quietMs`) or may do at its next rendering step (a scroll listener, an
 * Intersection or Resize observer) could change what the snapshot shows. Undefined too when the
 * page has no settle bookkeeping to ask.
 */
export async function quietRead(
  page: Page,
  opts: {
    visibleOnly: boolean;
    limit: number;
    /** A fetch, XHR or stream older than this is not waited for (see page/settle.ts youngFor). */
    youngMs: number;
    quietMs: number;
    /** Whether the page as the state shows it still needs no overlay pass before its controls map. */
    overlaysClear: (state: PageState) => boolean;
  },
): Promise<QuietRead | undefined> {
  const snapshot = page.ariaSnapshotJSON({ mode: "ai", boxes: true, timeout: 10_000 });
  const beside = pageBeside(page, opts.limit * 2, opts.youngMs);
  const [tree, pass] = await Promise.all([snapshot, beside]);
  const { state, title } = pass;
  if (!state || title === undefined || !isDone(state, opts.quietMs) || !opts.overlaysClear(state))
    return undefined;
  const { controls, total } = controlsFromSnapshot(tree, {
    visibleOnly: opts.visibleOnly,
    limit: opts.limit,
  });
  await addSelectors(page, controls, Promise.resolve(pass.selectors));
  return { controls, truncated: total > controls.length, text: textFromSnapshot(tree), title, state };
}

/** Pure: the page has nothing left to do, by its own bookkeeping (see injected/entries/settle-init.ts). */
export function isDone(state: PageState, quietMs: number): boolean {
  if ((state.pendingFrames ?? 0) > 0) return false;
  // An action's next rendering step may run these (a key that scrolls the page fires its scroll
  // listeners there); waiting for the page's handlers waits for that step after input.
  if ((state.frameHooks ?? 0) > 0) return false;
  if (state.lastPosted !== undefined && state.lastPosted >= 0 && state.now - state.lastPosted < quietMs)
    return false;
  return settleWait(state, { count: 0, lastEnd: 0, now: 0 }, quietMs) === 0;
}
