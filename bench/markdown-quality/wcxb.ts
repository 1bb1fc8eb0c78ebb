/**
 * The WCXB development split (../shared/datasets/wcxb-dev): its pages, ground truth, page types and
 * the held/tune split come from the markdown package (packages/markdown/scripts/wcxb-pages.ts, which
 * its page-type model learns from too); here is its scoring: word F1 on lowercase \w+ tokens as
 * multisets, plus the share of `with` snippets found and of `without` snippets avoided.
 */
import type { WcxbPage } from "../../packages/markdown/scripts/wcxb-pages.ts";
import { multiset, overlap } from "./score.ts";

export {
  defaultWcxbDir,
  loadWcxb,
  splitOf,
  type WcxbPage,
  type WcxbSplit,
} from "../../packages/markdown/scripts/wcxb-pages.ts";

export const PAGE_TYPES = [
  "article",
  "documentation",
  "service",
  "product",
  "collection",
  "listing",
  "forum",
] as const;
export type WcxbType = (typeof PAGE_TYPES)[number];

const WORD = /\w+/gu;
export const words = (text: string): string[] => text.toLowerCase().match(WORD) ?? [];

export interface WcxbScore {
  precision: number;
  recall: number;
  f1: number;
  /** Share of `with` snippets found in the prediction (undefined when the page has none). */
  withRate?: number;
  /** Share of `without` snippets absent from the prediction. */
  withoutRate?: number;
}

/** Word F1 of `predicted` (plain text) against the page's main content, and its snippet rates. */
export function scoreWcxb(predicted: string, page: Pick<WcxbPage, "truth" | "with" | "without">): WcxbScore {
  const { tp, gotTotal, wantTotal } = overlap(multiset(words(predicted)), multiset(words(page.truth)));
  const precision = gotTotal ? tp / gotTotal : 0;
  const recall = wantTotal ? tp / wantTotal : 0;
  const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
  const flat = ` ${words(predicted).join(" ")} `;
  const found = (s: string) => {
    const w = words(s);
    return w.length > 0 && flat.includes(` ${w.join(" ")} `);
  };
  const withs = page.with.filter((s) => words(s).length > 0);
  const withouts = page.without.filter((s) => words(s).length > 0);
  return {
    precision,
    recall,
    f1,
    ...(withs.length ? { withRate: withs.filter(found).length / withs.length } : {}),
    ...(withouts.length ? { withoutRate: withouts.filter((s) => !found(s)).length / withouts.length } : {}),
  };
}
