/**
 * A product page's content is the product: name, price, description, specifications. Its reviews,
 * questions and answers, and rails of other products are sections of their own, introduced by a
 * heading that says so or named so in the markup; they go, each with the section it heads.
 */
import { textChars, walkElements } from "../dom.ts";
import { collapseSpaces } from "../parse.ts";
import { namesOf } from "./patterns.ts";

const HEADINGS = new Set(["H1", "H2", "H3", "H4", "H5", "H6"]);

/** What a heading over a section that is not the product says. */
const NOT_THE_PRODUCT =
  /^(?:(?:(?:customer|product|guest|verified|top|all|most|helpful|favou?rable|critical|positive|negative|featured|recent|latest|\d[\d,.]*)\s+)+reviews?|reviews|ratings?(?:\s*(?:&|and)\s*reviews?)?|reviews?\s*(?:&|and)\s*ratings?|questions?\s*(?:&|and)\s*answers?|(?:what )?customers (?:are )?say(?:ing)?(?: about (?:it|this (?:item|product)))?|q\s*&\s*a|customer questions.*|(?:you (?:may|might) also (?:like|love|need)|customers (?:also|who) (?:bought|viewed).*|frequently bought together|recently viewed.*|similar (?:items|products).*|related (?:items|products)|more from .*|shop the look|complete the look|pairs well with|people also (?:bought|viewed).*|compare (?:similar|with similar).*|sponsored products.*))\s*(?:\(\d[\d,.]*\))?\s*$/i;

/** Markup names (a whole class token or id) of review and Q&A widgets and rails of other products. */
const WIDGET_NAME =
  /^(?:(?:product|customer|pdp|ratings?)[-_]?reviews?|reviews?(?:[-_]?(?:section|container|widget|wrapper|list|item|card|tile|entry))?|individual[-_]?reviews?|bazaarvoice|bv[-_]?reviews|yotpo[-_]?(?:reviews?|main[-_]widget)|jdgm[-_]?(?:widget|review-widget)|okendo[-_]?reviews?|stamped[-_]?(?:main[-_]widget|reviews)|questions?[-_]?(?:and[-_]?)?answers?|qna|q[-_]?and[-_]?a|recently[-_]?viewed|(?:customers?[-_]?)?also[-_]?bought|upsells?|cross[-_]?sells?)$/i;

function isWidget(el: Element): boolean {
  const names = namesOf(el);
  if (!names) return false;
  for (const token of names.split(/\s+/)) if (WIDGET_NAME.test(token)) return true;
  return false;
}

/** A section taking more than this share of the page's text is the page, whatever it is called. */
const MAX_SHARE = 0.6;

function headingText(el: Element): string {
  return collapseSpaces(el.textContent ?? "");
}

/** The largest element that starts with `heading` and holds at most `limit` characters. */
export function sectionOf(heading: Element, body: Element, limit: number): Element {
  let section = heading;
  for (let up = heading.parentElement; up && up !== body; up = up.parentElement) {
    if (firstTextElement(up) !== firstTextElement(section) || textChars(up) > limit) break;
    section = up;
  }
  return section;
}

/** The first element, `el` or under it, that holds text directly. */
function firstTextElement(el: Element): Element | undefined {
  const holdsText = (e: Element) => {
    for (let n = e.firstChild; n; n = n.nextSibling)
      if (n.nodeType === 3 && (n as Text).data.trim()) return true;
    return false;
  };
  if (holdsText(el)) return el;
  let found: Element | undefined;
  walkElements(el, (child) => {
    if (found) return false;
    if (holdsText(child)) found = child;
    return !found;
  });
  return found;
}

export function removeProductAsides(body: Element): void {
  const limit = MAX_SHARE * textChars(body);
  const doomed: Element[] = [];
  walkElements(body, (el) => {
    if (el.nodeName === "H1") return false;
    if (HEADINGS.has(el.nodeName) || el.getAttribute("role") === "heading") {
      if (NOT_THE_PRODUCT.test(headingText(el))) doomed.push(sectionOf(el, body, limit));
      return false;
    }
    if (isWidget(el) && !el.querySelector("h1") && textChars(el) <= limit) {
      doomed.push(el);
      return false;
    }
    return true;
  });
  for (const el of doomed) el.remove();
}
