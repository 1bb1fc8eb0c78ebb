/**
 * Removing page furniture before the content is picked: navigation, headers, footers, sidebars, forms
 * and comment sections (by tag and by name), unless they hold the bulk of the page's good text.
 * Tests: test/main-content.test.ts ("drops navigation, header, footer...", "keeps sections whose names
 * only look like furniture..."), test/page-type.test.ts ("a service page keeps the text a section's own
 * <header> holds...").
 */
import { textChars, textLengthUpTo, walkElements } from "../dom.ts";
import { isBlockTag } from "./blocks.ts";
import { FURNITURE_TAGS, looksLikeBoilerplate, looksLikeComments } from "./patterns.ts";
import { HINT_SHARE, isHinted } from "./pick-container.ts";
import { type Tallies, tallyOf } from "./score.ts";

/** On a forum, a form holding this much prose is a post someone wrote (some engines wrap each in its edit form). */
const FORM_PROSE_CHARS = 100;

/** A toggle button is its heading and an icon, not a menu of headed links. */
const TOGGLE_CHARS = 120;

/** An element whose whole text is one heading's, and a short one: a title, with nothing beside it. */
function isTitleOnly(el: Element): boolean {
  const heading = el.querySelector("h1, h2, h3, h4, h5, h6");
  if (!heading) return false;
  const own = textChars(heading);
  return own > 0 && own <= TITLE_CHARS && textChars(el) === own;
}

/** Longer than this, a heading is no card's title. */
const TITLE_CHARS = 200;

/** Parts of a table or a definition list: cells, where a name says which column. */
const CELL_TAGS = new Set(["TD", "TH", "DD", "DT"]);

/** This many cells of one tag and class in a page make a column (a forum index's "topics" counts). */
const COLUMN_CELLS = 3;

const columnCounts = new WeakMap<Document, Map<string, number>>();

/**
 * A cell whose tag and class repeat down the page is a column of a table or of a list of rows (a board
 * index's `<dd class="topics">12 Topics</dd>` on every forum's row): data, whatever the class says. A
 * layout table's one `<td class="sidebar">` is not.
 */
function isColumnCell(el: Element): boolean {
  if (!CELL_TAGS.has(el.nodeName)) return false;
  const cls = el.getAttribute("class");
  const doc = el.ownerDocument;
  if (!cls || !doc) return false;
  let counts = columnCounts.get(doc);
  if (!counts) {
    counts = new Map();
    columnCounts.set(doc, counts);
  }
  const key = `${el.nodeName} ${cls}`;
  let n = counts.get(key);
  if (n === undefined) {
    n = 0;
    for (const other of doc.getElementsByTagName(el.nodeName.toLowerCase()))
      if (other.getAttribute("class") === cls) n++;
    counts.set(key, n);
  }
  return n >= COLUMN_CELLS;
}

function isFurniture(el: Element, tallies: Tallies, commentsAreContent = false): boolean {
  if (isColumnCell(el)) return false;
  if (commentsAreContent && el.nodeName === "FORM" && tallyOf(tallies, el).good >= FORM_PROSE_CHARS)
    return false;
  // An accordion's toggle that holds a heading ("Item details"), or is a heading's text, titles the
  // panel it opens.
  if (
    el.nodeName === "BUTTON" &&
    textLengthUpTo(el, TOGGLE_CHARS) <= TOGGLE_CHARS &&
    (el.querySelector("h2, h3, h4, h5, h6") || el.parentElement?.closest("h2, h3, h4, h5, h6"))
  )
    return false;
  // A <header> that holds only a heading is that part's title (a listing's card: <article><header><h2>).
  if (el.nodeName === "HEADER" && isTitleOnly(el)) return false;
  // A <header> inside a section heads that part (HTML's own reading), not the site; an article's
  // header holds its byline and share bar.
  if (el.nodeName === "HEADER" && el.parentElement?.closest("section") && !el.closest("article"))
    return looksLikeBoilerplate(el, commentsAreContent);
  return FURNITURE_TAGS.has(el.nodeName) || looksLikeBoilerplate(el, commentsAreContent);
}

/**
 * An inline element's own text counts toward its enclosing block, so its tally only covers blocks
 * nested in it: it is judged by its text instead.
 */
function holdsLittle(el: Element, tallies: Tallies, limit: number): boolean {
  if (isBlockTag(el.nodeName)) return tallyOf(tallies, el).good < limit;
  const cap = Math.min(limit, 200);
  return textLengthUpTo(el, cap) < cap;
}

/**
 * Removes furniture elements under `root` (outermost first) whose good text is below `limit`, so a
 * <form> or a "comments-open" <body> class wrapping the whole article never takes it along.
 */
export function removeFurniture(
  root: Element,
  tallies: Tallies,
  limit: number,
  pageGood: number,
  keepComments: boolean,
): void {
  // Layout wrappers named after a sidebar ("has-sidebar") that hold a hinted content element stay.
  const shelters = new Set<Element>();
  walkElements(root, (el) => {
    const t = tallies.of.get(el);
    if (!t || t.good === 0) return false;
    if (isHinted(el) && t.good >= HINT_SHARE * pageGood) {
      for (let p = el.parentElement; p && p !== root && !shelters.has(p); p = p.parentElement)
        shelters.add(p);
    }
    return true;
  });
  const doomed: Element[] = [];
  walkElements(root, (el) => {
    const comments = looksLikeComments(el);
    // Where replies are the content (forums, Q&A), a comment section is not furniture.
    if (comments && keepComments) return true;
    if (
      comments ||
      (isFurniture(el, tallies, keepComments) && !shelters.has(el) && holdsLittle(el, tallies, limit))
    ) {
      doomed.push(el);
      return false;
    }
    return true;
  });
  for (const el of doomed) el.remove();
}

/**
 * The outermost furniture elements under `root` that hold none of `keep` and sit in none of them: the
 * site's header, menus, footer, forms and sign-up boxes around a page's own parts.
 */
export function furnitureAround(root: Element, tallies: Tallies, keep: readonly Element[]): Element[] {
  const found: Element[] = [];
  walkElements(root, (el) => {
    if (keep.some((k) => k === el || k.contains(el))) return false;
    if (keep.some((k) => el.contains(k))) return true;
    if (isFurniture(el, tallies) || looksLikeComments(el)) {
      found.push(el);
      return false;
    }
    return true;
  });
  return found;
}
