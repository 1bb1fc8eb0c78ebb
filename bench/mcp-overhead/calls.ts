/**
 * The calls of the MCP overhead bench (see run.ts), interleaved against one api: REST by plain fetch,
 * `web_scrape` through the SDK client, the same tools/call as one JSON-RPC POST by plain fetch, the SDK
 * client with an abort signal of its own per fetch, and with `clientCost` the SDK client and a plain fetch
 * against a trivial server in this process replaying our answer. Run in the bench's process, or in a
 * process of its own (`--clients-apart`), as an agent's client is: then it reads its options from the
 * BENCH_CALLS environment variable and writes the timings to stdout as JSON.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

export interface CallsOptions {
  apiUrl: string;
  key: string;
  /** The scrape request, the same for every call. */
  request: Record<string, unknown>;
  rounds: number;
  clientCost: boolean;
}

/** Milliseconds per call, in order, for each way of calling. */
export interface Timings {
  restMs: number[];
  mcpMs: number[];
  rpcMs: number[];
  ownMs: number[];
  trivialSdkMs: number[];
  trivialRpcMs: number[];
}

/** fetch with a signal of its own per request, following the caller's until the answer's headers. */
export const ownSignalFetch: typeof fetch = async (input, init) => {
  const outer = init?.signal;
  if (!outer) return fetch(input, init);
  const own = new AbortController();
  const abort = () => own.abort(outer.reason);
  if (outer.aborted) abort();
  else outer.addEventListener("abort", abort, { once: true });
  try {
    return await fetch(input, { ...init, signal: own.signal });
  } finally {
    outer.removeEventListener("abort", abort);
  }
};

export async function measureCalls(opts: CallsOptions): Promise<Timings> {
  const { request } = opts;
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${opts.apiUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${opts.key}` } },
    }),
  );

  const ownSignalClient = new Client({ name: "bench", version: "1.0.0" });
  await ownSignalClient.connect(
    new StreamableHTTPClientTransport(new URL(`${opts.apiUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${opts.key}` } },
      fetch: ownSignalFetch,
    }),
  );

  async function rest(): Promise<number> {
    const t = performance.now();
    const r = await fetch(`${opts.apiUrl}/web/v1/scrape`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${opts.key}` },
      body: JSON.stringify(request),
    });
    const body = (await r.json()) as { data?: { markdown?: string } };
    if (r.status !== 200 || !body.data?.markdown)
      throw new Error(`REST scrape failed: ${JSON.stringify(body)}`);
    return performance.now() - t;
  }

  let rpcId = 0;
  async function jsonRpc(url = `${opts.apiUrl}/mcp`): Promise<number> {
    const t = performance.now();
    const r = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
        authorization: `Bearer ${opts.key}`,
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
  const trivialUrl = opts.clientCost
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
        requestInit: { headers: { authorization: `Bearer ${opts.key}` } },
      }),
    );

  try {
    // Warm both paths (and the cache, with --cached).
    for (let i = 0; i < 3; i++) {
      await rest();
      await mcp();
      await jsonRpc();
      await mcpOwnSignal();
    }
    if (trivialUrl) {
      const r = await fetch(`${opts.apiUrl}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${opts.key}`,
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
    for (let i = 0; i < opts.rounds; i++) {
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
    return { restMs, mcpMs, rpcMs, ownMs, trivialSdkMs, trivialRpcMs };
  } finally {
    await client.close();
    await ownSignalClient.close();
    await trivialClient.close();
    trivial.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const opts = JSON.parse(process.env.BENCH_CALLS ?? "") as CallsOptions;
  process.stdout.write(`${JSON.stringify(await measureCalls(opts))}\n`);
}
