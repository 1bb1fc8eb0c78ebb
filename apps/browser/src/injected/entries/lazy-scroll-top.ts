/** In the page: back to the top at once, once scrolling for lazy content is done. */
export default function lazyScrollTop(): void {
  window.scrollTo({ top: 0, behavior: "instant" });
}
