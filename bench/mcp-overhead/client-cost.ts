/**
 * What an MCP client costs per call on its own, without our server: `tools/call` answered by a trivial
 * local HTTP server with a fixed result (a 1 KB scrape, its JSON as text and as structuredContent), each
 * way interleaved, 4000 rounds:
 *
 * - REST-shaped: a POST and `json()` of the bare result, as the REST bench call reads it;
 * - JSON-RPC by plain fetch, without and with one abort signal shared by every request (what the SDK
 *   transport passes: Node's fetch leaves a listener on it per request until a GC, undici #5285);
 * - the SDK client, as is, with its own signal per fetch, and with no signal.
 *
 *   npx tsx bench/mcp-overhead/client-cost.ts [--rounds 4000]
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ownSignalFetch } from "./calls.ts";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "4000" } } });
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds must be a positive integer");

const structured = {
  success: true,
  data: { markdown: `# Title\n\n${"Some words of an article, a paragraph. ".repeat(16)}` },
  errors: {},
  metadata: { url: "http://example.test/article", title: "An article", formats: ["markdown"], renders: 0 },
};
const server = createServer((req, res) => {
  if (req.method !== "POST") return void res.writeHead(405).end();
  let body = "";
  req.on("data", (chunk) => {
    body += chunk;
  });
  req.on("end", () => {
    const msg = JSON.parse(body);
    if (msg.rest)
      return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(structured));
    if (!("id" in msg)) return void res.writeHead(202).end();
    const result =
      msg.method === "initialize"
        ? {
            protocolVersion: "2025-06-18",
            capabilities: { tools: {} },
            serverInfo: { name: "s", version: "1" },
          }
        : { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result }));
  });
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
const args = { url: "http://example.test/article", formats: ["markdown"] };

const noSignalFetch: typeof fetch = (input, init) => fetch(input, { ...init, signal: undefined });

async function sdkClient(fetchFn?: typeof fetch): Promise<Client> {
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      ...(fetchFn ? { fetch: fetchFn } : {}),
      requestInit: { headers: { authorization: "Bearer k" } },
    }),
  );
  return client;
}
const clients = {
  plain: await sdkClient(),
  own: await sdkClient(ownSignalFetch),
  none: await sdkClient(noSignalFetch),
};

let id = 0;
const shared = new AbortController();
const post = async (body: unknown, signal?: AbortSignal) => {
  const r = await fetch(url, {
    method: "POST",
    signal,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: "Bearer k",
    },
    body: JSON.stringify(body),
  });
  return r.json();
};
const rpc = (signal?: AbortSignal) => () =>
  post(
    { jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "web_scrape", arguments: args } },
    signal,
  );
const tool = (client: Client) => () => client.callTool({ name: "web_scrape", arguments: args });
const ways: Record<string, () => Promise<unknown>> = {
  "REST-shaped fetch": () => post({ rest: true, ...args }),
  "JSON-RPC fetch": rpc(),
  "JSON-RPC fetch, shared signal": rpc(shared.signal),
  "SDK client": tool(clients.plain),
  "SDK client, own signal": tool(clients.own),
  "SDK client, no signal": tool(clients.none),
};

try {
  for (let i = 0; i < 300; i++) for (const call of Object.values(ways)) await call();
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(ways).map((name) => [name, []]));
  for (let i = 0; i < rounds; i++)
    for (const [name, call] of Object.entries(ways)) {
      const t = performance.now();
      await call();
      times[name]!.push(performance.now() - t);
    }
  const at = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * q)]! * 1000;
  console.log(`mcp client cost: ${rounds} interleaved rounds against a trivial local server`);
  for (const [name, xs] of Object.entries(times))
    console.log(`  ${name.padEnd(30)} p10 ${at(xs, 0.1).toFixed(0)} µs  median ${at(xs, 0.5).toFixed(0)} µs`);
} finally {
  for (const client of Object.values(clients)) await client.close();
  server.close();
}
