/**
 * K-fold report of a WCXB run: pages fall into folds by a hash of their site (the host without www.), so
 * pages of one site never sit in two folds, and a rule that only learned a site cannot look general. Pure:
 * it takes each contender's per-page F1 and prints per fold and type, then per type the mean over the folds
 * and the worst fold.
 */
import { createHash } from "node:crypto";

export interface ScoredPage {
  url: string;
  type: string;
  f1: number;
}

export function siteOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase().replace(/^www\./, "");
  } catch {
    return url;
  }
}

export function foldOf(url: string, folds: number): number {
  return (
    (createHash("sha256")
      .update(`fold:${siteOf(url)}`)
      .digest()[0] as number) % folds
  );
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN);
const known = (xs: number[]) => xs.filter((x) => !Number.isNaN(x));
const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : "-");

/** Per fold and type, then each type's mean over the folds and its worst fold, for every contender. */
export function foldsReport(
  folds: number,
  contenders: { name: string; pages: ScoredPage[] }[],
  types: readonly string[],
): string {
  const cols = ["all", ...types];
  const f1Of = (pages: ScoredPage[], fold: number, col: string) =>
    mean(
      pages
        .filter((p) => foldOf(p.url, folds) === fold && (col === "all" || p.type === col))
        .map((p) => p.f1),
    );
  const byFold = (pages: ScoredPage[], col: string) =>
    Array.from({ length: folds }, (_, fold) => f1Of(pages, fold, col));
  const rows: [string, string[]][] = [["", cols]];

  const sizes = contenders[0]?.pages ?? [];
  for (let fold = 0; fold < folds; fold++) {
    const n = sizes.filter((p) => foldOf(p.url, folds) === fold).length;
    for (const c of contenders)
      rows.push([`fold ${fold} (${n}) ${c.name}`, cols.map((col) => f3(f1Of(c.pages, fold, col)))]);
  }
  rows.push(["", []]);
  for (const c of contenders) {
    rows.push([`mean  ${c.name}`, cols.map((col) => f3(mean(known(byFold(c.pages, col)))))]);
    rows.push([`worst ${c.name}`, cols.map((col) => f3(Math.min(...known(byFold(c.pages, col)))))]);
  }
  const ours = contenders.find((c) => c.name.startsWith("ours"));
  for (const anchor of contenders.filter((c) => c !== ours)) {
    if (!ours) break;
    const gaps = cols.map((col) => {
      const a = byFold(ours.pages, col);
      const b = byFold(anchor.pages, col);
      return known(a.map((x, i) => x - (b[i] ?? Number.NaN)));
    });
    rows.push([`ours - ${anchor.name}, worst fold`, gaps.map((xs) => f3(Math.min(...xs)))]);
    rows.push([
      `ours - ${anchor.name}, folds ahead`,
      gaps.map((xs) => `${xs.filter((x) => x > 0).length}/${xs.length}`),
    ]);
  }

  const labelWidth = Math.max(...rows.map(([label]) => label.length));
  const cellWidth = (i: number) => Math.max(6, (cols[i] ?? "").length);
  return [
    `${folds} folds by site (a hash of the host). Caveat: the extraction rules and the page-type model were chosen on the tune split, so folds holding tune pages flatter ours`,
    ...rows.map(([label, cells]) =>
      [label.padEnd(labelWidth), ...cells.map((c, i) => c.padStart(cellWidth(i)))].join("  "),
    ),
  ].join("\n");
}
