import { scrollHooks } from "./scroll-hooks.ts";

/**
 * Scrolling panels: elements that scroll on their own (a feed, a chat pane, a results list with
 * `overflow: auto`), whose lazy content loads when the panel, not the window, is scrolled: an
 * IntersectionObserver whose root is the panel, or the panel's scroll event. page/scroll.ts scrolls them
 * after the window.
 */

/** Panels scrolled at most, the largest first: a page has a feed, a chat pane, a sidebar, rarely more. */
export const MAX_PANELS = 4;
/**
 * A panel's box is at least this share of the viewport's width and of its height (256 x 144 CSS pixels in
 * the default 1280 x 720): a dropdown, a code block or a table cell that scrolls holds no feed.
 */
export const PANEL_MIN_SHARE = 0.2;
/** And hides at least this many CSS pixels of content: a box that overflows by a border or a shadow does not scroll. */
export const PANEL_MIN_HIDDEN_PX = 40;
/**
 * Elements whose box the walk reads, at most: those with child elements (a feed holds some), about 2.5 ms
 * per 5,000 on a loaded machine (leaves cost next to nothing); a page with more has its panels looked for
 * among its first ones only, so that looking costs 10 to 40 ms at most.
 */
export const PANEL_MEASURE_MAX = 20_000;
/** Elements walked at most, leaves included (about 0.05 µs each). */
export const PANEL_WALK_MAX = 200_000;

/**
 * Whether script on the page may react to scrolling: a lazy iframe or an inline scroll handler, and with
 * the hooks script (entries/scroll-hooks-init.ts) any observer or scroll listener the page set; without
 * it, any script that runs.
 */
export function reactsToScrolling(): boolean {
  const hooks = scrollHooks();
  if (hooks && hooks.hooks > 0) return true;
  if (document.querySelector('iframe[loading="lazy" i], [onscroll], [onwheel]')) return true;
  if (hooks) return false;
  return Array.from(document.scripts).some(
    (s) => !s.type || /^(module|(text|application)\/(x-)?(java|ecma)script)$/i.test(s.type.trim()),
  );
}

const SCROLLS = new Set(["auto", "scroll", "overlay"]);

/**
 * The page's scrolling panels, largest first, at most MAX_PANELS: elements, in the document and its open
 * shadow roots, that scroll vertically on their own (computed overflow-y auto or scroll), hide at least
 * PANEL_MIN_HIDDEN_PX below their fold, are visible, and are at least PANEL_MIN_SHARE of the viewport
 * each way. The document's own scroller is the window's, never a panel; the body only when the root
 * element does not pass its overflow to the viewport. Horizontal carousels are left alone.
 */
export function scrollPanels(): Element[] {
  const minWidth = innerWidth * PANEL_MIN_SHARE;
  const minHeight = innerHeight * PANEL_MIN_SHARE;
  const root = document.documentElement;
  if (!root) return [];
  const skip = new Set<Element | null>([root, document.scrollingElement]);
  if (document.body && getComputedStyle(root).overflowY === "visible") skip.add(document.body);
  const found: Array<{ el: Element; area: number }> = [];
  const scopes: Array<Document | ShadowRoot> = [document];
  let seen = 0;
  let measured = 0;
  const more = () => seen < PANEL_WALK_MAX && measured < PANEL_MEASURE_MAX;
  while (scopes.length && more()) {
    const walker = document.createTreeWalker(scopes.pop()!, NodeFilter.SHOW_ELEMENT);
    for (let n = walker.nextNode(); n && more(); n = walker.nextNode()) {
      seen++;
      const el = n as Element;
      if (el.shadowRoot) scopes.push(el.shadowRoot);
      // Cheapest first. A feed holds elements: leaves (most of a page) are passed over without reading
      // the layout; then most elements are too small or do not overflow.
      if (!el.firstElementChild) continue;
      measured++;
      const h = el.clientHeight;
      if (h < minHeight || el.scrollHeight - h < PANEL_MIN_HIDDEN_PX) continue;
      const w = el.clientWidth;
      if (w < minWidth || skip.has(el)) continue;
      if (!SCROLLS.has(getComputedStyle(el).overflowY)) continue;
      if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
      found.push({ el, area: w * h });
    }
  }
  return found
    .sort((a, b) => b.area - a.area)
    .slice(0, MAX_PANELS)
    .map((f) => f.el);
}
