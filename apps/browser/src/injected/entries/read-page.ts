import { reactsToScrolling } from "../lib/scroll-panels.ts";
import { type SettleState, settleApi } from "../lib/settle/api.ts";

/** What readPage is asked: the settle state, the scroll check, or both. */
export interface PageRead {
  /** Read the settle state; a fetch, XHR or stream older than `youngMs` is not waited for. */
  settle?: { youngMs: number };
  /**
   * Ask whether scrolling (the window or a panel of the page) may change the page; with `anyPage`, every
   * page taller than its viewport may.
   */
  scroll?: { anyPage: boolean };
}

export interface PageReadAnswer {
  /** With `settle`: the settle bookkeeping's state, null when the document has none. */
  state?: SettleState | null;
  /**
   * With `scroll` (and, with `settle` too, a document with the bookkeeping): whether scrolling may
   * change the page.
   */
  mayScroll?: boolean;
}

/**
 * In the page, in one call: the settle bookkeeping's state (entries/settle-init.ts; `state` is null when
 * the document has none) when `settle` is given, and when `scroll` is given, whether scrolling the page
 * may load or build content (`mayScroll`): when script on it may react to scrolling (lib/scroll-panels.ts,
 * reactsToScrolling: a lazy iframe, an inline scroll handler, any hook counted by the hooks script), and
 * with `anyPage`, every page taller than its viewport. A page that fits its viewport has no window to
 * scroll, but may have scrolling panels (a feed, a chat pane) whose script loads more: page/scroll.ts looks
 * for them, and reports nothing when it finds none.
 */
export default function readPage({ settle, scroll }: PageRead): PageReadAnswer {
  const out: PageReadAnswer = {};
  if (settle) {
    const api = settleApi();
    out.state = api ? api.state(settle.youngMs) : null;
    if (!api) return out;
  }
  if (scroll) {
    const height = document.documentElement?.scrollHeight ?? 0;
    out.mayScroll = (scroll.anyPage && height > innerHeight + 2) || reactsToScrolling();
  }
  return out;
}
