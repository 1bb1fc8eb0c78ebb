/**
 * Controls of a shop or a service page that say nothing about what is on offer: "Add to cart",
 * "Quick view", "Compare", "Learn more" links and buttons on each card, sort and filter labels. A
 * reader of the markdown cannot press them; the card's title, price and link stay.
 */
import { removeLabels } from "./labels.ts";

const CONTROL =
  /^(?:add to (?:cart|bag|basket|compare|wishlist|wish list|favou?rites)|quick ?(?:view|shop|add|look)|compare|add to compare|save|(?:view|see|more|select|choose) options|view (?:full )?details|see details|shop now|learn more|more info|be the first to review(?: this product)?|write a review|sort(?: by)?(?::.*)?|filters?|show filters|hide filters|load more|view all|see all|notify me(?: when available)?|rating:?)$/i;

const CONTROL_TAGS = new Set(["A", "BUTTON", "LABEL", "SPAN", "DIV", "P", "LI"]);
const MAX_CONTROL_CHARS = 40;

export function removeShopControls(container: Element): void {
  removeLabels(container, { pattern: CONTROL, maxChars: MAX_CONTROL_CHARS, tags: CONTROL_TAGS });
}
