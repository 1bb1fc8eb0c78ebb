import { SCROLL_HOOKS_GLOBAL } from "../lib/globals.ts";
import type { ScrollHooks } from "../lib/scroll-hooks.ts";

/**
 * Whether scrolling a page can change what is on it. Scrolling for lazy content (page/scroll.ts) costs a
 * rendering step, a settle and a paint per viewport, most of a static page's CPU, and only script that
 * watches the viewport reacts to it: an IntersectionObserver, a scroll or wheel listener, a lazy iframe.
 *
 * This init script, installed before any page script (every context the worker makes has it, after the
 * settle bookkeeping), counts those hooks as the page sets them (read by entries/read-page.ts and the
 * settle bookkeeping's frame hooks). Without it, a page is known not to react only when it runs no script
 * at all.
 */

const SCROLLY = new Set(["scroll", "scrollend", "wheel", "mousewheel", "touchmove"]);

export default function scrollHooksInit(): void {
  if (Object.hasOwn(window, SCROLL_HOOKS_GLOBAL)) return;
  const state: ScrollHooks = { hooks: 0 };
  Object.defineProperty(window, SCROLL_HOOKS_GLOBAL, { value: state, enumerable: false });
  const IO = window.IntersectionObserver;
  if (IO) {
    window.IntersectionObserver = new Proxy(IO, {
      construct(target, args, newTarget) {
        state.hooks++;
        return Reflect.construct(target, args, newTarget);
      },
    });
  }
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
      if (!d?.set || !d.configurable) continue;
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
}
