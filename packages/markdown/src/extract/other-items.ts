/**
 * On a product page, repeated item cards are other products (similar items, also bought, recently
 * viewed): they go, with the heading that introduces them. Items that make most of the page are what
 * the page is about (a category page taken for a product page): they stay.
 * Tests: test/main-content.test.ts ("keeps a product's description and specs but not its reviews...",
 * "keeps a page's own FAQ whose answers link on...").
 */
import { findItemGrids } from "./item-grid.ts";
import { type Tallies, tallyOf } from "./score.ts";

const SECTION_EXTRA_CHARS = 200;
const OTHER_ITEMS_MAX_SHARE = 0.5;

/** An FAQ: items that each open with a question. It is about this page's offer, not other items. */
const isQuestionList = (items: Element[]) =>
  items.filter((el) => el.firstElementChild?.textContent?.trim().endsWith("?")).length >= 0.6 * items.length;

export function removeOtherItems(container: Element, tallies: Tallies): void {
  const pageChars = tallyOf(tallies, container).chars;
  for (const grid of findItemGrids(container, tallies)) {
    if (grid.parent === container || !container.contains(grid.parent)) continue;
    if (grid.chars > OTHER_ITEMS_MAX_SHARE * pageChars || isQuestionList(grid.items)) continue;
    // The section around the items, while it holds little else (its heading, a "see all" link).
    let doomed = grid.parent;
    for (let up = doomed.parentElement; up && up !== container; up = up.parentElement) {
      if (tallyOf(tallies, up).chars > grid.chars + SECTION_EXTRA_CHARS || up.querySelector("h1")) break;
      doomed = up;
    }
    doomed.remove();
  }
}
