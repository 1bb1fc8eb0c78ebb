/** What a scrolling panel looks like: its content's height, how far down its bottom edge is, and its scrollTop. */
export interface PanelWhere {
  height: number;
  bottom: number;
  top: number;
}

/**
 * Run on a scrolling panel (lib/scroll-panels.ts) at once, no smooth scrolling. `step`: down one panel
 * height, answering where it was before the step; `where`: where it is; `{ restore }`: back to that
 * scrollTop, once scrolling for lazy content is done.
 */
export default function lazyPanelScroll(el: Element, op: "step" | "where" | { restore: number }): PanelWhere {
  const where = () => ({
    height: el.scrollHeight,
    bottom: el.scrollTop + el.clientHeight,
    top: el.scrollTop,
  });
  const before = where();
  if (op === "step") el.scrollTo({ top: el.scrollTop + el.clientHeight, behavior: "instant" });
  else if (op !== "where") el.scrollTo({ top: op.restore, behavior: "instant" });
  return before;
}
