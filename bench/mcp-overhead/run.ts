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
 *   npm run bench:mcp-overhead -- [--rounds 40] [--cached] [--page /article] [--client-cost]
 *
 * --cached asks for maxAge so both are served from the render cache, which makes the protocol's own
 * cost most visible (a render is ~90% browser time).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startStack } from "../../test/helpers/stack.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "40" },
    cached: { type: "boolean", default: false },
    page: { type: "string", default: "/article" },
    "client-cost": { type: "boolean", default: false },
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

const client = new Client({ name: "bench", version: "1.0.0" });
await client.connect(
  new StreamableHTTPClientTransport(new URL(`${stack.api.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${stack.key}` } },
  }),
);

/** fetch with a signal of its own per request, following the caller's until the answer's headers. */
const ownSignalFetch: typeof fetch = async (url, init) => {
  const outer = init?.signal;
  if (!outer) return fetch(url, init);
  const own = new AbortController();
  const abort = () => own.abort(outer.reason);
  if (outer.aborted) abort();
  else outer.addEventListener("abort", abort, { once: true });
  try {
    return await fetch(url, { ...init, signal: own.signal });
  } finally {
    outer.removeEventListener("abort", abort);
  }
};
const ownSignalClient = new Client({ name: "bench", version: "1.0.0" });
await ownSignalClient.connect(
  new StreamableHTTPClientTransport(new URL(`${stack.api.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${stack.key}` } },
    fetch: ownSignalFetch,
  }),
);

async function rest(): Promise<number> {
  const t = performance.now();
  const r = await fetch(`${stack.api.url}/web/v1/scrape`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${stack.key}` },
    body: JSON.stringify(request),
  });
  const body = (await r.json()) as { data?: { markdown?: string } };
  if (r.status !== 200 || !body.data?.markdown)
    throw new Error(`REST scrape failed: ${JSON.stringify(body)}`);
  return performance.now() - t;
}

let rpcId = 0;
async function jsonRpc(url = `${stack.api.url}/mcp`): Promise<number> {
  const t = performance.now();
  const r = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
      authorization: `Bearer ${stack.key}`,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++rpcId,
      method: "tools/call",
      params: { name: "web_scrape", arguments: request },
    }),
  });
  const body = (await r.json()) as { result?: { isError?: boolean; structuredContent?: unknown } };
  if (r.status !== 200 || !body.result || body.result.isError)
    throw new Error(`JSON-RPC web_scrape failed: ${JSON.stringify(body)}`);
  return performance.now() - t;
}

async function mcp(through = client): Promise<number> {
  const t = performance.now();
  const r = await through.callTool({ name: "web_scrape", arguments: request });
  if (r.isError) throw new Error(`web_scrape failed: ${JSON.stringify(r.content)}`);
  return performance.now() - t;
}
const mcpOwnSignal = () => mcp(ownSignalClient);

/** --client-cost: a server that answers tools/call with our last answer's bytes (its id replaced). */
let replay = "";
const trivial = createServer((req, res) => {
  if (req.method !== "POST") return void res.writeHead(405).end();
  let body = "";
  req.on("data", (chunk) => {
    body += chunk;
  });
  req.on("end", () => {
    const msg = JSON.parse(body) as { id?: number; method: string; params?: { protocolVersion?: string } };
    if (msg.id === undefined) return void res.writeHead(202).end();
    const answer =
      msg.method === "initialize"
        ? JSON.stringify({
            jsonrpc: "2.0",
            id: msg.id,
            result: {
              protocolVersion: msg.params?.protocolVersion,
              capabilities: { tools: {} },
              serverInfo: { name: "trivial", version: "1" },
            },
          })
        : replay.replace(/^\{"jsonrpc":"2\.0","id":\d+,/, `{"jsonrpc":"2.0","id":${msg.id},`);
    res.writeHead(200, { "content-type": "application/json" }).end(answer);
  });
});
const trivialUrl = values["client-cost"]
  ? await new Promise<string>((resolve) =>
      trivial.listen(0, "127.0.0.1", () =>
        resolve(`http://127.0.0.1:${(trivial.address() as AddressInfo).port}/mcp`),
      ),
    )
  : "";
const trivialClient = new Client({ name: "bench", version: "1.0.0" });
if (trivialUrl)
  await trivialClient.connect(
    new StreamableHTTPClientTransport(new URL(trivialUrl), {
      requestInit: { headers: { authorization: `Bearer ${stack.key}` } },
    }),
  );

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]!;
/** Under load from other work, the 10th percentile is the steadier measure of what a call costs. */
const p10 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.1)]!;

try {
  // Warm both paths (and the cache, with --cached).
  for (let i = 0; i < 3; i++) {
    await rest();
    await mcp();
    await jsonRpc();
    await mcpOwnSignal();
  }
  if (trivialUrl) {
    const r = await fetch(`${stack.api.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${stack.key}`,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "web_scrape", arguments: request },
      }),
    });
    replay = await r.text();
    if (!replay.startsWith('{"jsonrpc":"2.0","id":1,')) throw new Error(`unexpected answer: ${replay}`);
    for (let i = 0; i < 3; i++) {
      await mcp(trivialClient);
      await jsonRpc(trivialUrl);
    }
  }
  const restMs: number[] = [];
  const mcpMs: number[] = [];
  const rpcMs: number[] = [];
  const ownMs: number[] = [];
  const trivialSdkMs: number[] = [];
  const trivialRpcMs: number[] = [];
  const trivialCalls = async () => {
    if (!trivialUrl) return;
    trivialSdkMs.push(await mcp(trivialClient));
    trivialRpcMs.push(await jsonRpc(trivialUrl));
  };
  for (let i = 0; i < rounds; i++) {
    // Alternate which goes first, so neither always meets a warmer worker.
    if (i % 2 === 0) {
      restMs.push(await rest());
      mcpMs.push(await mcp());
      rpcMs.push(await jsonRpc());
      ownMs.push(await mcpOwnSignal());
      await trivialCalls();
    } else {
      await trivialCalls();
      ownMs.push(await mcpOwnSignal());
      rpcMs.push(await jsonRpc());
      mcpMs.push(await mcp());
      restMs.push(await rest());
    }
  }
  const f = (x: number) => `${x.toFixed(2)} ms`;
  console.log(
    `mcp-overhead: ${rounds} interleaved rounds, ${values.cached ? "cached (maxAge)" : "rendered"} scrape`,
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
  if (trivialUrl) {
    const us = (x: number) => `${(x * 1000).toFixed(0)} µs`;
    console.log(
      `  SDK client's own cost here (against a trivial server replaying our answer): median ${us(median(trivialSdkMs) - median(trivialRpcMs))}, p10 ${us(p10(trivialSdkMs) - p10(trivialRpcMs))} over a plain fetch`,
    );
    console.log(
      `  (SDK client - plain fetch against our server: median ${us(median(mcpMs) - median(rpcMs))}, p10 ${us(p10(mcpMs) - p10(rpcMs))})`,
    );
  }
} finally {
  await client.close();
  await ownSignalClient.close();
  await trivialClient.close();
  trivial.close();
  await stack.stop();
}
