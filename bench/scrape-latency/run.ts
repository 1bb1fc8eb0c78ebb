/**
 * Scrape latency: the same page to markdown through our HTTP API (api → NATS JetStream → browser worker)
 * against a bare Playwright script on the same Chromium (warm browser, new context per page,
 * goto + content + turndown), interleaved. Prints medians, the ratio ours/bare, and throughput at
 * the configured slot count (per slot and per core too, beside the bare script's at the same concurrency). Also ours with `wait.until: load` on the same page, interleaved too: the cost
 * of the default `auto` wait on a page with nothing late (goal: at most 1.10 at the median).
 *
 *   npm run bench:scrape-latency -- [--rounds 40] [--slots 2]
 */
import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";
import { findChromium } from "@browserfleet/browser";
import { chromium } from "playwright-core";
import TurndownService from "turndown";
import { startStack } from "../../test/helpers/stack.ts";

const { values } = parseArgs({
  options: { rounds: { type: "string", default: "40" }, slots: { type: "string", default: "2" } },
});
const rounds = Number(values.rounds);
const slots = Number(values.slots);

const stack = await startStack({ slots });
const page = `${stack.site.url}/article`;
const browser = await chromium.launch({
  executablePath: findChromium(),
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced" });
turndown.remove(["script", "style", "noscript"]);

async function ours(wait?: { until: "load" }): Promise<number> {
  const t = performance.now();
  const r = await stack.post("/web/v1/scrape", { url: page, ...(wait ? { wait } : {}) });
  if (r.status !== 200 || !r.body.data.markdown) throw new Error(`scrape failed: ${JSON.stringify(r.body)}`);
  return performance.now() - t;
}

async function bare(): Promise<number> {
  const t = performance.now();
  const context = await browser.newContext();
  const p = await context.newPage();
  await p.goto(page, { waitUntil: "load" });
  const md = turndown.turndown(await p.content());
  await context.close();
  if (!md) throw new Error("bare scrape produced nothing");
  return performance.now() - t;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]!;

for (let i = 0; i < 5; i++) {
  await ours();
  await bare();
}
const a: number[] = [];
const b: number[] = [];
const l: number[] = [];
// A quiet moment before each timed call, so what one leaves running in the background (the worker making
// the next ready context, Chromium closing a context) does not land on the next one's time.
const quiet = () => new Promise((r) => setTimeout(r, 250));
const timed = async (run: () => Promise<number>) => {
  await quiet();
  return run();
};
for (let i = 0; i < rounds; i++) {
  if (i % 2 === 0) {
    a.push(await timed(ours));
    b.push(await timed(bare));
    l.push(await timed(() => ours({ until: "load" })));
  } else {
    l.push(await timed(() => ours({ until: "load" })));
    b.push(await timed(bare));
    a.push(await timed(ours));
  }
}

const concurrent = slots * 4;
const total = slots * 20;
/** Scrapes per second with `concurrent` callers, ours through the api, or the bare script with `slots` at once. */
async function throughput(run: () => Promise<number>, callers: number): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next++ < total) await run();
    }),
  );
  return total / ((performance.now() - started) / 1000);
}
const perSecond = await throughput(() => ours(), concurrent);
// The bare script with as many pages at once as we have slots: the same browser work in parallel.
const barePerSecond = await throughput(bare, slots);
const cores = availableParallelism();

console.log(`scrape-latency: ${rounds} interleaved rounds of ${page} to markdown`);
console.log(
  `  ours (HTTP → api → JetStream → worker): median ${median(a).toFixed(1)} ms, p95 ${p95(a).toFixed(1)} ms`,
);
console.log(
  `  bare Playwright (same Chromium, warm):   median ${median(b).toFixed(1)} ms, p95 ${p95(b).toFixed(1)} ms`,
);
console.log(`  ratio ours/bare at the median: ${(median(a) / median(b)).toFixed(2)}`);
console.log(
  `  ours with wait.until load:               median ${median(l).toFixed(1)} ms, p95 ${p95(l).toFixed(1)} ms`,
);
console.log(`  ratio auto/load at the median: ${(median(a) / median(l)).toFixed(2)} (goal at most 1.10)`);
console.log(
  `  throughput: ${perSecond.toFixed(1)} scrapes/s with ${slots} slots (${concurrent} concurrent callers, ${total} scrapes)`,
);
console.log(
  `  per slot: ${(perSecond / slots).toFixed(2)} scrapes/s; per core (${cores} cores, api, worker and Chromium on them): ${(perSecond / cores).toFixed(2)} scrapes/s`,
);
console.log(
  `  bare Playwright, ${slots} at once: ${barePerSecond.toFixed(1)} scrapes/s (${(barePerSecond / cores).toFixed(2)} per core); ratio ours/bare throughput: ${(perSecond / barePerSecond).toFixed(2)}`,
);

await browser.close();
await stack.stop();
