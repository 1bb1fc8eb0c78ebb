/**
 * Run on an iframe element: where its content box starts, in its own frame's viewport. Add it to boxes
 * measured inside the child frame to get them in the parent's viewport.
 */
export default function frameContentOrigin(el: Element): { x: number; y: number } {
  const r = el.getBoundingClientRect();
  const style = getComputedStyle(el);
  return {
    x: r.x + el.clientLeft + (Number.parseFloat(style.paddingLeft) || 0),
    y: r.y + el.clientTop + (Number.parseFloat(style.paddingTop) || 0),
  };
}
