/**
 * Run on an element: scrolls by dx, dy CSS pixels at once. The element if it can scroll that way, else
 * its nearest ancestor that can, else the page.
 */
export default function elementScrollBy(el: Element, d: { dx: number; dy: number }): void {
  let node: Element | null = el;
  while (node && node !== document.body && node !== document.documentElement) {
    const s = getComputedStyle(node);
    const y = d.dy !== 0 && /auto|scroll|overlay/.test(s.overflowY) && node.scrollHeight > node.clientHeight;
    const x = d.dx !== 0 && /auto|scroll|overlay/.test(s.overflowX) && node.scrollWidth > node.clientWidth;
    if (x || y) break;
    node = node.parentElement;
  }
  const scroller =
    node && node !== document.body && node !== document.documentElement
      ? node
      : (document.scrollingElement ?? document.documentElement);
  scroller.scrollBy({ left: d.dx, top: d.dy, behavior: "instant" });
}
