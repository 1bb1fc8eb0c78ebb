/**
 * Whole-page markdown keeps every visible text, page furniture included, but not what is never
 * content: consent banners, share buttons, ad slots, pop-ups, screen-reader-only text. Such elements
 * go only while they hold no content-like text, so a mis-named wrapper never takes the page along.
 * Navigation chrome that is mostly links (menus, link-only headers, footers and sidebars outside the
 * article) goes too: it is a large share of a page's words and none of its content, and the links
 * format still lists every link.
 */
import { textLengthUpTo, walkElements } from "../dom.ts";
import { looksNeverContent } from "./patterns.ts";
import { tally, tallyOf } from "./score.ts";

/** Content-like characters above which a never-content name is not believed. */
const MAX_GOOD_CHARS = 80;

export function removeNeverContent(body: Element): void {
  const tallies = tally(body);
  const doomed: Element[] = [];
  walkElements(body, (el) => {
    if (looksNeverContent(el) && tallyOf(tallies, el).good <= MAX_GOOD_CHARS) {
      // An inline element's own text counts toward its enclosing block: judged by its length.
      if (textLengthUpTo(el, 2000) <= 2000) {
        doomed.push(el);
        return false;
      }
    }
    return true;
  });
  for (const el of doomed) el.remove();
}

const CHROME =
  "nav, header, footer, aside, [role=navigation], [role=banner], [role=contentinfo], [role=complementary]";
/** A landmark goes when more than this share of its text is link text. */
const CHROME_LINK_SHARE = 0.3;

const textLength = (s: string | null | undefined) => (s ?? "").replace(/\s+/g, "").length;

/** Page chrome outside the article or main element whose text is mostly links (see above). */
export function removeNavigationChrome(body: Element): void {
  const doomed: Element[] = [];
  for (const el of Array.from(body.querySelectorAll(CHROME))) {
    if (el.closest("article, main, [role=main]")) continue;
    if (doomed.some((d) => d.contains(el))) continue;
    const total = textLength(el.textContent);
    let links = 0;
    for (const a of Array.from(el.querySelectorAll("a"))) links += textLength(a.textContent);
    if (total === 0 || links / total > CHROME_LINK_SHARE) doomed.push(el);
  }
  for (const el of doomed) el.remove();
}
