/** A listing (a blog's index, job ads, rankings): every entry with its link and summary. */
import type { PageStrategy } from "./strategy.ts";
import { NEVER } from "./strategy.ts";

export const listing: PageStrategy = {
  type: "listing",
  itemGrid: true,
  shopControls: true,
  sections: "gather",
  keepsComments: NEVER,
};
