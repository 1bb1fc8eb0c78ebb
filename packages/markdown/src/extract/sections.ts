/**
 * A page whose content is many sections of one body (a landing page tells its story in sections: the
 * offer, what it does, who uses it, the price), each with a heading and a short text; the text
 * statistics pick one of them, often the one with the most prose (testimonials). The content is
 * gathered by climbing from that pick.
 * Tests: test/main-content.test.ts ("keeps every band of a landing page...", "gathers a landing page's
 * bands from one template...").
 */
import { signature } from "./item-grid.ts";
import { type Tallies, tallyOf } from "./score.ts";

/** A pick holding less than this share of the page's good text is likely one section of several. */
const SECTIONS_SHARE = 0.6;

/**
 * Climb from the pick while it holds little of the page's good text and each step adds more good text
 * than link lists and furniture (or, with `bands`, while the pick is one of a landing page's bands).
 */
export function gatherSections(
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
