/**
 * Cache hit: a scrape served entirely from the render cache (key lookup, hold, cache read, capture:
 * four PostgreSQL round trips) against the GET self-description of the same route (no database, no
 * auth) as the baseline, both driven by autocannon against the same api in the same run, interleaved.
 * Prints median latency, throughput and the ratio cached/baseline. Goal: at most 2x at the median.
 *
 *   npm run bench:cache-hit -- [--seconds 10] [--connections 10] [--rounds 2]
 */
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { startStack } from "../../test/helpers/stack.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    connections: { type: "string", default: "10" },
    rounds: { type: "string", default: "2" },
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
}

async function drive(opts: {
  method: "GET" | "POST";
  body?: string;
  headers?: Record<string, string>;
}): Promise<Run> {
  const result = await autocannon({
    url: `${stack.api.url}/web/v1/scrape`,
    connections,
    duration,
    ...opts,
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${opts.method}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
  return {
    mean: result.latency.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    rps: result.requests.average,
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

const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const summary = (runs: Run[]) => ({
  mean: med(runs.map((r) => r.mean)),
  p50: med(runs.map((r) => r.p50)),
  p99: med(runs.map((r) => r.p99)),
  rps: med(runs.map((r) => r.rps)),
});
const b = summary(baseline);
const c = summary(cached);
// autocannon reports percentiles in whole milliseconds, so the ratio uses the mean, which it gives exactly.
console.log(`${rounds} rounds x ${duration} s, ${connections} connections, interleaved`);
console.log(
  `baseline GET /web/v1/scrape (self-description): mean ${b.mean.toFixed(2)} ms, p50 ${b.p50} ms, p99 ${b.p99} ms, ${b.rps.toFixed(0)} req/s`,
);
console.log(
  `cached POST /web/v1/scrape (2 formats, maxAge): mean ${c.mean.toFixed(2)} ms, p50 ${c.p50} ms, p99 ${c.p99} ms, ${c.rps.toFixed(0)} req/s`,
);
console.log(
  `ratio cached/baseline: latency ${(c.mean / b.mean).toFixed(2)}x (mean; goal <= 2x at the median), p50 ${c.p50}/${b.p50} ms, throughput ${(c.rps / b.rps).toFixed(2)}x`,
);
