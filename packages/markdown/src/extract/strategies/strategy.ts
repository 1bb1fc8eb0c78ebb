/**
 * What main content is depends on the kind of page. Extraction runs the same steps on every page
 * (extract/index.ts); a page type's strategy says which of them apply and adds its own. One module
 * per type, looked up from the table in strategies/index.ts.
 * Tests: test/page-type.test.ts ("main content by page type"), test/pipeline.test.ts (the table).
 */
import { dropRepeatedAlts } from "../duplicate-alts.ts";
import { removeFeedbackPrompts } from "../feedback-prompts.ts";
import { pruneLinkLists } from "../link-lists.ts";
import type { PageHints, PageType } from "../page-type.ts";
import type { Tallies } from "../score.ts";
import { removeShopControls } from "../shop-controls.ts";

export interface PageStrategy {
  readonly type: PageType;
  /** The content may be a run of repeated item cards (grid-container.ts), with or without prose beside it. */
  readonly itemGrid: boolean;
  /** Its cards and offer carry shop controls (add to cart, quick view, compare), which go (shop-controls.ts). */
  readonly shopControls: boolean;
  /**
   * The content may be many sections of one body: climb from the pick (sections.ts), and with "bands"
   * also across a landing page's bands from one template. "one": the pick is the content (a product has
   * its own gathering, a thread its posts).
   */
  readonly sections: "one" | "gather" | "bands";
  /** Whether reader comments and replies are the content (a thread), so a comment section is no furniture. */
  keepsComments(hints: PageHints | undefined): boolean;
  /** On a page too short for the text statistics: what pruning inside its <article> or <main> keeps. */
  keepOnShortPage?(container: Element): Element[];
  /** Once the furniture is gone and before the content is picked: what else of the page is not content. */
  beforePick?(body: Element): void;
  /** A content element other than the pick, with what pruning inside it keeps (a chapter and its contents). */
  instead?(picked: Element, body: Element, tallies: Tallies): { root: Element; keep: Element[] } | undefined;
  /** From the credible pick to the content; without it, finishContent. */
  finish?(container: Element, body: Element, tallies: Tallies): Element;
}

/** What every type's content sheds last: shop controls where it has them, feedback prompts, and alt texts said again. */
export function tidyContent(strategy: PageStrategy, content: Element): void {
  if (strategy.shopControls) removeShopControls(content);
  removeFeedbackPrompts(content);
  dropRepeatedAlts(content);
}

/** The pick is the content, without its link lists and furniture labels. */
export function finishContent(strategy: PageStrategy, container: Element, tallies: Tallies): Element {
  pruneLinkLists(container, tallies);
  tidyContent(strategy, container);
  return container;
}

/** keepsComments of every type but the forum: comment sections are furniture. */
export const NEVER = () => false;
