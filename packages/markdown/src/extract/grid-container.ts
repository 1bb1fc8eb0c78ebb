/**
 * Grid pages (collections, listings, a service's offers, a documentation index): the repeated items
 * are the content, with the page's heading and intro when they sit close above, and with the prose
 * beside them when the page has both.
 * Tests: test/page-type.test.ts ("a collection keeps every item card...", "a blog's index of posts in
 * several sections..."), test/main-content.test.ts ("does not take a site footer's link columns...").
 */
import { sharedAncestor } from "../dom.ts";
import { findItemGrid, findItemGrids, type ItemGrid } from "./item-grid.ts";
import { type Tallies, tallyOf } from "./score.ts";

/** Another run of cards joins the main one when it holds this share of its text... */
const SIBLING_GRID_SHARE = 0.25;
/** ...and the element holding both is mostly cards. */
const SIBLING_GRID_SPREAD = 3;

const CHROME_TAGS = new Set(["NAV", "FOOTER", "ASIDE"]);
const CHROME_ROLES = new Set(["navigation", "contentinfo", "complementary"]);

/** Whether `el` sits in the site's navigation, footer or sidebar: their link columns are not the page's items. */
export function inSiteChrome(el: Element, body: Element): boolean {
  for (let up: Element | null = el; up && up !== body; up = up.parentElement) {
    if (CHROME_TAGS.has(up.nodeName)) return true;
    const role = up.getAttribute("role");
    if (role && CHROME_ROLES.has(role.trim().toLowerCase())) return true;
  }
  return false;
}

/** Grid pages: the repeated items, with the page's heading and intro when they sit close above. */
export function gridContainer(
  body: Element,
  tallies: Tallies,
  grid: ItemGrid | undefined = findItemGrid(body, tallies),
): { container: Element; items: Element } | undefined {
  if (!grid) return undefined;
  const pageChars = tallyOf(tallies, body).chars;
  if (grid.chars < 0.2 * pageChars) return undefined;
  let container = grid.parent;
  // A page of several runs of the same kind of card (a section per topic, each with its cards).
  const kind = grid.items[0]?.nodeName;
  let gridChars = grid.chars;
  for (const other of findItemGrids(body, tallies)) {
    if (other === grid || other.items[0]?.nodeName !== kind || other.chars < SIBLING_GRID_SHARE * grid.chars)
      continue;
    if (container.contains(other.parent) || other.parent.contains(container)) continue;
    const shared = sharedAncestor(container, other.parent);
    if (!shared || tallyOf(tallies, shared).chars > SIBLING_GRID_SPREAD * (gridChars + other.chars)) continue;
    container = shared;
    gridChars += other.chars;
  }
  const h1 = body.querySelector("h1");
  if (h1 && !container.contains(h1)) {
    const shared = sharedAncestor(container, h1);
    if (shared && tallyOf(tallies, shared).chars <= 1.5 * tallyOf(tallies, container).chars)
      container = shared;
  }
  return { container, items: grid.parent };
}

/** Prose and items apart: both, through their nearest shared ancestor, unless it carries much besides. */
export function besides(prose: Element, items: Element, tallies: Tallies): Element {
  if (items.contains(prose)) return items;
  const shared = sharedAncestor(prose, items);
  const both = tallyOf(tallies, prose).chars + tallyOf(tallies, items).chars;
  return shared && tallyOf(tallies, shared).chars <= 1.3 * both ? shared : items;
}
