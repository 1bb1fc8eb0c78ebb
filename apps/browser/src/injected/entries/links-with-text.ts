/** A link target as the browser resolved it, and its text (at most 300 characters, maybe empty). */
export type LinkWithText = [url: string, text: string];

/**
 * Run in a page: every `a[href]` as the browser resolved it (script-built links included), at most
 * `max`, each with its text, else its aria-label, title or image's alt.
 */
export default function linksWithText(max: number): LinkWithText[] {
  return Array.from(document.querySelectorAll("a[href]"), (el) => {
    const a = el as HTMLAnchorElement;
    const text =
      (a.textContent ?? "").replace(/\s+/g, " ").trim() ||
      a.getAttribute("aria-label") ||
      a.getAttribute("title") ||
      a.querySelector("img[alt]")?.getAttribute("alt") ||
      "";
    return [a.href, text.slice(0, 300)] as LinkWithText;
  }).slice(0, max);
}
