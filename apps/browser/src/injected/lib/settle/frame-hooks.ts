import { scrollHooks } from "../scroll-hooks.ts";

/**
 * What runs in the page's next rendering step, unasked by any frame callback: scroll events and
 * IntersectionObserver callbacks (counted by the scroll hooks script, entries/scroll-hooks-init.ts,
 * when the context has it), and ResizeObserver callbacks. Counts the ResizeObservers the page makes; the
 * answer is how many such hooks the page has set.
 */
export function countFrameHooks(): () => number {
  let resizeObservers = 0;
  const RO = window.ResizeObserver;
  if (RO) {
    window.ResizeObserver = new Proxy(RO, {
      construct(target, args, newTarget) {
        resizeObservers++;
        return Reflect.construct(target, args, newTarget);
      },
    });
  }
  return () => {
    const hooks = scrollHooks();
    return resizeObservers + (hooks ? hooks.hooks : 0);
  };
}
