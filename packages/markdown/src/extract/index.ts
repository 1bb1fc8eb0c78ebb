/**
 * Main-content extraction on a parsed document: drop page furniture that is not the bulk of the text,
 * pick the element whose text is most content-like, then prune what is left of furniture inside it.
 * Pure DOM work on the caller's (private) document; linear in its size apart from ancestor walks.
 */
import { classOf, sharedAncestor, textChars, textLengthUpTo, walkElements } from "../dom.ts";
import { isBlockTag } from "./blocks.ts";
import { dropRepeatedAlts } from "./duplicate-alts.ts";
import { findItemGrid, findItemGrids, type ItemGrid, signature } from "./item-grid.ts";
import { type BodyShape, classifyPage, type PageHints, type PageType, pageFeatures } from "./page-type.ts";
import {
  FURNITURE_TAGS,
  FURNITURE_TEXT,
  looksLikeBoilerplate,
  looksLikeComments,
  looksLikeContent,
  namesOf,
} from "./patterns.ts";
import { removePostChrome } from "./post-chrome.ts";
import { gatherProduct } from "./product-parts.ts";
import { removeProductAsides } from "./product-sections.ts";
import { removeRepeatedQuotes } from "./quoted-posts.ts";
import { type Tallies, tally, tallyOf } from "./score.ts";
import { removeShopControls } from "./shop-controls.ts";

export type MainContentStatus = "extracted" | "fallback_whole_page";

export interface MainContent {
  /** The element to convert: the main content, or the root itself on fallback. */
  root: Element;
  status: MainContentStatus;
  pageType: PageType;
}

/** An element holding at least this share of the page's good text is never furniture. */
const DOMINANT_SHARE = 0.7;
/** The chosen element must hold this many good characters, and this share of the page's, to be credible. */
const MIN_GOOD_CHARS = 120;
const MIN_GOOD_SHARE = 0.3;

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

function isFurniture(el: Element, tallies: Tallies, commentsAreContent = false): boolean {
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
function removeFurniture(
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

/** Score of an element as the main-content container: its good text less its bad, plus hints. */
function containerScore(el: Element, tallies: Tallies): number {
  const t = tallyOf(tallies, el);
  let score = t.good - t.bad;
  if (looksLikeContent(el)) score += 0.25 * t.good;
  else if (el.nodeName === "ARTICLE" || el.nodeName === "MAIN") score += 0.1 * t.good;
  return score;
}

/** A hinted container must hold this share of the good text left to be taken on its name alone. */
const HINT_SHARE = 0.3;

/** Named as the content (class, id, itemprop) or an <article>. */
function isHinted(el: Element): boolean {
  return el.nodeName === "ARTICLE" || looksLikeContent(el);
}

/**
 * The element a content class name or itemprop=articleBody points at, when it holds enough of the
 * good text: the one with the most (the deeper on a near tie). Bodies split into several hinted
 * parts (ads between them) give the smallest element holding every sizeable part.
 */
function hintedContainer(root: Element, tallies: Tallies, pageGood: number): Element | undefined {
  const hinted: Element[] = [];
  walkElements(root, (el) => {
    const t = tallies.of.get(el);
    if (!t || t.good === 0) return false;
    if (isHinted(el)) hinted.push(el);
    return true;
  });
  let best: Element | undefined;
  let bestGood = 0;
  for (const el of hinted) {
    const good = tallyOf(tallies, el).good;
    // Document order puts ancestors first: a descendant with (nearly) as much wins.
    if (good > bestGood * (best?.contains(el) ? 0.9 : 1)) {
      best = el;
      bestGood = good;
    }
  }
  if (!best || bestGood < HINT_SHARE * pageGood) return undefined;
  let container = best;
  for (const el of hinted) {
    if (container.contains(el) || el.contains(container)) continue;
    if (tallyOf(tallies, el).good < 0.2 * bestGood) continue;
    while (!container.contains(el) && container.parentElement) container = container.parentElement;
  }
  return container;
}

/** The best-scoring element; on a tie the deeper one, which carries less around the content. */
function bestContainer(root: Element, tallies: Tallies): Element {
  let best = root;
  let bestScore = containerScore(root, tallies);
  walkElements(root, (el) => {
    const t = tallies.of.get(el);
    if (!t || t.good === 0) return false;
    const score = containerScore(el, tallies);
    if (score >= bestScore) {
      best = el;
      bestScore = score;
    }
    return true;
  });
  return best;
}

const STRUCTURED = new Set(["TABLE", "UL", "OL", "DL", "PRE", "FIGURE"]);

/** Whether `el` is or holds a table, list, code block or figure. */
function holdsStructure(el: Element): boolean {
  if (STRUCTURED.has(el.nodeName)) return true;
  let found = false;
  walkElements(el, (child) => {
    if (found) return false;
    if (STRUCTURED.has(child.nodeName)) found = true;
    return !found;
  });
  return found;
}

/**
 * Neutral text (short lines, table cells, list items) weighs nothing, so a product's specification
 * table beside its description would be left out. Widen to the parent while it adds no bad text and
 * what it adds holds such structure (a bare headline or byline does not widen it).
 */
function widen(container: Element, root: Element, tallies: Tallies): Element {
  let current = container;
  while (current !== root && current.parentElement) {
    const parent = current.parentElement;
    const inner = tallyOf(tallies, current);
    const outer = tallyOf(tallies, parent);
    if (outer.bad > inner.bad) break;
    let adds = false;
    for (let sibling = parent.firstElementChild; sibling && !adds; sibling = sibling.nextElementSibling) {
      if (sibling !== current && holdsStructure(sibling)) adds = true;
    }
    if (!adds) break;
    current = parent;
  }
  return current;
}

/** A sentence that introduces the list after it ("Many patches were sent for review:"). */
const INTRO_MAX_CHARS = 300;
const INTRO_MIN_WORDS = 4;

/** Text set wholly in bold is a label ("YOU MIGHT ALSO LIKE:"), not a sentence of the text. */
function allBold(el: Element, text: string): boolean {
  let bold = "";
  for (const tag of ["strong", "b"])
    for (const b of el.getElementsByTagName(tag)) bold += b.textContent ?? "";
  return bold.replace(/\s+/g, "").length >= text.replace(/\s+/g, "").length;
}

/**
 * Lists the text itself introduces: the element before the list (or before the wrapper it is alone in)
 * is a sentence of a few words ending with a colon. Their links are what the sentence announced, not a
 * menu; a heading, a bold label or a furniture label ("In this post:", "YOU MIGHT ALSO LIKE:", "More on
 * HBS:") introduces nothing.
 */
function introducedLists(container: Element): Element[] {
  const lists: Element[] = [];
  for (const tag of ["ul", "ol"])
    for (const list of container.getElementsByTagName(tag)) {
      let outer: Element = list;
      while (
        outer.parentElement &&
        outer.parentElement !== container &&
        outer.parentElement.childElementCount === 1
      )
        outer = outer.parentElement;
      const before = outer.previousElementSibling;
      if (!before || !isBlockTag(before.nodeName) || HEADINGS.has(before.nodeName)) continue;
      const text = (before.textContent ?? "").replace(/\s+/g, " ").trim();
      if (text.length > INTRO_MAX_CHARS || !text.endsWith(":") || FURNITURE_TEXT.test(text)) continue;
      if (text.split(" ").length >= INTRO_MIN_WORDS && !allBold(before, text)) lists.push(list);
    }
  return lists;
}

/**
 * Inside the chosen container: link lists and furniture labels that carry no content (`keep` stays, and
 * so do lists the text introduces).
 */
function pruneInside(container: Element, tallies: Tallies, given: Element[] = []): void {
  const keep = [...given, ...introducedLists(container)];
  const doomed: Element[] = [];
  walkElements(container, (el) => {
    const t = tallies.of.get(el);
    if (!t) return false;
    if (keep.some((k) => k.contains(el))) return false;
    if (keep.some((k) => el.contains(k))) return true;
    // Items that say what their link holds are a reading list, not a menu (see isDescribedLink).
    const bad = t.bad - t.described;
    if (bad > 0 && t.good <= 0.25 * bad && isBlockTag(el.nodeName)) {
      doomed.push(el);
      return false;
    }
    return true;
  });
  for (const el of doomed) el.remove();
}

/**
 * For pages too short for the text statistics: the page's one <article>, else its one <main>
 * (or role=main), when it holds most of the page's text. HTML5 says that is the main content.
 */
function semanticContainer(body: Element, tallies: Tallies): Element | undefined {
  const pageChars = tallyOf(tallies, body).chars;
  for (const selector of ["article", "main, [role=main]"]) {
    const found = body.querySelectorAll(selector);
    if (found.length !== 1) continue;
    const el = found[0] as Element;
    if (pageChars > 0 && tallyOf(tallies, el).chars >= 0.5 * pageChars) return el;
  }
  return undefined;
}

/**
 * The main content under `root` (a document's <html> or <body>, already stripped of never-content),
 * mutating the tree. Falls back to `root` when nothing credible is found.
 */
/** Another run of cards joins the main one when it holds this share of its text... */
const SIBLING_GRID_SHARE = 0.25;
/** ...and the element holding both is mostly cards. */
const SIBLING_GRID_SPREAD = 3;

const CHROME_TAGS = new Set(["NAV", "FOOTER", "ASIDE"]);
const CHROME_ROLES = new Set(["navigation", "contentinfo", "complementary"]);

/** Whether `el` sits in the site's navigation, footer or sidebar: their link columns are not the page's items. */
function inSiteChrome(el: Element, body: Element): boolean {
  for (let up: Element | null = el; up && up !== body; up = up.parentElement) {
    if (CHROME_TAGS.has(up.nodeName)) return true;
    const role = up.getAttribute("role");
    if (role && CHROME_ROLES.has(role.trim().toLowerCase())) return true;
  }
  return false;
}

/** A chapter's own table of contents, by the names documentation generators give it. */
const TOC_NAME =
  /(?:^|[\s_-])(?:toc|toctree(?:-wrapper)?|table-?of-?contents|chapter-?contents)(?:$|[\s_-])/i;
/** A chapter's opening page says little itself: an introduction of a paragraph or two. */
const CHAPTER_INTRO_CHARS = 1000;
/** Link text the chapter may hold outside its contents, against its prose. */
const CHAPTER_LINK_SHARE = 0.25;
/** How far above the introduction the chapter's element may sit. */
const CHAPTER_LEVELS = 3;

/** Fewest entries of a chapter's contents. */
const MIN_TOC_LINKS = 3;

/** Links mostly to other pages: an "on this page" list, whose links jump within the page, is navigation. */
function listsPages(toc: Element): boolean {
  const links = toc.querySelectorAll("a[href]");
  let elsewhere = 0;
  for (const a of links) if (!a.getAttribute("href")?.startsWith("#")) elsewhere++;
  return links.length >= MIN_TOC_LINKS && elsewhere >= 0.5 * links.length;
}

/**
 * A documentation chapter's opening page: its title, its table of contents and a short introduction,
 * all in the chapter's element. The contents list is most of what the page offers (each section is a
 * page of its own), though as a list of links it weighs as navigation; beside a chapter's title it is not.
 */
function chapterOf(
  container: Element,
  body: Element,
  tallies: Tallies,
): { root: Element; toc: Element } | undefined {
  const intro = tallyOf(tallies, container).good;
  if (intro >= CHAPTER_INTRO_CHARS) return undefined;
  let up: Element | null = container;
  for (let level = 0; up && up !== body && level <= CHAPTER_LEVELS; level++, up = up.parentElement) {
    let toc: Element | undefined;
    let good = up === container ? 0 : intro;
    let bad = 0;
    for (let part = up.firstElementChild; part; part = part.nextElementSibling) {
      if (up !== container && part.contains(container)) continue;
      if (!toc && TOC_NAME.test(namesOf(part)) && !FURNITURE_TAGS.has(part.nodeName) && listsPages(part)) {
        toc = part;
        continue;
      }
      const t = tallyOf(tallies, part);
      good += t.good;
      bad += t.bad;
    }
    // Besides its contents the chapter holds prose, its title and a few links within sentences.
    if (bad > CHAPTER_LINK_SHARE * good) return undefined;
    const title = up.querySelector("h1, h2");
    if (toc && title && !toc.contains(title)) return { root: up, toc };
  }
  return undefined;
}

/** Grid pages: the repeated items, with the page's heading and intro when they sit close above. */
function gridContainer(
  body: Element,
  tallies: Tallies,
  grid = findItemGrid(body, tallies),
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

/**
 * On a product page, repeated item cards are other products (similar items, also bought, recently
 * viewed): they go, with the heading that introduces them. Items that make most of the page are what
 * the page is about (a category page taken for a product page): they stay.
 */
const SECTION_EXTRA_CHARS = 200;
const OTHER_ITEMS_MAX_SHARE = 0.5;

/** An FAQ: items that each open with a question. It is about this page's offer, not other items. */
const isQuestionList = (items: Element[]) =>
  items.filter((el) => el.firstElementChild?.textContent?.trim().endsWith("?")).length >= 0.6 * items.length;

function removeOtherItems(container: Element, tallies: Tallies): void {
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

/** Types whose content may be many sections of one body (a product has its own gathering, a thread its posts). */
const PARTS_OF_ONE_BODY = new Set<PageType>(["service", "article", "documentation", "listing", "collection"]);
/** A pick holding less than this share of the page's good text is likely one section of several. */
const SECTIONS_SHARE = 0.6;

/**
 * A landing page tells its story in sections (the offer, what it does, who uses it, the price), each
 * with a heading and a short text; the text statistics pick one of them, often the one with the most
 * prose (testimonials). Climb from the pick while it holds little of the page's good text and each
 * step adds more good text than link lists and furniture.
 */
function gatherSections(
  picked: Element,
  body: Element,
  tallies: Tallies,
  pageGood: number,
  bands: boolean,
): Element {
  let container = picked;
  while (
    container !== body &&
    container.parentElement &&
    tallyOf(tallies, container).good < SECTIONS_SHARE * pageGood
  ) {
    const inner = tallyOf(tallies, container);
    const outer = tallyOf(tallies, container.parentElement);
    if (outer.bad - inner.bad > outer.good - inner.good && !(bands && amongBands(container, tallies))) break;
    container = container.parentElement;
  }
  return container;
}

/** Fewest sibling bands from one template (besides the pick) that make a landing page's sections. */
const MIN_BANDS = 2;

/**
 * A landing page's sections come from one template (`<section class="band">` after band): the pick is
 * one of them when its siblings are alike and most of them say something. Their cards and logo rows
 * weigh as link lists, but they are the page's story as much as the band with the most prose.
 */
function amongBands(el: Element, tallies: Tallies): boolean {
  const own = signature(el);
  let alike = 0;
  let saying = 0;
  for (let c = el.parentElement?.firstElementChild; c; c = c.nextElementSibling) {
    if (c === el || signature(c) !== own || tallyOf(tallies, c).chars === 0) continue;
    alike++;
    if (tallyOf(tallies, c).good > 0) saying++;
  }
  return alike >= MIN_BANDS && saying * 2 >= alike;
}

/** Prose and items apart: both, through their nearest shared ancestor, unless it carries much besides. */
function besides(prose: Element, items: Element, tallies: Tallies): Element {
  if (items.contains(prose)) return items;
  const shared = sharedAncestor(prose, items);
  const both = tallyOf(tallies, prose).chars + tallyOf(tallies, items).chars;
  return shared && tallyOf(tallies, shared).chars <= 1.3 * both ? shared : items;
}

const PRICE = /(?:[$€£¥₹]\s?\d[\d.,]*|\d[\d.,]*\s?(?:€|kr|zł|USD|EUR|GBP))/g;
/** Class tokens of one post or message of a thread, as forum engines name them. */
const POST_TOKEN =
  /^(?:post|message|reply|answer|topic-post|forum-post|postbody|post-body|message-body|messagecontent|cooked|bbwrapper|js-post|comment-body|post-message|post_message|postcontainer|post-container|posttext|(?:discussion-?board|thread|topic|forum)(?:-|__)(?:item|post|reply|message|entry))$/i;

const BLOG_ENTRY = /(?:^|\s)(?:type-post|hentry|status-publish)(?:\s|$)/;

/** What a service or product page asks its reader to do. */
const CALL_TO_ACTION =
  /^\s*(?:get started|get a (?:quote|demo)|request a (?:quote|demo|consultation)|book a (?:demo|call|consultation)|contact (?:us|sales)|talk to (?:sales|an expert)|start (?:your )?free trial|try (?:it )?(?:for )?free|schedule (?:a )?(?:call|consultation|demo)|sign up(?: free)?|get in touch|free consultation|apply now|enroll now)\b/i;

const HEADINGS = new Set(["H1", "H2", "H3", "H4", "H5", "H6"]);
const FIELDS = new Set(["INPUT", "SELECT", "TEXTAREA"]);

/** `text`: the body's text content, measured once by the caller. */
function bodyShape(body: Element, tallies: Tallies, grid: ItemGrid | undefined, text: string): BodyShape {
  const pageChars = Math.max(1, tallyOf(tallies, body).chars);
  let codeBlocks = 0;
  let posts = 0;
  let calls = 0;
  let headings = 0;
  let fields = 0;
  let tables = 0;
  let images = 0;
  let links = 0;
  let times = 0;
  walkElements(body, (el) => {
    const tag = el.nodeName;
    if (tag === "PRE") codeBlocks++;
    else if (HEADINGS.has(tag)) headings++;
    else if (FIELDS.has(tag)) fields++;
    else if (tag === "TABLE") tables++;
    else if (tag === "IMG") images++;
    else if (tag === "TIME") times++;
    if (tag === "A") links++;
    if ((tag === "A" || tag === "BUTTON") && CALL_TO_ACTION.test(el.textContent ?? "")) calls++;
    const cls = classOf(el);
    // WordPress classes every entry of a blog "post" ("post type-post hentry"): a list of articles, no thread.
    if (cls && !BLOG_ENTRY.test(cls))
      for (const token of cls.split(/\s+/)) if (POST_TOKEN.test(token)) posts++;
    return true;
  });
  let linkChars = 0;
  for (const b of tallies.blocks) linkChars += b.linkChars;
  const priced = (el: Element) => (el.textContent ?? "").search(PRICE) >= 0;
  return {
    items: grid?.items.length ?? 0,
    itemShare: grid ? grid.chars / pageChars : 0,
    pricedItems: grid ? grid.items.filter(priced).length : 0,
    prices: text.match(PRICE)?.length ?? 0,
    codeBlocks,
    posts,
    calls,
    paragraphs: tallies.blocks.filter((b) => b.el.nodeName === "P" && b.chars >= 150).length,
    chars: pageChars,
    linkShare: linkChars / pageChars,
    goodShare: tallyOf(tallies, body).good / pageChars,
    headings,
    fields,
    tables,
    images,
    links,
    times,
  };
}

/** Pages whose cards and offer carry shop controls (add to cart, quick view, compare). */
const SHOP_TYPES = new Set<PageType>(["product", "collection", "listing"]);

/** Pages whose content is repeated items rather than one body of prose. */
const GRID_TYPES = new Set<PageType>(["collection", "listing", "service", "documentation"]);

export interface ExtractOptions {
  /** What the page's head and URL say (see page-type.ts). */
  hints?: PageHints;
  /** The page's type when the caller knows it; otherwise it is classified here. */
  pageType?: PageType;
}

/** An extraction left with less text than this, from a page with several times more, found nothing. */
const MIN_EXTRACTED_CHARS = 100;

/** What the classifier reads of a body cleaned for extraction (see pageFeatures). */
export function pageTypeFeatures(body: Element, hints: PageHints): Map<string, number> {
  const tallies = tally(body);
  return pageFeatures(hints, bodyShape(body, tallies, findItemGrid(body, tallies), body.textContent ?? ""));
}

export function extractMainContent(root: Element, opts: ExtractOptions = {}): MainContent {
  const body = root.nodeName === "HTML" ? (root.querySelector("body") ?? root) : root;
  const text = body.textContent ?? "";
  const pageChars = text.replace(/\s+/g, "").length;
  const main = choose(root, body, opts, text);
  // A container named as the content that the page's scripts were to fill, say: not the content.
  if (
    main.status === "extracted" &&
    pageChars >= 4 * MIN_EXTRACTED_CHARS &&
    textChars(main.root) < MIN_EXTRACTED_CHARS
  )
    return { root, status: "fallback_whole_page", pageType: main.pageType };
  return main;
}

function choose(root: Element, body: Element, opts: ExtractOptions, text: string): MainContent {
  const first = tally(body);
  const pageGood = tallyOf(first, body).good;
  const firstGrid = findItemGrid(body, first);
  const pageType =
    opts.pageType ??
    classifyPage(
      opts.hints ?? { schemaTypes: new Set(), path: "", host: "" },
      bodyShape(body, first, firstGrid, text),
    ).type;
  const grids = GRID_TYPES.has(pageType);
  if (pageGood < MIN_GOOD_CHARS && grids) {
    const grid =
      firstGrid && !inSiteChrome(firstGrid.parent, body) ? gridContainer(body, first, firstGrid) : undefined;
    if (grid) {
      if (SHOP_TYPES.has(pageType)) removeShopControls(grid.container);
      dropRepeatedAlts(grid.container);
      return { root: grid.container, status: "extracted", pageType };
    }
  }
  if (pageGood < MIN_GOOD_CHARS) {
    const semantic = semanticContainer(body, first);
    if (!semantic) return { root, status: "fallback_whole_page", pageType };
    // A product's name is mostly its brand's link, yet it is the page's title.
    const name = pageType === "product" ? semantic.querySelector("h1") : null;
    pruneInside(semantic, first, name ? [name] : []);
    return { root: semantic, status: "extracted", pageType };
  }

  // A thread's replies are its content; on a Q&A page the answers are, and the comments under them are not.
  const qa = opts.hints?.schemaTypes.has("qapage") || /\/questions\/\d+/.test(opts.hints?.path ?? "");
  removeFurniture(body, first, DOMINANT_SHARE * pageGood, pageGood, pageType === "forum" && !qa);
  if (pageType === "product") {
    removeProductAsides(body);
    removeOtherItems(body, tally(body));
  }
  const tallies = tally(body);
  const grid = grids ? gridContainer(body, tallies) : undefined;
  const leftGood = tallyOf(tallies, body).good;
  const picked =
    hintedContainer(body, tallies, leftGood) ?? widen(bestContainer(body, tallies), body, tallies);
  const container = PARTS_OF_ONE_BODY.has(pageType)
    ? gatherSections(picked, body, tallies, leftGood, pageType === "service")
    : picked;
  if (grid) {
    // The prose pick holds the items too (a category page with its intro): keep it whole, items and all.
    const chosen = container.contains(grid.container)
      ? container
      : besides(container, grid.container, tallies);
    pruneInside(chosen, tallies, [grid.items]);
    if (SHOP_TYPES.has(pageType)) removeShopControls(chosen);
    dropRepeatedAlts(chosen);
    return { root: chosen, status: "extracted", pageType };
  }
  const chapter = pageType === "documentation" ? chapterOf(container, body, tallies) : undefined;
  if (chapter) {
    pruneInside(chapter.root, tallies, [chapter.toc]);
    return { root: chapter.root, status: "extracted", pageType };
  }
  const good = tallyOf(tallies, container).good;
  // Against what is left: comment sections, gone now, often outweigh the article.
  if (good < MIN_GOOD_CHARS || good < MIN_GOOD_SHARE * leftGood) {
    return { root, status: "fallback_whole_page", pageType };
  }
  if (pageType === "product") {
    const product = gatherProduct(body, container);
    for (const piece of product.pieces) pruneInside(piece, tallies, product.keep);
    if (product.root) {
      removeShopControls(product.root);
      dropRepeatedAlts(product.root);
      return { root: product.root, status: "extracted", pageType };
    }
  } else pruneInside(container, tallies);
  if (SHOP_TYPES.has(pageType)) removeShopControls(container);
  dropRepeatedAlts(container);
  if (pageType === "forum") {
    removePostChrome(container);
    removeRepeatedQuotes(container);
  }
  return { root: container, status: "extracted", pageType };
}
