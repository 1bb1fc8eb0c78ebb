import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type JSONRPCRequest,
  JSONRPCRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { Request } from "express";
import { OneRequestTransport, plainRequest, singleRequest } from "../src/mcp/one-request.ts";

const call = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "web_scrape", arguments: {} } };
const headers = {
  accept: "application/json, text/event-stream",
  "content-type": "application/json",
  "mcp-protocol-version": "2025-06-18",
};

/** The parts of an express request singleRequest reads. */
function post(body: unknown, h: Record<string, string> = headers, raw?: string[]): Request {
  return {
    body,
    headers: h,
    rawHeaders: raw ?? Object.entries(h).flat(),
  } as unknown as Request;
}

describe("MCP single request", () => {
  test("a plain request with the headers the SDK's transport wants is taken, parsed by the SDK's schema", () => {
    assert.deepEqual(singleRequest(post(call)), call);
    const noVersion = { accept: headers.accept, "content-type": "application/json; charset=utf-8" };
    assert.deepEqual(singleRequest(post({ ...call, id: "a" }, noVersion)), { ...call, id: "a" });
  });

  test("everything the SDK's transport answers otherwise is left to it", () => {
    const left = (req: Request, why: string) => assert.equal(singleRequest(req), undefined, why);
    left(post([call]), "a batch");
    left(post({ jsonrpc: "2.0", method: "notifications/initialized" }), "a notification");
    left(post({ jsonrpc: "2.0", id: 1, result: {} }), "a response");
    left(
      post({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }),
      "initialize (the transport checks it apart)",
    );
    left(post({ ...call, extra: 1 }), "a message with fields JSON-RPC does not have");
    left(post({ ...call, id: null }), "a null id");
    left(post({ ...call, jsonrpc: "1.0" }), "another JSON-RPC version");
    left(post(call, { ...headers, accept: "application/json" }), "no text/event-stream in Accept");
    left(post(call, { ...headers, accept: "text/event-stream" }), "no application/json in Accept");
    left(post(call, { ...headers, "content-type": "text/plain" }), "not JSON");
    left(post(call, { ...headers, "mcp-protocol-version": "1999-01-01" }), "an unsupported version");
    left(
      post(call, headers, [...Object.entries(headers).flat(), "Content-Type", "text/plain"]),
      "Content-Type twice (a web Request joins them, and the transport refuses the join)",
    );
  });

  test("a body taken as it is is what the SDK's schema makes of it; the schema judges every other", () => {
    const bodies = [
      call,
      { ...call, id: "a" },
      { ...call, id: 0 },
      { ...call, id: -1 },
      { ...call, id: 1.5 },
      { ...call, id: 2 ** 53 },
      { ...call, id: Number.MAX_SAFE_INTEGER },
      { ...call, id: true },
      { ...call, id: null },
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", id: 1, method: 5 },
      { jsonrpc: "2.0", id: 1 },
      { ...call, params: [] },
      { ...call, params: null },
      { ...call, params: "x" },
      { ...call, params: { _meta: { progressToken: 1 } } },
      { ...call, params: { _meta: { progressToken: [] } } },
      { ...call, params: JSON.parse('{"__proto__":{"a":1},"name":"t"}') },
      JSON.parse('{"jsonrpc":"2.0","id":1,"method":"ping","__proto__":{}}'),
      { ...call, extra: 1 },
      { ...call, jsonrpc: "1.0" },
    ];
    for (const body of bodies) {
      const parsed = JSONRPCRequestSchema.safeParse(body);
      const what = JSON.stringify(body);
      if (plainRequest(body as Record<string, unknown>)) {
        assert.ok(parsed.success, what);
        assert.deepEqual(body, parsed.data, what);
      }
      assert.deepEqual(singleRequest(post(body)), parsed.success ? parsed.data : undefined, what);
    }
  });
});

describe("MCP one-request transport", () => {
  function server(handler: Parameters<Server["setRequestHandler"]>[1]): Server {
    const s = new Server({ name: "t", version: "1" }, { capabilities: { tools: {}, logging: {} } });
    s.setRequestHandler(CallToolRequestSchema, handler as never);
    return s;
  }

  test("answers with the server's response to that request; what the server sends meanwhile is dropped", async () => {
    const s = server(async (_req, extra) => {
      await extra.sendNotification({
        method: "notifications/message",
        params: { level: "info", data: "working" },
      });
      return { content: [{ type: "text", text: "done" }] };
    });
    const one = new OneRequestTransport();
    await s.connect(one);
    const response = await one.handle(call as JSONRPCRequest, { requestInfo: { headers: {} } });
    assert.deepEqual(response, {
      jsonrpc: "2.0",
      id: 7,
      result: { content: [{ type: "text", text: "done" }] },
    });
  });

  test("a protocol error is the SDK's JSON-RPC error for that id", async () => {
    const s = server(async () => ({ content: [] }));
    const one = new OneRequestTransport();
    await s.connect(one);
    const response = await one.handle(
      { jsonrpc: "2.0", id: "x", method: "no/such/method" },
      { requestInfo: { headers: {} } },
    );
    assert.equal(response.id, "x");
    assert.equal("error" in response && response.error.code, -32601);
  });

  test("given its server, the transport answers exactly as through the server's message listener", async () => {
    const requests = [
      call,
      { jsonrpc: "2.0", id: "x", method: "no/such/method" },
      { jsonrpc: "2.0", id: 8, method: "tools/call", params: { arguments: {} } },
      { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "boom", arguments: {} } },
      { jsonrpc: "2.0", id: 10, method: "tools/call", params: { name: "t", task: { ttl: 1000 } } },
    ] as JSONRPCRequest[];
    const handler = async (req: { params: { name: string } }) => {
      if (req.params.name === "boom") throw new Error("handler failed");
      return { content: [{ type: "text", text: `called ${req.params.name}` }] };
    };
    for (const request of requests) {
      const viaListener = new OneRequestTransport();
      const s1 = server(handler as never);
      await s1.connect(viaListener);
      const s2 = server(handler as never);
      const direct = new OneRequestTransport(s2);
      await s2.connect(direct);
      const extra = { requestInfo: { headers: {} } };
      assert.deepEqual(
        await direct.handle(request, extra),
        await viaListener.handle(request, extra),
        `${request.method} ${request.id}`,
      );
    }
  });

  // The timeout only stops a hang if the abort never comes.
  test("a caller leaving before the answer aborts the handler, and nothing is answered", {
    timeout: 30_000,
  }, async () => {
    let aborted!: () => void;
    const abortSeen = new Promise<void>((resolve) => {
      aborted = resolve;
    });
    let started!: () => void;
    const handlerStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const s = server(async (_req, extra) => {
      extra.signal.addEventListener("abort", () => aborted());
      started();
      await abortSeen;
      return { content: [{ type: "text", text: "too late" }] };
    });
    const one = new OneRequestTransport();
    await s.connect(one);
    let answered = false;
    void one.handle(call as JSONRPCRequest, { requestInfo: { headers: {} } }).then(() => {
      answered = true;
    });
    await handlerStarted;
    await one.close();
    await abortSeen;
    await new Promise((r) => setImmediate(r));
    assert.equal(answered, false);
  });
});
