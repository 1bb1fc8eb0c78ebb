/**
 * Main-content extraction on a parsed document: drop page furniture that is not the bulk of the text,
 * pick the element whose text is most content-like, then prune what is left of furniture inside it.
 * The steps are the same on every page; what the content of a page is depends on its type, whose
 * strategy (strategies/) says which steps apply and adds its own. Each rule is a module of its own,
 * named for what it does. Pure DOM work on the caller's (private) document; linear in its size apart
 * from ancestor walks.
 */
import { sharedAncestor, textChars } from "../dom.ts";
import { bodyShape } from "./body-shape.ts";
import { furnitureAround, removeFurniture } from "./furniture.ts";
import { besides, gridContainer, inSiteChrome } from "./grid-container.ts";
import { findItemGrid, type ItemGrid } from "./item-grid.ts";
import { pruneLinkLists } from "./link-lists.ts";
import { classifyPage, type PageHints, type PageType } from "./page-type.ts";
import { pickContainer } from "./pick-container.ts";
import { type Tallies, tally, tallyOf } from "./score.ts";
import { gatherSections } from "./sections.ts";
import { semanticContainer } from "./semantic-container.ts";
import { STRATEGIES } from "./strategies/index.ts";
import { finishContent, type PageStrategy, tidyContent } from "./strategies/strategy.ts";

/**
 * `extracted`: the content chosen for the page's type. `fallback_candidate`: that came out a sliver of
 * another candidate (see SLIVER_SHARE), which is taken instead. `fallback_whole_page`: nothing credible.
 */
export type MainContentStatus = "extracted" | "fallback_candidate" | "fallback_whole_page";

/**
 * What extraction found: a MainContentStatus, or `page_cleaned`: nothing credible, and the root given is
 * the page already cleaned of its furniture (told as fallback_whole_page, without parsing it again).
 */
export type ExtractStatus = MainContentStatus | "page_cleaned";

export interface MainContent {
  /** The element to convert: the main content, the page cleaned, or the root itself on fallback. */
  root: Element;
  status: ExtractStatus;
  pageType: PageType;
}

/** What choose() also found: the other elements that could have been the content. */
interface Chosen extends MainContent {
  candidates: Element[];
}

/** An element holding at least this share of the page's good text is never furniture. */
const DOMINANT_SHARE = 0.7;
/** The chosen element must hold this many good characters, and this share of the page's, to be credible. */
const MIN_GOOD_CHARS = 120;
const MIN_GOOD_SHARE = 0.3;

export interface ExtractOptions {
  /** What the page's head and URL say (see page-type.ts). */
  hints?: PageHints;
  /** The page's type when the caller knows it; otherwise it is classified here. */
  pageType?: PageType;
}

/** An extraction left with less text than this, from a page with several times more, found nothing. */
const MIN_EXTRACTED_CHARS = 100;
/**
 * Content holding less than this share of the text of another candidate (the pick before the type's own
 * narrowing, or the page's one <main> or <article>) is a sliver of it: a tutorial cut to its first step,
 * a catalogue to its header. The candidate is taken instead.
 */
const SLIVER_SHARE = 0.2;

/**
 * The main content under `root` (a document's <html> or <body>, already stripped of never-content),
 * mutating the tree. Falls back to `root` when nothing credible is found.
 */
export function extractMainContent(root: Element, opts: ExtractOptions = {}): MainContent {
  const body = root.nodeName === "HTML" ? (root.querySelector("body") ?? root) : root;
  const text = body.textContent ?? "";
  const pageChars = text.replace(/\s+/g, "").length;
  const { candidates, ...main } = choose(root, body, opts, text);
  if (main.status !== "extracted") return main;
  const got = textChars(main.root);
  const larger = largest(candidates.filter((c) => c !== body && c !== root && c !== main.root));
  if (larger && got < SLIVER_SHARE * larger.chars && larger.chars >= MIN_EXTRACTED_CHARS)
    return { root: larger.el, status: "fallback_candidate", pageType: main.pageType };
  // A container named as the content that the page's scripts were to fill, say: not the content.
  if (pageChars >= 4 * MIN_EXTRACTED_CHARS && got < MIN_EXTRACTED_CHARS)
    return { root, status: "fallback_whole_page", pageType: main.pageType };
  return main;
}

function largest(els: Element[]): { el: Element; chars: number } | undefined {
  let best: { el: Element; chars: number } | undefined;
  for (const el of els) {
    const chars = textChars(el);
    if (!best || chars > best.chars) best = { el, chars };
  }
  return best;
}

/** The page's one <main> (or role=main), else its one <article>: where HTML5 says the content is. */
function semanticMain(body: Element): Element[] {
  for (const selector of ["main, [role=main]", "article"]) {
    const found = body.querySelectorAll(selector);
    if (found.length === 1) return [found[0] as Element];
  }
  return [];
}

/**
 * The cards of a page with little prose, with the page's heading and intro: measured once the site's
 * chrome is set aside (a copy of the page without its furniture), so that a short run of cards under a
 * banner (a few events, a few offers) keeps its title however much header, menu and footer the page has.
 */
function shortGridContainer(body: Element, first: Tallies, firstGrid: ItemGrid) {
  const plain = gridContainer(body, first, firstGrid);
  const h1 = body.querySelector("h1");
  if (!plain || !h1 || plain.container.contains(h1)) return plain;
  const shared = sharedAncestor(plain.container, h1);
  if (!shared) return plain;
  const chrome = furnitureAround(shared, first, [plain.container, h1]);
  const chromeChars = chrome.reduce((sum, el) => sum + tallyOf(first, el).chars, 0);
  if (tallyOf(first, shared).chars - chromeChars > TITLE_CLIMB * tallyOf(first, plain.container).chars)
    return plain;
  for (const el of chrome) el.remove();
  return { container: shared, items: plain.items };
}

/** The page's heading joins its cards when, chrome set aside, the two together are at most this times the cards. */
const TITLE_CLIMB = 1.5;

/**
 * A short page whose cards or <main> did not stand out against the site's chrome (a mega menu is the
 * first run of cards, a long sidebar outweighs a tutorial's <main>): the same questions once the
 * furniture is set aside, as a page with prose gets it. The cards with the page's heading, else the one
 * <article> or <main>, else what is left of the body: the whole page cleaned of the site's chrome.
 */
function shortPageWithoutChrome(
  body: Element,
  first: Tallies,
  pageGood: number,
  strategy: PageStrategy,
  opts: ExtractOptions,
): { root: Element; status: ExtractStatus } | undefined {
  removeFurniture(
    body,
    first,
    DOMINANT_SHARE * Math.max(pageGood, 1),
    pageGood,
    strategy.keepsComments(opts.hints),
  );
  const tallies = tally(body);
  if (tallyOf(tallies, body).chars === 0) return undefined;
  const grid = strategy.itemGrid ? findItemGrid(body, tallies) : undefined;
  const cards =
    grid && !inSiteChrome(grid.parent, body) ? shortGridContainer(body, tallies, grid) : undefined;
  if (cards) {
    tidyContent(strategy, cards.container);
    return { root: cards.container, status: "extracted" };
  }
  // Link lists stay: with the chrome gone, on a page with this little prose they are what it offers.
  const semantic = semanticContainer(body, tallies);
  if (semantic) {
    tidyContent(strategy, semantic);
    return { root: semantic, status: "extracted" };
  }
  tidyContent(strategy, body);
  return { root: body, status: "page_cleaned" };
}

function choose(root: Element, body: Element, opts: ExtractOptions, text: string): Chosen {
  const first = tally(body);
  const pageGood = tallyOf(first, body).good;
  const firstGrid = findItemGrid(body, first);
  const pageType =
    opts.pageType ??
    classifyPage(
      opts.hints ?? { schemaTypes: new Set(), path: "", host: "" },
      bodyShape(body, first, firstGrid, text),
    ).type;
  const strategy = STRATEGIES[pageType];
  let candidates: Element[] = [];
  const extracted = (content: Element): Chosen => ({
    root: content,
    status: "extracted",
    pageType,
    candidates: [...candidates, ...semanticMain(body)],
  });
  const fallback: Chosen = { root, status: "fallback_whole_page", pageType, candidates: [] };

  // Too little prose for the text statistics: the item cards, else the page's one <article> or <main>.
  if (pageGood < MIN_GOOD_CHARS && strategy.itemGrid) {
    const grid =
      firstGrid && !inSiteChrome(firstGrid.parent, body)
        ? shortGridContainer(body, first, firstGrid)
        : undefined;
    if (grid) {
      tidyContent(strategy, grid.container);
      return extracted(grid.container);
    }
  }
  if (pageGood < MIN_GOOD_CHARS) {
    const semantic = semanticContainer(body, first);
    if (semantic) {
      pruneLinkLists(semantic, first, strategy.keepOnShortPage?.(semantic) ?? []);
      return extracted(semantic);
    }
    const found = shortPageWithoutChrome(body, first, pageGood, strategy, opts);
    if (!found) return fallback;
    return found.status === "extracted" ? extracted(found.root) : { ...found, pageType, candidates: [] };
  }

  removeFurniture(body, first, DOMINANT_SHARE * pageGood, pageGood, strategy.keepsComments(opts.hints));
  strategy.beforePick?.(body);
  const tallies = tally(body);
  const grid = strategy.itemGrid ? gridContainer(body, tallies) : undefined;
  const leftGood = tallyOf(tallies, body).good;
  const picked = pickContainer(body, tallies, leftGood);
  candidates = [picked];
  const container =
    strategy.sections === "one"
      ? picked
      : gatherSections(picked, body, tallies, leftGood, strategy.sections === "bands");
  if (grid) {
    // The prose pick holds the items too (a category page with its intro): keep it whole, items and all.
    const chosen = container.contains(grid.container)
      ? container
      : besides(container, grid.container, tallies);
    pruneLinkLists(chosen, tallies, [grid.items]);
    tidyContent(strategy, chosen);
    return extracted(chosen);
  }
  const instead = strategy.instead?.(container, body, tallies);
  if (instead) {
    pruneLinkLists(instead.root, tallies, instead.keep);
    return extracted(instead.root);
  }
  const good = tallyOf(tallies, container).good;
  // Against what is left: comment sections, gone now, often outweigh the article.
  if (good < MIN_GOOD_CHARS || good < MIN_GOOD_SHARE * leftGood) return fallback;
  return extracted(
    strategy.finish ? strategy.finish(container, body, tallies) : finishContent(strategy, container, tallies),
  );
}
