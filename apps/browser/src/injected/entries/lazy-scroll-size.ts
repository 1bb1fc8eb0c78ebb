import { reactsToScrolling, scrollPanels } from "../lib/scroll-panels.ts";

/**
 * In the page, before scrolling for lazy content: its height and the viewport's, and how many scrolling
 * panels it has (lib/scroll-panels.ts) when script on it may react to their scrolling (0 when none may).
 */
export default function lazyScrollSize(): { height: number; view: number; panels: number } {
  return {
    height: document.documentElement?.scrollHeight ?? 0,
    view: innerHeight,
    panels: reactsToScrolling() ? scrollPanels().length : 0,
  };
}
