/**
 * The element whose text is most content-like: one named as the content (a content class, id or
 * itemprop, or an <article>) when it holds enough of the good text, else the best-scoring element,
 * widened to the tables and lists beside it.
 * Tests: test/main-content.test.ts ("onlyMainContent on a news article", "keeps a product description and
 * its specification table").
 */
import { walkElements } from "../dom.ts";
import { looksLikeContent } from "./patterns.ts";
import { type Tallies, tallyOf } from "./score.ts";

/** A hinted container must hold this share of the good text left to be taken on its name alone. */
export const HINT_SHARE = 0.3;

/** Named as the content (class, id, itemprop) or an <article>. */
export function isHinted(el: Element): boolean {
  return el.nodeName === "ARTICLE" || looksLikeContent(el);
}

/** The hinted container, else the best-scoring one widened to the structure beside it. */
export function pickContainer(body: Element, tallies: Tallies, pageGood: number): Element {
  return hintedContainer(body, tallies, pageGood) ?? widen(bestContainer(body, tallies), body, tallies);
}

/**
 * Score of an element as the main-content container: its good text less its bad, a little more for the
 * elements HTML5 names as the content. (A content class name needs no bonus here: hintedContainer has
 * already taken such an element when it holds enough of the text, and when it does not, a bonus never
 * changed the pick in any fold of the WCXB split.)
 */
function containerScore(el: Element, tallies: Tallies): number {
  const t = tallyOf(tallies, el);
  const score = t.good - t.bad;
  return el.nodeName === "ARTICLE" || el.nodeName === "MAIN" ? score + 0.1 * t.good : score;
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
