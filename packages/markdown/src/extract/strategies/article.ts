/** An article: one body of prose, which may come in several sections. */
import type { PageStrategy } from "./strategy.ts";
import { NEVER } from "./strategy.ts";

export const article: PageStrategy = {
  type: "article",
  itemGrid: false,
  shopControls: false,
  sections: "gather",
  keepsComments: NEVER,
};
