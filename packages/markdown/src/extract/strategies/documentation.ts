/**
 * Documentation: a page of prose and code in sections, an index of cards, or a chapter's opening page
 * whose contents list is most of what it offers (chapter.ts).
 */
import { chapterOf } from "../chapter.ts";
import type { PageStrategy } from "./strategy.ts";
import { NEVER } from "./strategy.ts";

export const documentation: PageStrategy = {
  type: "documentation",
  itemGrid: true,
  shopControls: false,
  sections: "gather",
  keepsComments: NEVER,
  instead(picked, body, tallies) {
    const chapter = chapterOf(picked, body, tallies);
    return chapter ? { root: chapter.root, keep: [chapter.toc] } : undefined;
  },
};
