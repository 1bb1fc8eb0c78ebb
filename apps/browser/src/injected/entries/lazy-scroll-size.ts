/** In the page, before scrolling for lazy content: its height and the viewport's. */
export default function lazyScrollSize(): { height: number; view: number } {
  return { height: document.documentElement?.scrollHeight ?? 0, view: innerHeight };
}
