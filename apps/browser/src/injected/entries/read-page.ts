import { scrollHooks } from "../lib/scroll-hooks.ts";
import { type SettleState, settleApi } from "../lib/settle/api.ts";

/** What readPage is asked: the settle state, the scroll check, or both. */
export interface PageRead {
  /** Read the settle state; a fetch, XHR or stream older than `youngMs` is not waited for. */
  settle?: { youngMs: number };
  /** Ask whether scrolling may change the page; with `anyPage`, every page taller than its viewport may. */
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
 * may load or build content (`mayScroll`). A page that fits its viewport cannot be scrolled
 * (page/scroll.ts reports nothing for it either). With `anyPage`, every taller page may; else a lazy
 * iframe loads when scrolled near (its content is composed into markdown); with the hooks script
 * (entries/scroll-hooks-init.ts), any hook counts; without it, any script that runs, or an inline scroll
 * handler, does.
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
    const hooks = scrollHooks();
    out.mayScroll =
      height <= innerHeight + 2
        ? false
        : scroll.anyPage || document.querySelector('iframe[loading="lazy" i], [onscroll], [onwheel]')
          ? true
          : hooks
            ? hooks.hooks > 0
            : Array.from(document.scripts).some(
                (s) =>
                  !s.type || /^(module|(text|application)\/(x-)?(java|ecma)script)$/i.test(s.type.trim()),
              );
  }
  return out;
}
