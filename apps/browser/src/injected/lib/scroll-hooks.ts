import { SCROLL_HOOKS_GLOBAL } from "./globals.ts";

/** What the scroll hooks script (entries/scroll-hooks-init.ts) keeps on the window. */
export interface ScrollHooks {
  /** Viewport hooks the page set: scroll and wheel listeners and handlers, IntersectionObservers. */
  hooks: number;
}

/** The scroll hooks count of this window; undefined when the script is not installed in it. */
export function scrollHooks(): ScrollHooks | undefined {
  return (window as unknown as Record<string, ScrollHooks | undefined>)[SCROLL_HOOKS_GLOBAL];
}
