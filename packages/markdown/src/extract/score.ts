/**
 * How much each text block looks like content, and the sums of that over every element's subtree.
 * A block is good when it is long and mostly not links, bad when it is mostly links or a furniture
 * label ("Advertisement", "Share"), neutral otherwise (headings, short lines, captions).
 */
import { collectBlocks, HEADING_TAGS, type TextBlock } from "./blocks.ts";
import { FURNITURE_TEXT } from "./patterns.ts";

export interface Tally {
  /** Weighted characters of good blocks in the subtree. */
  good: number;
  /** Characters of bad blocks in the subtree. */
  bad: number;
  /** Characters of all text in the subtree. */
  chars: number;
  /** Of the bad characters, those of list items that describe their link (see isDescribedLink). */
  described: number;
}

const KEYWORD_RUN_CHARS = 400;
/** Longer than any title: a heading this long, with sentence marks, is prose set in a heading's tag. */
const HEADING_PROSE_CHARS = 150;
/** A block this long that names a copyright is a licence or terms text, which may be the content. */
const LEGAL_LINE_CHARS = 300;

/**
 * A post's byline, its author's name linked to the profile beside the date ("JustinBrooke · Feb 3"),
 * is mostly link text without being a list of links: one link, and a <time> outside it.
 */
function isByline(el: Element): boolean {
  // By tag name: a selector would be compiled again for each of the page's blocks.
  const time = el.getElementsByTagName("time")[0];
  if (!time) return false;
  const links = el.getElementsByTagName("a");
  // A linked date alone ("Posted August 26", a permalink) is no author.
  return links.length === 1 && !links[0]?.contains(time);
}

/** A list item's own words beside its link: this many characters, with a sentence mark among them. */
const DESCRIPTION_CHARS = 20;
const DESCRIBED_LINK_DENSITY = 0.8;
const ITEM_TAGS = new Set(["LI", "DD"]);

/**
 * A list item that names a page and says what it holds ("[Data Transfer Service] automates data
 * ingestion."), as documentation lists further reading, is mostly link text without being a menu:
 * a menu's items are their links alone, or a count beside them.
 */
export function isDescribedLink(b: TextBlock): boolean {
  return (
    b.linkChars <= DESCRIBED_LINK_DENSITY * b.chars &&
    ITEM_TAGS.has(b.el.nodeName) &&
    b.chars - b.linkChars >= DESCRIPTION_CHARS &&
    b.plainPunctuation > 0
  );
}

/** Positive for content-like blocks, negative for furniture-like ones, 0 for neutral ones. */
export function blockValue(b: TextBlock): number {
  if (b.chars === 0) return 0;
  if (!HEADING_TAGS.has(b.el.nodeName)) return textValue(b);
  // A heading is neutral, unless it is a paragraph of prose set as one (a landing page's <h4> intro).
  if (b.chars < HEADING_PROSE_CHARS || b.punctuation < 2) return 0;
  return Math.max(0, textValue(b));
}

function textValue(b: TextBlock): number {
  if (b.shortText !== undefined && FURNITURE_TEXT.test(b.shortText)) return -b.chars;
  // A site's copyright line reads like a sentence, and is in every page's footer.
  if (b.legal && b.chars < LEGAL_LINE_CHARS) return 0;
  const linkDensity = b.linkChars / b.chars;
  if (linkDensity > 0.5) return isByline(b.el) ? 0 : -b.chars;
  // A long run of words without one sentence mark in a page's footer is a list of keywords for search
  // engines (the towns and zip codes served), not prose.
  if (b.chars >= KEYWORD_RUN_CHARS && b.punctuation === 0 && b.el.closest("footer")) return 0;
  if (b.chars >= 80 && linkDensity <= 0.35) return b.chars * (1 - linkDensity);
  if (b.chars >= 25 && linkDensity <= 0.2 && b.punctuation > 0) return b.chars * 0.5 * (1 - linkDensity);
  return 0;
}

export interface Tallies {
  blocks: TextBlock[];
  of: Map<Element, Tally>;
}

const EMPTY: Tally = { good: 0, bad: 0, chars: 0, described: 0 };

export function tallyOf(tallies: Tallies, el: Element): Tally {
  return tallies.of.get(el) ?? EMPTY;
}

/** Sums of block values over the subtree of every element under `root` that holds text. */
export function tally(root: Element): Tallies {
  const blocks = collectBlocks(root);
  const of = new Map<Element, Tally>();
  for (const b of blocks) {
    if (b.chars === 0) continue;
    const value = blockValue(b);
    const good = value > 0 ? value : 0;
    const bad = value < 0 ? -value : 0;
    const described = bad > 0 && isDescribedLink(b) ? bad : 0;
    for (let el: Element | null = b.el; el; el = el === root ? null : el.parentElement) {
      let t = of.get(el);
      if (!t) {
        t = { good: 0, bad: 0, chars: 0, described: 0 };
        of.set(el, t);
      }
      t.good += good;
      t.bad += bad;
      t.chars += b.chars;
      t.described += described;
    }
  }
  return { blocks, of };
}
