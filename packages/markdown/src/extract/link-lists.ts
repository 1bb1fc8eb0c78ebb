/**
 * Inside the chosen container: link lists and furniture labels that carry no content go, except what
 * the caller keeps and lists the text itself introduces ("Many patches were sent for review:").
 * Tests: test/main-content.test.ts ("onlyMainContent on a report whose text introduces lists of links",
 * "onlyMainContent on a documentation page's reading lists").
 */
import { walkElements } from "../dom.ts";
import { HEADING_TAGS, isBlockTag } from "./blocks.ts";
import { FURNITURE_TEXT } from "./patterns.ts";
import type { Tallies } from "./score.ts";

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
      if (!before || !isBlockTag(before.nodeName) || HEADING_TAGS.has(before.nodeName)) continue;
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
export function pruneLinkLists(container: Element, tallies: Tallies, given: Element[] = []): void {
  const keep = [...given, ...introducedLists(container)];
  const doomed: Element[] = [];
  walkElements(container, (el) => {
    const t = tallies.of.get(el);
    if (!t) return false;
    if (keep.some((k) => k.contains(el))) return false;
    if (keep.some((k) => el.contains(k))) return true;
    // A table with header cells is data (a board index's forums and last posts), however many links it holds.
    if (el.nodeName === "TABLE" && el.querySelector("th")) return false;
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
