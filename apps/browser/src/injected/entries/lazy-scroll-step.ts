/** In the page: scrolls down one viewport at once; the page's height before the step's content loads. */
export default function lazyScrollStep(): { height: number } {
  window.scrollTo({ top: scrollY + innerHeight, behavior: "instant" });
  return { height: document.documentElement.scrollHeight };
}
