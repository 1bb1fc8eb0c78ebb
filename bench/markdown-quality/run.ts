/**
 * Markdown quality against ground truth: the 181 pages of the article-extraction benchmark, converted
 * by our markdown package (whole page, and with onlyMainContent) and by the baseline (Mozilla
 * Readability on a linkedom DOM + turndown), all in the same run and process. Prints precision,
 * recall and F1 (shingles of 4 tokens, per-page P/R averaged, F1 from the averages) and the time per
 * page (median, p95, max) of each, plus the ratio to the baseline.
 *
 *   npm run bench:markdown-quality -- [--dataset DIR] [--rounds 1] [--worst 0] [--pool]
 *
 * --dataset defaults to ../shared/datasets/article-extraction-benchmark beside the repository (or
 * $MARKDOWN_BENCH_DATASET). --worst N lists the N pages with the lowest onlyMainContent F1.
 * --pool also times onlyMainContent through the worker pool (what the browser worker uses).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { gunzipSync } from "node:zlib";
import { htmlToMarkdown, MarkdownPool } from "@browserfleet/markdown";
import { readabilityMarkdown } from "./baseline.ts";
import { markdownToText, type PageScore, scoreText } from "./score.ts";

const { values } = parseArgs({
  options: {
    dataset: { type: "string" },
    rounds: { type: "string", default: "1" },
    worst: { type: "string", default: "0" },
    pool: { type: "boolean", default: false },
  },
});
const dataset = resolve(
  values.dataset ??
    process.env.MARKDOWN_BENCH_DATASET ??
    join(import.meta.dirname, "..", "..", "..", "shared", "datasets", "article-extraction-benchmark"),
);
const rounds = Math.max(1, Number(values.rounds));

interface Page {
  id: string;
  url: string;
  html: string;
  truth: string;
}

const truth = JSON.parse(readFileSync(join(dataset, "ground-truth.json"), "utf8")) as Record<
  string,
  { articleBody: string; url: string }
>;
const pages: Page[] = readdirSync(join(dataset, "html"))
  .filter((f) => f.endsWith(".html.gz"))
  .sort()
  .flatMap((f) => {
    const id = f.replace(/\.html\.gz$/, "");
    const gt = truth[id];
    if (!gt) return [];
    const html = gunzipSync(readFileSync(join(dataset, "html", f))).toString("utf8");
    return [{ id, url: gt.url, html, truth: gt.articleBody }];
  });

interface Contender {
  name: string;
  run: (page: Page) => string | Promise<string>;
}

const contenders: Contender[] = [
  { name: "ours, whole page", run: (p) => htmlToMarkdown(p.html, { baseUrl: p.url }).markdown },
  {
    name: "ours, onlyMainContent",
    run: (p) => htmlToMarkdown(p.html, { baseUrl: p.url, onlyMainContent: true }).markdown,
  },
  { name: "baseline (Readability + turndown)", run: (p) => readabilityMarkdown(p.html, p.url) },
];
const pool = values.pool ? new MarkdownPool({ size: 1 }) : undefined;
if (pool) {
  contenders.push({
    name: "ours, onlyMainContent via pool",
    run: async (p) => (await pool.convert(p.html, { baseUrl: p.url, onlyMainContent: true })).markdown,
  });
}

interface Result {
  scores: PageScore[];
  ms: number[];
}

const results = new Map<string, Result>(contenders.map((c) => [c.name, { scores: [], ms: [] }]));
// Warm-up: JIT and lazy module state, not measured.
for (const c of contenders) for (const p of pages.slice(0, 5)) await c.run(p);

for (let round = 0; round < rounds; round++) {
  for (const p of pages) {
    // Interleaved per page, so machine load hits every contender alike.
    for (const c of contenders) {
      const started = performance.now();
      const markdown = await c.run(p);
      const ms = performance.now() - started;
      const r = results.get(c.name) as Result;
      r.ms.push(ms);
      if (round === 0) r.scores.push(scoreText(markdownToText(markdown), p.truth));
    }
  }
}
await pool?.close();

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
function quantile(xs: number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
}
const f1 = (p: number, r: number) => (p + r === 0 ? 0 : (2 * p * r) / (p + r));

interface Row {
  name: string;
  precision: number;
  recall: number;
  f1: number;
  median: number;
  p95: number;
  max: number;
}
const rows: Row[] = contenders.map((c) => {
  const r = results.get(c.name) as Result;
  const precision = mean(r.scores.map((s) => s.precision));
  const recall = mean(r.scores.map((s) => s.recall));
  return {
    name: c.name,
    precision,
    recall,
    f1: f1(precision, recall),
    median: quantile(r.ms, 0.5),
    p95: quantile(r.ms, 0.95),
    max: Math.max(...r.ms),
  };
});
const base = rows.find((r) => r.name.startsWith("baseline")) as Row;

console.log(`${pages.length} pages, ${rounds} round(s), Node ${process.version}\n`);
const header = ["", "precision", "recall", "F1", "F1 / base", "median ms", "p95 ms", "max ms", "p95 / base"];
const table = rows.map((r) => [
  r.name,
  r.precision.toFixed(3),
  r.recall.toFixed(3),
  r.f1.toFixed(3),
  (r.f1 / base.f1).toFixed(3),
  r.median.toFixed(1),
  r.p95.toFixed(1),
  r.max.toFixed(1),
  (r.p95 / base.p95).toFixed(2),
]);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => (row[i] ?? "").length)));
const line = (cells: string[]) =>
  cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
console.log(line(header));
for (const row of table) console.log(line(row));

const worst = Number(values.worst);
if (worst > 0) {
  const main = results.get("ours, onlyMainContent") as Result;
  const baseScores = (results.get(base.name) as Result).scores;
  const ranked = pages
    .map((p, i) => ({ p, s: main.scores[i] as PageScore, b: baseScores[i] as PageScore }))
    .sort((a, b) => f1(a.s.precision, a.s.recall) - f1(b.s.precision, b.s.recall))
    .slice(0, worst);
  console.log(`\nLowest onlyMainContent F1 (P/R ours | P/R baseline):`);
  for (const { p, s, b } of ranked) {
    console.log(
      `${p.id.slice(0, 12)}  ${s.precision.toFixed(2)}/${s.recall.toFixed(2)} | ${b.precision.toFixed(2)}/${b.recall.toFixed(2)}  ${p.url}`,
    );
  }
}
