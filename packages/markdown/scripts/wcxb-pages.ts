/**
 * The labelled pages of the WCXB development split (../shared/datasets/wcxb-dev beside the repository,
 * or $WCXB_DATASET): each page's HTML, URL, page type and ground truth. A fixed part of the split is
 * kept aside (`held`, chosen by a hash of the page id) so what is measured there is not what the
 * extractor and the page-type model were tuned on. The model generator learns from `tune`; the
 * benchmark (bench/markdown-quality) scores on `held`.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { gunzipSync } from "node:zlib";
import type { PageType } from "../src/extract/page-type.ts";

export interface WcxbPage {
  id: string;
  url: string;
  type: PageType;
  html: string;
  truth: string;
  with: string[];
  without: string[];
}

/** tune: what the extractor may be tuned on; held: the part kept aside (about one page in five). */
export type WcxbSplit = "tune" | "held" | "all";

export function defaultWcxbDir(): string {
  return resolve(
    process.env.WCXB_DATASET ??
      join(import.meta.dirname, "..", "..", "..", "..", "shared", "datasets", "wcxb-dev"),
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
          type: gt._internal.page_type.primary as PageType,
          html,
          truth,
          with: gt.ground_truth.with ?? [],
          without: gt.ground_truth.without ?? [],
        },
      ];
    });
}
