/**
 * MCP overhead: `web_scrape` through POST /mcp (the official SDK client, one initialized connection)
 * against POST /web/v1/scrape (plain fetch) for the same page and options, interleaved, both through
 * the same api, queue and browser worker. Prints the medians, p95 and the ratio mcp/rest.
 * Goal (issue 6): at most 1.05x at the median.
 *
 * A third call, the same tools/call as one JSON-RPC POST by plain fetch (what any MCP client sends over
 * streamable HTTP, read as REST is read), tells the server's share of the overhead from the SDK client's
 * own work (its request clone, zod parses of the answer): its own ratio line, json-rpc/rest.
 *
 * A fourth, the SDK client again with a fetch that gives each request its own abort signal: the SDK
 * hands one connection-wide signal to every fetch, and Node's fetch leaves an abort listener on it per
 * request until a GC removes it, so each call costs more the longer the client runs (undici #5285).
 * Clients that route around it do this; the MCP line stays the plain SDK client's.
 *
 * With --client-cost, two more calls in the same interleaving: the SDK client and a plain JSON-RPC fetch
 * against a trivial HTTP server in this same process that replays our answer's bytes. Their difference
 * is what the SDK client costs on its own here, with a whole scrape's work between two of its calls
 * (several times what it costs in a loop of its own: bench/mcp-overhead/client-cost.ts).
 *
 * With --clients-apart, every call is made from a process of its own (bench/mcp-overhead/calls.ts), as an
 * agent's client is, instead of from the process that runs the api and the worker.
 *
 *   npm run bench:mcp-overhead -- [--rounds 40] [--cached] [--page /article] [--client-cost] [--clients-apart]
 *
 * --cached asks for maxAge so both are served from the render cache, which makes the protocol's own
 * cost most visible (a render is ~90% browser time).
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startStack } from "../../test/helpers/stack.ts";
import { type CallsOptions, measureCalls, type Timings } from "./calls.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "40" },
    cached: { type: "boolean", default: false },
    page: { type: "string", default: "/article" },
    "client-cost": { type: "boolean", default: false },
    "clients-apart": { type: "boolean", default: false },
  },
});
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds must be a positive integer");

// No rate cap: long runs make more priced calls a minute than the default allows (the limiter still runs).
const stack = await startStack({ slots: 2, jobs: false, env: { RATE_LIMIT_PER_MINUTE: "1000000" } });
const request = {
  url: `${stack.site.url}${values.page}`,
  formats: ["markdown"],
  ...(values.cached ? { maxAge: 3_600_000 } : {}),
};
const calls: CallsOptions = {
  apiUrl: stack.api.url,
  key: stack.key,
  request,
  rounds,
  clientCost: values["client-cost"] ?? false,
};

/** The calls made by a process of their own; its timings from its stdout. */
async function measureApart(opts: CallsOptions): Promise<Timings> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", fileURLToPath(new URL("./calls.ts", import.meta.url))],
    {
      env: { ...process.env, BENCH_CALLS: JSON.stringify(opts) },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let out = "";
  child.stdout.on("data", (d) => {
    out += d;
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`the calls' process exited with ${code}`);
  return JSON.parse(out) as Timings;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]!;
/** Under load from other work, the 10th percentile is the steadier measure of what a call costs. */
const p10 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.1)]!;

try {
  const { restMs, mcpMs, rpcMs, ownMs, trivialSdkMs, trivialRpcMs } = values["clients-apart"]
    ? await measureApart(calls)
    : await measureCalls(calls);
  const f = (x: number) => `${x.toFixed(2)} ms`;
  console.log(
    `mcp-overhead: ${rounds} interleaved rounds, ${values.cached ? "cached (maxAge)" : "rendered"} scrape${values["clients-apart"] ? ", the calls from a process of their own" : ""}`,
  );
  console.log(
    `  REST POST /web/v1/scrape   median ${f(median(restMs))}  p10 ${f(p10(restMs))}  p95 ${f(p95(restMs))}`,
  );
  console.log(
    `  MCP  tools/call web_scrape median ${f(median(mcpMs))}  p10 ${f(p10(mcpMs))}  p95 ${f(p95(mcpMs))}`,
  );
  console.log(
    `  JSON-RPC POST /mcp (fetch) median ${f(median(rpcMs))}  p10 ${f(p10(rpcMs))}  p95 ${f(p95(rpcMs))}`,
  );
  console.log(
    `  MCP, own signal per fetch  median ${f(median(ownMs))}  p10 ${f(p10(ownMs))}  p95 ${f(p95(ownMs))}`,
  );
  const ratio = median(mcpMs) / median(restMs);
  console.log(
    `  ratio mcp/rest at the median: ${ratio.toFixed(3)} (goal ≤ 1.05: ${ratio <= 1.05 ? "met" : "NOT met"})`,
  );
  const rpcRatio = median(rpcMs) / median(restMs);
  console.log(`  ratio json-rpc/rest at the median: ${rpcRatio.toFixed(3)} (the server's share)`);
  const at10 = (xs: number[]) => (p10(xs) / p10(restMs)).toFixed(3);
  console.log(
    `  ratios at the 10th percentile: mcp/rest ${at10(mcpMs)}, json-rpc/rest ${at10(rpcMs)}, mcp-own-signal/rest ${at10(ownMs)}`,
  );
  const ownRatio = median(ownMs) / median(restMs);
  console.log(
    `  ratio mcp-own-signal/rest at the median: ${ownRatio.toFixed(3)} (SDK client, signal per fetch)`,
  );
  if (calls.clientCost) {
    const us = (x: number) => `${(x * 1000).toFixed(0)} µs`;
    console.log(
      `  SDK client's own cost here (against a trivial server replaying our answer): median ${us(median(trivialSdkMs) - median(trivialRpcMs))}, p10 ${us(p10(trivialSdkMs) - p10(trivialRpcMs))} over a plain fetch`,
    );
    console.log(
      `  (SDK client - plain fetch against our server: median ${us(median(mcpMs) - median(rpcMs))}, p10 ${us(p10(mcpMs) - p10(rpcMs))})`,
    );
  }
} finally {
  await stack.stop();
}
