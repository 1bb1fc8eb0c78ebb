/**
 * Crawl throughput: the same 200-page generated site (bench/crawl-throughput/site.ts) crawled to
 * markdown by our service (POST /web/v1/crawl, polled until completed) and by Crawlee's
 * PlaywrightCrawler (crawlee-baseline.ts, in a child process) at the same concurrency on the same
 * machine and the same Chromium, interleaved (who goes first alternates per round), each crawl against
 * a fresh site server. Prints pages per second for both, per round and at the median, and the ratio
 * ours/Crawlee, and the CPU time per page of each side, every process counted (cpu.ts), in all and
 * by kind of process. Goals: ours ≥ 1.5× Crawlee, at most 200 ms of CPU per page.
 *
 *   npm run bench:crawl-throughput -- [--rounds 3] [--concurrency 4] [--crawlee-only] [--direct] [--incognito]
 *     [--strict-limit] [--ours-only] [--no-warm-contexts]
 *
 * --crawlee-only skips our stack (checks the baseline alone); --direct lets Crawlee's Chromium reach
 * 127.0.0.1 without Crawlee's local proxy hop; --incognito gives Crawlee a fresh browser context per
 * page, as our worker has; --strict-limit sets Crawlee's maxRequestsPerCrawl to 200 instead of 2000,
 * which slows Crawlee down (see crawlee-baseline.ts). --ours-only skips Crawlee (to profile ours);
 * --no-warm-contexts runs our worker without contexts kept ready for scrapes (BROWSER_WARM_CONTEXTS=off).
 * The goals are judged without these flags.
 */
import { spawn } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { Stack } from "../../test/helpers/stack.ts";
import { diffByKind, treeCpuByKind, treeCpuMs } from "./cpu.ts";
import type { CrawleeResult } from "./crawlee-baseline.ts";
import {
  buildSite,
  type CrawlSite,
  describeSite,
  PAGE_COUNT,
  type SiteModel,
  startCrawlSite,
} from "./site.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    concurrency: { type: "string", default: "4" },
    "crawlee-only": { type: "boolean", default: false },
    direct: { type: "boolean", default: false },
    incognito: { type: "boolean", default: false },
    "strict-limit": { type: "boolean", default: false },
    "ours-only": { type: "boolean", default: false },
    "no-warm-contexts": { type: "boolean", default: false },
  },
});
const rounds = Number(values.rounds);
const concurrency = Number(values.concurrency);
const GOAL = 1.5;
/** CPU per page, all processes counted, that ours should stay under (issue 18 goal 4). */
const CPU_GOAL_MS = 200;
const POLL_MS = 100;
const CRAWL_TIMEOUT_MS = 15 * 60_000;
/** Pages of the warm-up crawl before round 1 (not measured). */
const WARM_PAGES = 40;

if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds must be a positive integer");
if (!Number.isInteger(concurrency) || concurrency < 1)
  throw new Error("--concurrency must be a positive integer");

interface Run {
  pages: number;
  /** Start request → last page done (ours: the poll that saw `completed`; Crawlee: see crawlee-baseline.ts). */
  ms: number;
  /** Extra figure: ours, completed and every page's markdown downloaded; Crawlee, the whole crawler.run(). */
  extraMs: number;
  /** CPU time of the Node side (ours: this process: api, jobs, worker; Crawlee: its process), no Chromium. */
  nodeCpuMs: number;
  /** CPU time of the whole side, Chromium and (ours) nats-server and Postgres included (cpu.ts). */
  treeCpuMs?: number;
  /** Non-page paths the crawl fetched from the site (robots.txt, CSS, image, ...). */
  other: string;
  /** treeCpuMs split by kind of process (cpu.ts), largest first. */
  byKind: Array<[string, number]>;
}

class Unavailable extends Error {}

const model: SiteModel = buildSite();
console.log(`crawl-throughput: ${describeSite(model)}`);
console.log(
  `  concurrency ${concurrency} for both, ${rounds} interleaved round(s), maxDepth ${model.maxDepth}, limit ${PAGE_COUNT}`,
);

/** Same concurrency on both sides, no politeness delay (the setting our crawl's jobs program reads). */
const crawlEnv: Record<string, string> = {
  CRAWL_HOST_CONCURRENCY: String(concurrency),
  CRAWL_HOST_DELAY_MS: "0",
  RATE_LIMIT_PER_MINUTE: "100000",
  RATE_LIMIT_READ_PER_MINUTE: "100000",
};
// Also in this process's environment, for a program of the stack that reads it there rather than from the api config.
Object.assign(process.env, crawlEnv);

let stack: Stack | undefined;
let oursUnavailable: string | undefined;
if (values["crawlee-only"]) oursUnavailable = "skipped (--crawlee-only)";
else {
  const { startStack } = await import("../../test/helpers/stack.ts");
  stack = await startStack({
    slots: concurrency,
    env: crawlEnv,
    ...(values["no-warm-contexts"] ? { worker: { warmContexts: false } } : {}),
  });
  // Warm the service on a throwaway server, as a running one is, so round 1 of ours does not pay for
  // it: the worker's browser (one scrape), then the crawl path (a short crawl: the jobs program's and
  // the api's queries and connections, the worker's job contexts, both markdown threads, the JIT).
  const warm = await startCrawlSite({ model });
  const r = await stack.post("/web/v1/scrape", { url: `${warm.url}/`, formats: ["markdown"] });
  if (r.status !== 200) throw new Error(`warm-up scrape failed: ${r.status} ${JSON.stringify(r.body)}`);
  await warmCrawl(`${warm.url}/`);
  await warm.close();
}

/** A crawl of WARM_PAGES pages to markdown, not measured; fails the run if it does not complete. */
async function warmCrawl(url: string): Promise<void> {
  const { key } = await stack!.newKey(1_000_000);
  const auth = { authorization: `Bearer ${key}` };
  const start = await stack!.post("/web/v1/crawl", { url, limit: WARM_PAGES, formats: ["markdown"] }, auth);
  if (start.status === 501) return; // no crawl route: the run says so in round 1
  if (![200, 201, 202].includes(start.status))
    throw new Error(`warm-up crawl: ${start.status} ${JSON.stringify(start.body)}`);
  const until = performance.now() + CRAWL_TIMEOUT_MS;
  for (;;) {
    const s = await stack!.call("GET", `/web/v1/crawl/${start.body.jobId}?limit=1`, auth);
    if (s.body?.status === "completed") return;
    if (s.status !== 200 || !["queued", "running"].includes(s.body?.status) || performance.now() > until)
      throw new Error(`warm-up crawl: ${s.status} ${JSON.stringify(s.body).slice(0, 300)}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Check that the crawl fetched every page exactly once; the other paths it fetched, as text. */
function verifySite(site: CrawlSite, who: string): string {
  const { missing, repeated, other } = site.check();
  if (missing.length > 0)
    throw new Error(`${who}: ${missing.length} pages never fetched, e.g. ${missing.slice(0, 5).join(", ")}`);
  if (repeated.length > 0)
    throw new Error(
      `${who}: ${repeated.length} pages fetched more than once, e.g. ${repeated
        .slice(0, 5)
        .map(([p, n]) => `${p}×${n}`)
        .join(", ")}`,
    );
  return other.map(([p, n]) => `${p}×${n}`).join(" ") || "-";
}

// biome-ignore lint/suspicious/noExplicitAny: the job answers are read loosely, the route is checked by its own tests
async function getJson(path: string, key: string): Promise<{ status: number; body: any }> {
  const res = await fetch(stack!.api.url + path, { headers: { authorization: `Bearer ${key}` } });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: text };
  }
}

async function runOurs(): Promise<Run> {
  if (!stack) throw new Unavailable("no stack");
  const site = await startCrawlSite({ model });
  try {
    // 200 pages at up to $0.001 each is 200,000 micros; give ten times that.
    const { key } = await stack.newKey(2_000_000);
    const started = performance.now();
    const cpu = process.cpuUsage();
    const tree = treeCpuMs(process.pid);
    const kindsBefore = treeCpuByKind(process.pid);
    const start = await stack.post(
      "/web/v1/crawl",
      { url: `${site.url}/`, limit: PAGE_COUNT, maxDepth: model.maxDepth, formats: ["markdown"] },
      { authorization: `Bearer ${key}` },
    );
    if (start.status === 501)
      throw new Unavailable(
        `POST /web/v1/crawl answered 501 (${start.body?.error?.message ?? "not implemented"}): our crawl route is not built yet`,
      );
    if (start.status !== 200 && start.status !== 201 && start.status !== 202)
      throw new Error(`POST /web/v1/crawl answered ${start.status}: ${JSON.stringify(start.body)}`);
    const jobId: string = start.body.jobId;
    if (!jobId) throw new Error(`POST /web/v1/crawl gave no jobId: ${JSON.stringify(start.body)}`);

    // Poll the status cheaply (one result per answer), so polling adds little load to the api.
    let status: { status: string; total: number; completed: number; failed: number; error?: unknown };
    for (;;) {
      const r = await getJson(`/web/v1/crawl/${jobId}?limit=1`, key);
      if (r.status !== 200)
        throw new Error(`GET /web/v1/crawl/${jobId} answered ${r.status}: ${JSON.stringify(r.body)}`);
      status = r.body;
      if (status.status === "completed") break;
      if (status.status === "failed" || status.status === "cancelled")
        throw new Error(`our crawl ended ${status.status}: ${JSON.stringify(status.error ?? r.body)}`);
      if (performance.now() - started > CRAWL_TIMEOUT_MS)
        throw new Error(`our crawl not done after ${CRAWL_TIMEOUT_MS / 1000} s: ${JSON.stringify(status)}`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    const completedMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const treeAfter = treeCpuMs(process.pid);
    const byKind = diffByKind(kindsBefore, treeCpuByKind(process.pid));

    // Then download every page's result, 200 per answer, following the cursor.
    const results: Array<{ url: string; status: string; data?: { markdown?: string } }> = [];
    let cursor: string | null = null;
    do {
      const q: string = `?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const r = await getJson(`/web/v1/crawl/${jobId}${q}`, key);
      if (r.status !== 200) throw new Error(`GET /web/v1/crawl/${jobId}${q} answered ${r.status}`);
      results.push(...r.body.data);
      cursor = r.body.next;
    } while (cursor && results.length < 10 * PAGE_COUNT);
    const downloadedMs = performance.now() - started;

    if (status.completed !== PAGE_COUNT || status.failed !== 0)
      throw new Error(
        `our crawl completed ${status.completed} pages and failed ${status.failed} (total ${status.total}), want ${PAGE_COUNT} and 0`,
      );
    const good = results.filter((p) => p.status === "completed" && p.data?.markdown);
    if (good.length !== PAGE_COUNT)
      throw new Error(
        `our crawl returned ${good.length} pages with markdown of ${results.length}, want ${PAGE_COUNT}`,
      );
    const paths = new Set(good.map((p) => new URL(p.url).pathname));
    const absent = model.pages.filter((p) => !paths.has(p.path));
    if (absent.length > 0)
      throw new Error(`our crawl returned no markdown for ${absent.length} pages, e.g. ${absent[0]!.path}`);
    const other = verifySite(site, "ours");
    return {
      pages: status.completed,
      ms: completedMs,
      extraMs: downloadedMs,
      nodeCpuMs: (used.user + used.system) / 1000,
      ...(tree !== undefined && treeAfter !== undefined ? { treeCpuMs: treeAfter - tree } : {}),
      other,
      byKind,
    };
  } finally {
    await site.close();
  }
}

const crawleeScript = fileURLToPath(new URL("./crawlee-baseline.ts", import.meta.url));

async function runCrawlee(): Promise<Run> {
  const site = await startCrawlSite({ model });
  try {
    const args = [
      "--import",
      "tsx",
      crawleeScript,
      "--url",
      `${site.url}/`,
      "--concurrency",
      String(concurrency),
    ];
    if (values.direct) args.push("--direct");
    if (values.incognito) args.push("--incognito");
    if (values["strict-limit"]) args.push("--strict-limit");
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (b: Buffer) => {
      out += b.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    const line = out.trim().split("\n").at(-1) ?? "";
    if (code !== 0 || !line.startsWith("{")) throw new Error(`Crawlee baseline exited ${code}: ${out}`);
    const r = JSON.parse(line) as CrawleeResult;
    if (r.pages !== PAGE_COUNT || r.failed !== 0)
      throw new Error(`Crawlee crawled ${r.pages} pages and failed ${r.failed}, want ${PAGE_COUNT} and 0`);
    const other = verifySite(site, "Crawlee");
    return {
      pages: r.pages,
      ms: r.crawlMs,
      extraMs: r.runMs,
      nodeCpuMs: r.nodeCpuMs,
      treeCpuMs: r.treeCpuMs,
      other,
      byKind: r.byKind ?? [],
    };
  } finally {
    await site.close();
  }
}

const rate = (r: Run) => r.pages / (r.ms / 1000);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
/** CPU ms per page of each kind of process, e.g. "node 120, chromium-renderer 80". */
const perPageByKind = (r: Run) =>
  r.byKind.map(([k, ms]) => `${k} ${(ms / r.pages).toFixed(0)}`).join(", ") || "?";
const sec = (ms: number | undefined) => (ms === undefined ? "?" : (ms / 1000).toFixed(1));
const fmt = (r: Run | undefined) =>
  r
    ? `${rate(r).toFixed(2).padStart(6)} p/s  ${sec(r.ms).padStart(6)} s   CPU ${sec(r.nodeCpuMs)} s Node, ${sec(r.treeCpuMs)} s all`
    : "     n/a";

/** The 1-minute load average against the CPU count: figures taken on a busy machine are noise. */
const load = () => `${loadavg()[0]!.toFixed(1)} on ${cpus().length} CPUs`;
if (loadavg()[0]! > cpus().length)
  console.log(`  warning: load average ${load()} before the first round: other work will skew the figures`);

const ours: Run[] = [];
const crawlee: Run[] = [];
let failure: unknown;
try {
  for (let i = 0; i < rounds; i++) {
    const oursFirst = i % 2 === 0;
    const doOurs = async (): Promise<Run | undefined> => {
      if (oursUnavailable) return undefined;
      try {
        const r = await runOurs();
        ours.push(r);
        return r;
      } catch (e) {
        if (!(e instanceof Unavailable)) throw e;
        oursUnavailable = e.message;
        console.log(`  ours: ${e.message}; measuring Crawlee only`);
        return undefined;
      }
    };
    const doCrawlee = async (): Promise<Run | undefined> => {
      if (values["ours-only"]) return undefined;
      const r = await runCrawlee();
      crawlee.push(r);
      return r;
    };
    let o: Run | undefined;
    let c: Run | undefined;
    if (oursFirst) {
      o = await doOurs();
      c = await doCrawlee();
    } else {
      c = await doCrawlee();
      o = await doOurs();
    }
    const ratio = o && c ? (rate(o) / rate(c)).toFixed(2) : "n/a";
    console.log(
      `\nround ${i + 1}/${rounds} (${oursFirst ? "ours first" : "Crawlee first"}; load average ${load()})`,
    );
    console.log(
      `  ours     ${fmt(o)}${o ? `  (results downloaded at ${(o.extraMs / 1000).toFixed(1)} s)` : ""}`,
    );
    console.log(`  Crawlee  ${fmt(c)}${c ? `  (crawler.run() ${(c.extraMs / 1000).toFixed(1)} s)` : ""}`);
    console.log(`  ratio ours/Crawlee ${ratio}`);
    if (o) console.log(`  other paths fetched by ours:    ${o.other}`);
    if (o) console.log(`  ours CPU per page by process:    ${perPageByKind(o)}`);
    if (c) console.log(`  Crawlee CPU per page by process: ${perPageByKind(c)}`);
    if (c) console.log(`  other paths fetched by Crawlee: ${c.other}`);
  }
} catch (e) {
  failure = e;
}

/** Median CPU per page over the runs that have it, Node alone and the whole side. */
const cpuPerPage = (runs: Run[]) => {
  const node = median(runs.map((r) => r.nodeCpuMs / r.pages)).toFixed(0);
  const trees = runs.filter((r) => r.treeCpuMs !== undefined).map((r) => r.treeCpuMs! / r.pages);
  return `CPU per page ${node} ms Node, ${trees.length > 0 ? median(trees).toFixed(0) : "?"} ms all`;
};

if (crawlee.length > 0 || ours.length > 0) {
  console.log(`\ncrawl-throughput summary: ${PAGE_COUNT} pages to markdown at concurrency ${concurrency}`);
  if (ours.length > 0)
    console.log(
      `  ours (POST /web/v1/crawl → completed): median ${median(ours.map(rate)).toFixed(2)} pages/s over ${ours.length} round(s); ${cpuPerPage(ours)}`,
    );
  else console.log(`  ours: not measured: ${oursUnavailable ?? "failed"}`);
  if (crawlee.length > 0)
    console.log(
      `  Crawlee PlaywrightCrawler + turndown:  median ${median(crawlee.map(rate)).toFixed(2)} pages/s over ${crawlee.length} round(s); ${cpuPerPage(crawlee)}`,
    );
  if (ours.length > 0 && crawlee.length > 0) {
    const ratio = median(ours.map(rate)) / median(crawlee.map(rate));
    console.log(
      `  ratio ours/Crawlee at the median: ${ratio.toFixed(2)} (goal ≥ ${GOAL}: ${ratio >= GOAL ? "met" : "NOT met"})`,
    );
  } else console.log(`  ratio ours/Crawlee: n/a (goal ≥ ${GOAL})`);
  const allPerPage = (runs: Run[]) => {
    const t = runs.filter((r) => r.treeCpuMs !== undefined).map((r) => r.treeCpuMs! / r.pages);
    return t.length > 0 ? median(t) : undefined;
  };
  const oursCpu = allPerPage(ours);
  const crawleeCpu = allPerPage(crawlee);
  const ms = (x: number | undefined) => (x === undefined ? "n/a" : `${x.toFixed(0)} ms`);
  console.log(
    `  CPU per page, all processes counted, at the median: ours ${ms(oursCpu)}, Crawlee ${ms(crawleeCpu)} (goal for ours ≤ ${CPU_GOAL_MS} ms: ${oursCpu === undefined ? "n/a" : oursCpu <= CPU_GOAL_MS ? "met" : "NOT met"})`,
  );
}

await stack?.stop();
if (failure) {
  console.error(failure);
  process.exit(1);
}
if (oursUnavailable && !values["crawlee-only"]) process.exit(2);
process.exit(0);
