/**
 * Markdown quality on the WCXB development split (wcxb.ts), beside two anchors run on the same pages
 * in the same run: Trafilatura and rs-trafilatura (Python, baselines.py, each with its defaults). Ours
 * runs whole page and with onlyMainContent; its markdown becomes plain text (score.ts) before scoring.
 * Prints word F1 overall and per page type, precision, recall, the snippet rates and the time per page
 * of each contender: ours as the service runs it (a MarkdownPool worker thread, timed around the call, the
 * copy of the page to the thread included), the anchors as Python measures them around the call.
 *
 *   npm run bench:markdown-wcxb -- [--split held|tune|all] [--limit N] [--types article,forum]
 *                                  [--worst N] [--dump DIR] [--warm N] [--folds K]
 *
 * Before the timed pass our worker thread converts --warm N pages (default 200) of the other split, so
 * it is timed warm, as a service's long-lived thread runs, on pages it has not seen; --warm 0 times it
 * from a cold start (three pages of warm-up, as the anchors get).
 *
 * The dataset is ../shared/datasets/wcxb-dev beside the repository (or $WCXB_DATASET); the anchors need
 * `pip install trafilatura lxml_html_clean rs-trafilatura` ($PYTHON picks the interpreter, else python3).
 * --worst N lists our N lowest onlyMainContent pages; --dump DIR writes DIR/<id>.<contender>.txt.
 *
 * --folds K (with --split all, the default then) also reports K folds made by a hash of each page's site
 * (folds.ts), so pages of one site never sit in two folds: per fold and type the F1 of ours (onlyMainContent)
 * and of each anchor, then per type the mean over the folds and the worst fold, for ours and the anchors.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { MarkdownPool } from "@browserfleet/markdown";
import { foldsReport } from "./folds.ts";
import { markdownToText } from "./score.ts";
import { loadWcxb, PAGE_TYPES, scoreWcxb, type WcxbPage, type WcxbScore, type WcxbSplit } from "./wcxb.ts";

const { values } = parseArgs({
  options: {
    split: { type: "string", default: "held" },
    limit: { type: "string" },
    types: { type: "string" },
    worst: { type: "string", default: "0" },
    dump: { type: "string" },
    warm: { type: "string", default: "200" },
    folds: { type: "string", default: "0" },
  },
});
const folds = Number(values.folds);
if (!Number.isInteger(folds) || folds < 0 || folds === 1)
  throw new Error(`--folds ${values.folds}: 0, or 2 or more`);
const split = (folds > 0 && !process.argv.includes("--split") ? "all" : values.split) as WcxbSplit;
if (folds > 0 && split !== "all") throw new Error("--folds needs --split all: every page sits in one fold");
if (!["held", "tune", "all"].includes(split)) throw new Error(`--split ${split}: held, tune or all`);
const types = values.types?.split(",").map((t) => t.trim());
for (const t of types ?? []) {
  if (!(PAGE_TYPES as readonly string[]).includes(t)) throw new Error(`--types ${t}: one of ${PAGE_TYPES}`);
}
let pages = loadWcxb(undefined, split).filter((p) => !types || types.includes(p.type));
if (values.limit) pages = pages.slice(0, Number(values.limit));
if (values.dump) mkdirSync(values.dump, { recursive: true });

/** One extraction of one page: the text as the contender emitted it (markdown for ours). */
interface Output {
  text: string;
  ms: number;
  pageType?: string;
  error?: string;
}

const CONTENDERS = [
  { name: "ours, whole page", slug: "ours-page" },
  { name: "ours, onlyMainContent", slug: "ours-main" },
  { name: "Trafilatura", slug: "trafilatura" },
  { name: "rs-trafilatura", slug: "rs-trafilatura" },
] as const;
type Name = (typeof CONTENDERS)[number]["name"];

const ANCHORS = ["Trafilatura", "rs-trafilatura"] as const;
const PY_NAME: Record<(typeof ANCHORS)[number], string> = {
  Trafilatura: "trafilatura",
  "rs-trafilatura": "rs-trafilatura",
};
const PAGE_TIMEOUT_MS = 120_000;

/** baselines.py as a child process, one request at a time; restarted after a crash or a timeout. */
class Anchors {
  private child?: ChildProcessWithoutNullStreams;
  private lines: string[] = [];
  private waiting?: (line: string | undefined) => void;
  private stderr = "";
  tools: Record<string, string> = {};
  missing: Record<string, string> = {};

  /** Undefined when the anchors can run, else why not. */
  async start(): Promise<string | undefined> {
    const python = process.env.PYTHON ?? "python3";
    const child = spawn(python, [join(import.meta.dirname, "baselines.py")], { stdio: "pipe" });
    this.child = child;
    this.lines = [];
    let spawnError: Error | undefined;
    child.on("error", (e) => {
      spawnError = e;
    });
    child.stdin.on("error", () => {}); // EPIPE when it died; the missing reply says so
    child.stderr.on("data", (d: Buffer) => {
      this.stderr = (this.stderr + d.toString()).slice(-2000);
    });
    createInterface({ input: child.stdout }).on("line", (line) => this.push(line));
    child.on("close", () => this.push(undefined));
    const hello = await this.next(60_000);
    if (hello === undefined) {
      this.stop();
      return spawnError
        ? `${python} not runnable (${spawnError.message})`
        : `${python} baselines.py failed: ${this.stderr.trim().split("\n").at(-1) ?? ""}`;
    }
    const h = JSON.parse(hello) as { tools: Record<string, string>; missing: Record<string, string> };
    this.tools = h.tools;
    this.missing = h.missing;
    return undefined;
  }

  async extract(page: WcxbPage): Promise<Map<Name, Output>> {
    const failed = (why: string) =>
      new Map<Name, Output>(
        ANCHORS.map((a) => [a, { text: "", ms: Number.NaN, error: `baselines.py ${why}` }]),
      );
    if (!this.child) {
      const why = await this.start();
      if (why) return failed(why);
    }
    const child = this.child as ChildProcessWithoutNullStreams;
    child.stdin.write(`${JSON.stringify({ id: page.id, url: page.url, html: page.html })}\n`);
    const line = await this.next(PAGE_TIMEOUT_MS);
    if (line === undefined) {
      const why = child.exitCode === null ? `no answer in ${PAGE_TIMEOUT_MS} ms` : `exited ${child.exitCode}`;
      this.stop();
      return failed(why);
    }
    const reply = JSON.parse(line) as { results: Record<string, Output> };
    const out = new Map<Name, Output>();
    for (const a of ANCHORS) {
      const r = reply.results[PY_NAME[a]];
      if (r) out.set(a, r);
    }
    return out;
  }

  stop(): void {
    this.child?.removeAllListeners("close");
    this.child?.kill();
    this.child = undefined;
  }

  private push(line: string | undefined): void {
    const waiter = this.waiting;
    this.waiting = undefined;
    if (waiter) waiter(line);
    else if (line !== undefined) this.lines.push(line);
  }

  private next(timeoutMs: number): Promise<string | undefined> {
    const queued = this.lines.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.push(undefined), timeoutMs);
      this.waiting = (line) => {
        clearTimeout(timer);
        resolve(line);
      };
    });
  }
}

const pool = new MarkdownPool({ size: 1 });

async function ours(page: WcxbPage, onlyMainContent: boolean): Promise<Output> {
  const started = performance.now();
  try {
    const r = await pool.convert(page.html, { baseUrl: page.url, onlyMainContent });
    const ms = performance.now() - started;
    // Read loosely: the bench stays independent of whether the converter reports a page type.
    const pageType = (r as { pageType?: string }).pageType;
    return {
      text: r.markdown,
      ms,
      ...(pageType ? { pageType } : {}),
      // Over the time budget or failed: the plain text the service would return, scored as such.
      ...(r.degraded ? { error: `degraded: ${r.degraded}` } : {}),
    };
  } catch (e) {
    return { text: "", ms: performance.now() - started, error: String(e).slice(0, 200) };
  }
}

const anchors = new Anchors();
const unavailable = await anchors.start();

async function runPage(page: WcxbPage): Promise<Map<Name, Output>> {
  const out = new Map<Name, Output>([
    ["ours, whole page", await ours(page, false)],
    ["ours, onlyMainContent", await ours(page, true)],
  ]);
  if (!unavailable) for (const [name, o] of await anchors.extract(page)) out.set(name, o);
  return out;
}

interface Result {
  page: WcxbPage;
  score: WcxbScore;
  output: Output;
}
const results = new Map<Name, Result[]>(CONTENDERS.map((c) => [c.name, []]));

// Warm-up: JIT, lazy imports and model loading, not measured.
for (const p of pages.slice(0, 3)) await runPage(p);
// Our thread warmed as in a running service: V8 compiles a converter's paths as pages use them, and a
// cold thread pays that over its first hundred pages. The warm-up pages are of the other split (with
// --split all, the split's own first pages), never the timed ones.
const warmCount = Number(values.warm);
const warmPages = (split === "all" ? pages : loadWcxb(undefined, split === "held" ? "tune" : "held")).slice(
  0,
  warmCount,
);
for (const p of warmPages) {
  await ours(p, false);
  await ours(p, true);
}
const started = performance.now();
for (const [i, page] of pages.entries()) {
  // Contenders in turn on each page, so machine load hits them alike.
  for (const [name, output] of await runPage(page)) {
    // Ours emits markdown; the anchors emit plain text, scored as they emit it.
    const score = scoreWcxb(name.startsWith("ours") ? markdownToText(output.text) : output.text, page);
    results.get(name)?.push({ page, score, output });
    const slug = CONTENDERS.find((c) => c.name === name)?.slug;
    if (values.dump) writeFileSync(join(values.dump, `${page.id}.${slug}.txt`), output.text);
  }
  if (values.dump) writeFileSync(join(values.dump, `${page.id}.truth.txt`), page.truth);
  if (process.stderr.isTTY && i % 20 === 0) process.stderr.write(`\r${i}/${pages.length}`);
}
if (process.stderr.isTTY) process.stderr.write("\r");
anchors.stop();
await pool.close();
const minutes = (performance.now() - started) / 60_000;

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN);
function quantile(xs: number[], q: number): number {
  const sorted = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}
const defined = (xs: (number | undefined)[]) => xs.filter((x): x is number => x !== undefined);
const meanF1 = (rs: Result[]) => mean(rs.map((r) => r.score.f1));

const shownTypes = PAGE_TYPES.filter((t) => pages.some((p) => p.type === t));
const counts = shownTypes.map((t) => `${t} ${pages.filter((p) => p.type === t).length}`).join(", ");
console.log(`WCXB dev, split ${split}: ${pages.length} pages (${counts}), Node ${process.version}`);
if (unavailable) console.log(`anchors not run: ${unavailable}`);
for (const [name, why] of Object.entries(anchors.missing)) {
  console.log(`${name} not run: ${why} (pip install trafilatura lxml_html_clean rs-trafilatura)`);
}
const versions = Object.entries(anchors.tools).map(([n, v]) => `${n} ${v}`);
if (versions.length) console.log(`anchors: ${versions.join(", ")} (Python, default settings)`);
console.log(
  `ours timed ${warmPages.length ? `warm (its thread first converted ${warmPages.length} pages${split === "all" ? "" : " of the other split"})` : "from a cold start (3 pages of warm-up)"}`,
);
console.log(
  `${minutes.toFixed(1)} min; F1 = mean per-page word F1; with/without = share of snippets found/avoided\n`,
);

const header = ["", "F1", ...shownTypes, "P", "R", "with", "without", "median ms", "p95 ms"];
const table = CONTENDERS.flatMap(({ name }) => {
  const rs = results.get(name) ?? [];
  if (!rs.length) return [];
  return [
    [
      name,
      meanF1(rs).toFixed(3),
      ...shownTypes.map((t) => meanF1(rs.filter((r) => r.page.type === t)).toFixed(3)),
      mean(rs.map((r) => r.score.precision)).toFixed(3),
      mean(rs.map((r) => r.score.recall)).toFixed(3),
      mean(defined(rs.map((r) => r.score.withRate))).toFixed(3),
      mean(defined(rs.map((r) => r.score.withoutRate))).toFixed(3),
      quantile(
        rs.map((r) => r.output.ms),
        0.5,
      ).toFixed(1),
      quantile(
        rs.map((r) => r.output.ms),
        0.95,
      ).toFixed(1),
    ],
  ];
});
const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => (row[i] ?? "").length)));
const line = (cells: string[]) =>
  cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
console.log(line(header));
for (const row of table) console.log(line(row));

const main = results.get("ours, onlyMainContent") ?? [];
const rsResults = results.get("rs-trafilatura") ?? [];
console.log();
for (const anchor of ["rs-trafilatura", "Trafilatura"] as const) {
  const rs = results.get(anchor) ?? [];
  if (rs.length) console.log(`ratio ours/${anchor} F1: ${(meanF1(main) / meanF1(rs)).toFixed(3)}`);
}

// Page type classification against the ground truth, for whoever reports one.
for (const { name } of CONTENDERS) {
  const typed = (results.get(name) ?? []).filter((r) => r.output.pageType);
  if (!typed.length) continue;
  const right = typed.filter((r) => r.output.pageType === r.page.type).length;
  console.log(`page type accuracy, ${name}: ${(right / typed.length).toFixed(3)} (${typed.length} pages)`);
}

for (const { name } of CONTENDERS) {
  const failed = (results.get(name) ?? []).filter((r) => r.output.error);
  if (!failed.length) continue;
  console.log(`${name} failed on ${failed.length} page(s), scored as empty:`);
  for (const r of failed.slice(0, 10)) console.log(`  ${r.page.id}  ${r.output.error}`);
}

if (folds > 0) {
  const scored = CONTENDERS.filter(({ name }) => name !== "ours, whole page" && results.get(name)?.length);
  console.log(
    `\n${foldsReport(
      folds,
      scored.map(({ name }) => ({
        name,
        pages: (results.get(name) ?? []).map((r) => ({ url: r.page.url, type: r.page.type, f1: r.score.f1 })),
      })),
      shownTypes,
    )}`,
  );
}

const worst = Number(values.worst);
if (worst > 0) {
  const rsF1 = new Map(rsResults.map((r) => [r.page.id, r.score.f1]));
  console.log(`\nLowest onlyMainContent F1 (id, type, F1, P/R ours | F1 rs-trafilatura):`);
  for (const r of [...main].sort((a, b) => a.score.f1 - b.score.f1).slice(0, worst)) {
    const s = r.score;
    console.log(
      `${r.page.id}  ${r.page.type.padEnd(13)}  ${s.f1.toFixed(2)}  ${s.precision.toFixed(2)}/${s.recall.toFixed(2)} | ${rsF1.get(r.page.id)?.toFixed(2) ?? "-"}  ${r.page.url}`,
    );
  }
}
