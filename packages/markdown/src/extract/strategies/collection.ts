/** A collection (a shop's category, search results): every item card with the page's heading and intro. */
import type { PageStrategy } from "./strategy.ts";
import { NEVER } from "./strategy.ts";

export const collection: PageStrategy = {
  type: "collection",
  itemGrid: true,
  shopControls: true,
  sections: "gather",
  keepsComments: NEVER,
};
