/**
 * Whether scrolling a page can change what is on it. Scrolling for lazy content (scroll.ts) costs a
 * rendering step, a settle and a paint per viewport, most of a static page's CPU, and only script that
 * watches the viewport reacts to it: an IntersectionObserver, a scroll or wheel listener, a lazy iframe.
 *
 * SCROLL_HOOKS_SCRIPT, installed before any page script (every context the worker makes has it), counts
 * those hooks as the page sets them. Without it, a page is known not to react only when it runs no script at all.
 */

export const SCROLL_HOOKS_GLOBAL = "__fleetScrollHooks";

export const SCROLL_HOOKS_SCRIPT = `(() => {
  const KEY = ${JSON.stringify(SCROLL_HOOKS_GLOBAL)};
  if (Object.prototype.hasOwnProperty.call(window, KEY)) return;
  const state = { hooks: 0 };
  Object.defineProperty(window, KEY, { value: state, enumerable: false });
  const IO = window.IntersectionObserver;
  if (IO) {
    window.IntersectionObserver = new Proxy(IO, {
      construct(target, args, newTarget) {
        state.hooks++;
        return Reflect.construct(target, args, newTarget);
      },
    });
  }
  const SCROLLY = new Set(["scroll", "scrollend", "wheel", "mousewheel", "touchmove"]);
  // Proxies, so the page still sees native functions (toString, length, name).
  EventTarget.prototype.addEventListener = new Proxy(EventTarget.prototype.addEventListener, {
    apply(target, self, args) {
      if (SCROLLY.has(String(args[0]).toLowerCase())) state.hooks++;
      return Reflect.apply(target, self, args);
    },
  });
  // onscroll = ... and friends, on the window, the document and elements.
  for (const owner of [window, Window.prototype, Document.prototype, HTMLElement.prototype]) {
    for (const name of ["onscroll", "onscrollend", "onwheel", "onmousewheel"]) {
      const d = Object.getOwnPropertyDescriptor(owner, name);
      if (!d || !d.set || !d.configurable) continue;
      Object.defineProperty(owner, name, {
        ...d,
        set: new Proxy(d.set, {
          apply(target, self, args) {
            if (args[0]) state.hooks++;
            return Reflect.apply(target, self, args);
          },
        }),
      });
    }
  }
})();`;

/** What readPage reads: the settle state (its global and how young a request must be), the scroll check. */
export type PageReadArgs = readonly [
  settle: readonly [key: string, youngMs: number] | null,
  scroll: readonly [key: string, anyPage: boolean] | null,
];

/**
 * In the page, in one call: the settle bookkeeping's state (settle-script.ts; `state` is null when the
 * document has none) when `settle` is given, and when `scroll` is given, whether scrolling the page may
 * load or build content (`mayScroll`). A page that fits its viewport cannot be scrolled (scroll.ts reports
 * nothing for it either). With `anyPage`, every taller page may; else a lazy iframe loads when scrolled
 * near (its content is composed into markdown); with the hooks script, any hook counts; without it, any
 * script that runs, or an inline scroll handler, does.
 */
export function readPage([settle, scroll]: PageReadArgs): { state?: unknown; mayScroll?: boolean } {
  const out: { state?: unknown; mayScroll?: boolean } = {};
  if (settle) {
    const api = (window as unknown as Record<string, { state(y: number): unknown } | undefined>)[settle[0]];
    out.state = api ? api.state(settle[1]) : null;
    if (!api) return out;
  }
  if (scroll) {
    const height = document.documentElement?.scrollHeight ?? 0;
    const hooks = (window as unknown as Record<string, { hooks: number } | undefined>)[scroll[0]];
    out.mayScroll =
      height <= innerHeight + 2
        ? false
        : scroll[1] || document.querySelector('iframe[loading="lazy" i], [onscroll], [onwheel]')
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
