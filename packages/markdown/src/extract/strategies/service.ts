/**
 * A service's landing page: its story in sections (the offer, what it does, who uses it, the price),
 * often bands from one template whose cards and logo rows weigh as link lists (sections.ts), or a grid
 * of its offers.
 */
import type { PageStrategy } from "./strategy.ts";
import { NEVER } from "./strategy.ts";

export const service: PageStrategy = {
  type: "service",
  itemGrid: true,
  shopControls: false,
  sections: "bands",
  keepsComments: NEVER,
};
