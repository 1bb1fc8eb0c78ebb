/** In the page, after a scroll step settled: its height and how far down the viewport's bottom is. */
export default function lazyScrollWhere(): { height: number; bottom: number } {
  return { height: document.documentElement.scrollHeight, bottom: scrollY + innerHeight };
}
