/** Run in a page: scrolls the window by dx, dy CSS pixels at once (no smooth scrolling). */
export default function windowScrollBy(d: { dx: number; dy: number }): void {
  window.scrollBy({ left: d.dx, top: d.dy, behavior: "instant" });
}
