/**
 * Controls of a shop or a service page that say nothing about what is on offer: "Add to cart",
 * "Quick view", "Compare", "Learn more" links and buttons on each card, sort and filter labels. A
 * reader of the markdown cannot press them; the card's title, price and link stay.
 */
import { walkElements } from "../dom.ts";

const CONTROL =
  /^(?:add to (?:cart|bag|basket|compare|wishlist|wish list|favou?rites)|quick ?(?:view|shop|add|look)|compare|add to compare|save|(?:view|see|more|select|choose) options|view (?:full )?details|see details|shop now|learn more|more info|be the first to review(?: this product)?|write a review|sort(?: by)?(?::.*)?|filters?|show filters|hide filters|load more|view all|see all)$/i;

const CONTROL_TAGS = new Set(["A", "BUTTON", "LABEL", "SPAN", "DIV", "P", "LI"]);
const MAX_CONTROL_CHARS = 40;

export function removeShopControls(container: Element): void {
  const doomed: Element[] = [];
  walkElements(container, (el) => {
    if (!CONTROL_TAGS.has(el.nodeName)) return true;
    const text = el.textContent ?? "";
    if (text.length > 4 * MAX_CONTROL_CHARS) return true;
    const said = text.replace(/\s+/g, " ").trim();
    if (said.length > 0 && said.length <= MAX_CONTROL_CHARS && CONTROL.test(said)) {
      doomed.push(el);
      return false;
    }
    return true;
  });
  for (const el of doomed) el.remove();
}
