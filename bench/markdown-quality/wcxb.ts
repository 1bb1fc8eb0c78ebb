/**
 * The WCXB development split (../shared/datasets/wcxb-dev): pages, their ground truth and page type,
 * and its scoring: word F1 on lowercase \w+ tokens as multisets, plus the share of `with` snippets
 * found and of `without` snippets avoided. A fixed part of the split is kept aside (`held`, chosen by a
 * hash of the page id) so what is measured there is not what the extractor was tuned on.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { gunzipSync } from "node:zlib";
import { multiset, overlap } from "./score.ts";

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

export interface WcxbPage {
  id: string;
  url: string;
  type: WcxbType;
  html: string;
  truth: string;
  with: string[];
  without: string[];
}

/** tune: what the extractor may be tuned on; held: the part kept aside (about one page in five). */
export type WcxbSplit = "tune" | "held" | "all";

export function defaultWcxbDir(): string {
  return resolve(
    process.env.WCXB_DATASET ?? join(import.meta.dirname, "..", "..", "..", "shared", "datasets", "wcxb-dev"),
  );
}

export function splitOf(id: string): Exclude<WcxbSplit, "all"> {
  const h = createHash("sha256").update(`wcxb:${id}`).digest();
  return (h[0] as number) % 5 === 0 ? "held" : "tune";
}

export function loadWcxb(dir = defaultWcxbDir(), split: WcxbSplit = "held"): WcxbPage[] {
  return readdirSync(join(dir, "html"))
    .filter((f) => f.endsWith(".html.gz"))
    .sort()
    .flatMap((f) => {
      const id = f.replace(/\.html\.gz$/, "");
      if (split !== "all" && splitOf(id) !== split) return [];
      const gt = JSON.parse(readFileSync(join(dir, "ground-truth", `${id}.json`), "utf8"));
      const truth: string = gt.ground_truth?.main_content ?? "";
      if (!truth.trim()) return [];
      const html = new TextDecoder("utf-8").decode(gunzipSync(readFileSync(join(dir, "html", f))));
      return [
        {
          id,
          url: gt.url ?? "",
          type: gt._internal.page_type.primary as WcxbType,
          html,
          truth,
          with: gt.ground_truth.with ?? [],
          without: gt.ground_truth.without ?? [],
        },
      ];
    });
}

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
