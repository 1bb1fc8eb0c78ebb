/**
 * A product: its name, price, description and specifications, without its reviews, its questions and
 * answers (product-sections.ts) or other products' cards (other-items.ts); gathered from separate
 * blocks when no one element holds it (product-parts.ts).
 */
import { pruneLinkLists } from "../link-lists.ts";
import { removeOtherItems } from "../other-items.ts";
import { gatherProduct } from "../product-parts.ts";
import { removeProductAsides } from "../product-sections.ts";
import { tally } from "../score.ts";
import { NEVER, type PageStrategy, tidyContent } from "./strategy.ts";

export const product: PageStrategy = {
  type: "product",
  itemGrid: false,
  shopControls: true,
  sections: "one",
  keepsComments: NEVER,
  // A product's name is mostly its brand's link, yet it is the page's title.
  keepOnShortPage(container) {
    const name = container.querySelector("h1");
    return name ? [name] : [];
  },
  beforePick(body) {
    removeProductAsides(body);
    removeOtherItems(body, tally(body));
  },
  finish(container, body, tallies) {
    const parts = gatherProduct(body, container);
    for (const piece of parts.pieces) pruneLinkLists(piece, tallies, parts.keep);
    const content = parts.root ?? container;
    tidyContent(product, content);
    return content;
  },
};
