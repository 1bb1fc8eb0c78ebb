/**
 * Repeated items: a run of siblings built from one template (product cards, search results, course
 * tiles, posts in a list), each holding a link and some text. On a collection or listing page that run
 * is the content, though no single block of it reads like prose.
 */
import {
  childElementsUpTo,
  classOf,
  hasLinkUnder,
  linkedTitlesUnder,
  linksUnder,
  walkElements,
} from "../dom.ts";
import { type Tallies, tallyOf } from "./score.ts";

export interface ItemGrid {
  parent: Element;
  items: Element[];
  /** Text characters of the items together. */
  chars: number;
}

/** Fewest alike siblings that make a grid. */
const MIN_ITEMS = 4;
/** Items hold on average at least this many characters: a menu's one-word links are not items. */
const MIN_ITEM_CHARS = 25;
/** This share of the alike siblings must hold a link. */
const LINKED_SHARE = 0.6;
/** A card links to its item a few times (picture, title, button); a menu column links to many places. */
const MAX_TARGETS_PER_ITEM = 4;

/** Terms an item is filed under (WordPress's "category-dinner tag-quick"): the item's own, not its template's. */
const TAXONOMY = /^(?:category|tag|format|status|type|author|product_(?:cat|tag|type)|pa_[a-z]+)-/;

/** What the template gave an element: its tag and class words without numbers (item-1, item-2). */
export function signature(el: Element): string {
  const cls = classOf(el)
    .split(/\s+/)
    .map((c) => c.replace(/\d+/g, ""))
    .filter((c) => c && !/^(?:active|selected|first|last|odd|even|is-|has-)/.test(c) && !TAXONOMY.test(c))
    .sort()
    .join(".");
  return `${el.nodeName}.${cls}`;
}

const hasLink = (el: Element) => el.nodeName === "A" || hasLinkUnder(el);

function targets(el: Element): number {
  const hrefs = new Set<string>();
  for (const a of linksUnder(el)) hrefs.add(a.getAttribute("href") ?? "");
  return hrefs.size;
}

/** A story or post card links to more: its author, its tags, its comments; its title is a linked heading. */
const MAX_TARGETS_PER_TITLED_ITEM = 12;

/** One heading that holds or sits in a link: the item's title (a section of cards has one per card). */
const linkedTitle = (el: Element) => linkedTitlesUnder(el) === 1;

/** The median item links to few places, or to a few more under a linked title. */
function fewTargets(items: Element[]): boolean {
  const counts = items.map(targets).sort((a, b) => a - b);
  const median = counts[Math.floor(counts.length / 2)] ?? 0;
  if (median <= MAX_TARGETS_PER_ITEM) return true;
  return (
    median <= MAX_TARGETS_PER_TITLED_ITEM && items.filter(linkedTitle).length >= LINKED_SHARE * items.length
  );
}

/** Every run of repeated items under `root`: per parent, the alike siblings holding the most text. */
export function findItemGrids(root: Element, tallies: Tallies): ItemGrid[] {
  const grids: ItemGrid[] = [];
  walkElements(root, (el) => {
    if (tallyOf(tallies, el).chars === 0) return false;
    const grid = gridUnder(el, tallies);
    if (grid) grids.push(grid);
    return true;
  });
  return grids;
}

/** The repeated items under `root` that hold the most text, if any. */
export function findItemGrid(root: Element, tallies: Tallies): ItemGrid | undefined {
  let best: ItemGrid | undefined;
  walkElements(root, (el) => {
    const total = tallyOf(tallies, el).chars;
    if (total === 0) return false;
    if (best && total <= best.chars) return true;
    const grid = gridUnder(el, tallies);
    if (grid && (!best || grid.chars > best.chars)) best = grid;
    return true;
  });
  return best;
}

/**
 * gridUnder's answers per tally: the page is searched for grids more than once with the same tallies,
 * and like the tallies those answers hold for the tree as it was when they were taken.
 */
const gridsByTally = new WeakMap<Tallies, Map<Element, ItemGrid | undefined>>();

function gridUnder(el: Element, tallies: Tallies): ItemGrid | undefined {
  let known = gridsByTally.get(tallies);
  if (!known) {
    known = new Map();
    gridsByTally.set(tallies, known);
  }
  if (known.has(el)) return known.get(el);
  const grid = findGridUnder(el, tallies);
  known.set(el, grid);
  return grid;
}

/** The alike children of `el` that make a grid, if any. */
function findGridUnder(el: Element, tallies: Tallies): ItemGrid | undefined {
  if (childElementsUpTo(el, MIN_ITEMS) < MIN_ITEMS) return undefined;
  const groups = new Map<string, Element[]>();
  for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
    if (tallyOf(tallies, c).chars === 0) continue;
    const key = signature(c);
    const group = groups.get(key);
    if (group) group.push(c);
    else groups.set(key, [c]);
  }
  let best: ItemGrid | undefined;
  for (const items of groups.values()) {
    if (items.length < MIN_ITEMS) continue;
    const chars = items.reduce((n, c) => n + tallyOf(tallies, c).chars, 0);
    if (chars < MIN_ITEM_CHARS * items.length || (best && chars <= best.chars)) continue;
    if (items.filter(hasLink).length < LINKED_SHARE * items.length || !fewTargets(items)) continue;
    best = { parent: el, items, chars };
  }
  return best;
}
