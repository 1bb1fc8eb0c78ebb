/**
 * Cache hit: a scrape served entirely from the render cache (key check, cache read, charge from the
 * replica's balance lease, usage row: no database round trip on the request path once warm) against
 * the GET self-description of the same route (no database, no auth) as the baseline, both driven by
 * autocannon (in a process of its own) against the same api in the same run, interleaved. Prints the median latency (from each
 * response's exact time), mean, p99, throughput, CPU per answer and the ratios. Goal: at most 2x at the median.
 *
 * The machine's other load moves both sides by more than the difference measured, so the runs are short,
 * many and interleaved, and each ratio is the median of the ratios of a round's two runs (made seconds
 * apart), not the ratio of medians taken minutes apart.
 *
 *   npm run bench:cache-hit -- [--seconds 4] [--connections 10] [--rounds 8]
 */

import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startStack } from "../../test/helpers/stack.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "4" },
    connections: { type: "string", default: "10" },
    rounds: { type: "string", default: "8" },
  },
});
const duration = Number(values.seconds);
const connections = Number(values.connections);
const rounds = Number(values.rounds);

const stack = await startStack({
  slots: 1,
  env: { RATE_LIMIT_PER_MINUTE: "100000000", RATE_LIMIT_READ_PER_MINUTE: "100000000" },
});
const body = JSON.stringify({
  url: `${stack.site.url}/article`,
  formats: ["markdown", "links"],
  maxAge: 3_600_000,
});
const warm = await stack.post("/web/v1/scrape", JSON.parse(body));
if (warm.status !== 200) throw new Error(`warm-up scrape failed: ${JSON.stringify(warm.body)}`);
const check = await stack.post("/web/v1/scrape", JSON.parse(body));
if (JSON.stringify(check.body.metadata.cached) !== '["markdown","links"]')
  throw new Error(`the second scrape was not a cache hit: ${JSON.stringify(check.body.metadata)}`);

interface Run {
  mean: number;
  p50: number;
  p99: number;
  rps: number;
  /** CPU time of this process (the api and the worker's host side, not autocannon) per answer, in microseconds. */
  cpuUs: number;
}

/**
 * autocannon runs in a child process (drive.ts): in this one it would parse every answer on the api's event
 * loop. Its own percentiles are whole milliseconds; each response's time (hrtime, in ms) is exact.
 */
async function drive(opts: {
  method: "GET" | "POST";
  body?: string;
  headers?: Record<string, string>;
}): Promise<Run> {
  const cpuBefore = process.cpuUsage();
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      fileURLToPath(new URL("./drive.ts", import.meta.url)),
      JSON.stringify({ url: `${stack.api.url}/web/v1/scrape`, connections, duration, ...opts }),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d;
  });
  const code = await new Promise<number | null>((r) => child.once("exit", r));
  if (code !== 0) throw new Error(`${opts.method}: the autocannon process exited with ${code}`);
  const result = JSON.parse(out) as {
    times: number[];
    mean: number;
    rps: number;
    non2xx: number;
    errors: number;
  };
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${opts.method}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
  const cpu = process.cpuUsage(cpuBefore);
  const times = result.times;
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] as number;
  return {
    mean: result.mean,
    p50: at(0.5),
    p99: at(0.99),
    rps: result.rps,
    cpuUs: (cpu.user + cpu.system) / Math.max(1, times.length),
  };
}

const baseline: Run[] = [];
const cached: Run[] = [];
for (let i = 0; i < rounds; i++) {
  baseline.push(await drive({ method: "GET" }));
  cached.push(
    await drive({
      method: "POST",
      body,
      headers: { "content-type": "application/json", authorization: `Bearer ${stack.key}` },
    }),
  );
}
await stack.stop();

const med = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const summary = (runs: Run[]) => ({
  mean: med(runs.map((r) => r.mean)),
  p50: med(runs.map((r) => r.p50)),
  p99: med(runs.map((r) => r.p99)),
  rps: med(runs.map((r) => r.rps)),
  cpuUs: med(runs.map((r) => r.cpuUs)),
});
/** The median over rounds of cached/baseline for one figure: each round's two runs were made together. */
const paired = (f: (r: Run) => number) => med(cached.map((c, i) => f(c) / f(baseline[i] as Run)));
const b = summary(baseline);
const c = summary(cached);
console.log(`${rounds} rounds x ${duration} s, ${connections} connections, interleaved`);
console.log(
  `baseline GET /web/v1/scrape (self-description): p50 ${b.p50.toFixed(2)} ms, mean ${b.mean.toFixed(2)} ms, p99 ${b.p99.toFixed(2)} ms, ${b.rps.toFixed(0)} req/s`,
);
console.log(
  `cached POST /web/v1/scrape (2 formats, maxAge): p50 ${c.p50.toFixed(2)} ms, mean ${c.mean.toFixed(2)} ms, p99 ${c.p99.toFixed(2)} ms, ${c.rps.toFixed(0)} req/s`,
);
console.log(
  `median latency ratio of each round: ${cached.map((r, i) => (r.p50 / (baseline[i] as Run).p50).toFixed(2)).join(", ")}`,
);
console.log(
  `CPU per answer (this process: api and worker, autocannon apart): baseline ${b.cpuUs.toFixed(0)} us, cached ${c.cpuUs.toFixed(0)} us, ratio ${paired((r) => r.cpuUs).toFixed(2)}x (a machine under other load moves latency more than this)`,
);
console.log(
  `ratio cached/baseline: median latency ${paired((r) => r.p50).toFixed(2)}x (goal <= 2x), mean ${paired((r) => r.mean).toFixed(2)}x, throughput ${paired((r) => r.rps).toFixed(2)}x`,
);
