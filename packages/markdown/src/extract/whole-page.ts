/**
 * Whole-page markdown keeps every visible text, page furniture included, but not what is never
 * content: consent banners, share buttons, ad slots, pop-ups, screen-reader-only text. Such elements
 * go only while they hold no content-like text, so a mis-named wrapper never takes the page along.
 */
import { walkElements } from "../dom.ts";
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
      if ((el.textContent?.length ?? 0) <= 2000) {
        doomed.push(el);
        return false;
      }
    }
    return true;
  });
  for (const el of doomed) el.remove();
}
