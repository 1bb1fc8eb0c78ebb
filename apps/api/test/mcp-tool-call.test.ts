import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  CallToolResultSchema,
  ErrorCode,
  type JSONRPCRequest,
  McpError,
  RELATED_TASK_META_KEY,
} from "@modelcontextprotocol/sdk/types.js";
import { OneRequestTransport } from "../src/mcp/one-request.ts";
import { answerToolCall, plainToolCall } from "../src/mcp/tool-call.ts";

const call = {
  jsonrpc: "2.0",
  id: 7,
  method: "tools/call",
  params: { name: "web_scrape", arguments: { url: "https://example.com" } },
} as JSONRPCRequest;

/** What an SDK Server made for one request answers to it, through the one-request transport. */
async function throughServer(
  request: JSONRPCRequest,
  handler: (request: CallToolRequest) => Promise<CallToolResult>,
) {
  const server = new Server({ name: "t", version: "1" }, { capabilities: { tools: {}, logging: {} } });
  server.setRequestHandler(CallToolRequestSchema, handler);
  const one = new OneRequestTransport(server);
  await server.connect(one);
  return one.handle(request, { requestInfo: { headers: {} } });
}

describe("MCP tools/call without a Server", () => {
  test("a plain tools/call is taken as the SDK's schema parses it", () => {
    assert.deepEqual(plainToolCall(call), CallToolRequestSchema.parse(call));
    const withProgress = { ...call, params: { ...call.params, _meta: { progressToken: 1 } } };
    assert.deepEqual(plainToolCall(withProgress), CallToolRequestSchema.parse(withProgress));
    const noArguments = { ...call, params: { name: "web_scrape" } };
    assert.deepEqual(plainToolCall(noArguments), CallToolRequestSchema.parse(noArguments));
  });

  test("params taken as they are are what the schema makes of them, whatever they hold", () => {
    const params = [
      { name: "t" },
      { name: "t", arguments: {} },
      { name: "t", arguments: { url: "x", nested: { a: [1, { b: null }] } } },
      { name: "t", arguments: JSON.parse('{"__proto__":{"x":1},"url":"x"}') },
      { name: "t", arguments: { a: 1 }, extra: true },
      { name: "t", _meta: { progressToken: "p" } },
      { name: 1 },
    ];
    for (const p of params) {
      const request = { ...call, params: p } as JSONRPCRequest;
      const parsed = CallToolRequestSchema.safeParse(request);
      assert.deepEqual(plainToolCall(request), parsed.success ? parsed.data : undefined, JSON.stringify(p));
    }
  });

  test("anything else is left to the SDK's Server: other methods, bad params, tasks", () => {
    const left = (request: unknown, why: string) =>
      assert.equal(plainToolCall(request as JSONRPCRequest), undefined, why);
    left({ jsonrpc: "2.0", id: 1, method: "tools/list" }, "another method");
    left({ ...call, params: { arguments: {} } }, "no tool name");
    left({ ...call, params: { name: "t", arguments: [1] } }, "arguments that are not an object");
    left({ ...call, params: { name: "t", task: { ttl: 1000 } } }, "a task-augmented call");
    left(
      { ...call, params: { name: "t", _meta: { [RELATED_TASK_META_KEY]: { taskId: "a" } } } },
      "a call related to a task",
    );
  });

  test("the answer is the Server's, whatever the handler returns or throws", async () => {
    const handlers: Record<string, (request: CallToolRequest) => Promise<CallToolResult>> = {
      "a text result": async (r) => ({ content: [{ type: "text", text: `called ${r.params.name}` }] }),
      "structured content": async () => ({
        content: [{ type: "text", text: '{"a":1,"b":[2]}' }],
        structuredContent: { a: 1, b: [2] },
      }),
      "a tool error": async () => ({ content: [{ type: "text", text: "no" }], isError: true }),
      "an image": async () => ({
        content: [
          { type: "text", text: "{}" },
          { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
        ],
      }),
      "an image that is not base64": async () => ({
        content: [{ type: "image", data: "not base64!", mimeType: "image/png" }],
      }),
      "a block with more than the schema knows": async () =>
        ({ content: [{ type: "text", text: "x", extra: 1 }] }) as unknown as CallToolResult,
      "an array as structuredContent": async () =>
        ({ content: [], structuredContent: [1] }) as unknown as CallToolResult,
      "more than a result has": async () => ({ content: [], extra: { a: 1 } }) as CallToolResult,
      "isError that is not a boolean": async () =>
        ({ content: [], isError: "yes" }) as unknown as CallToolResult,
      "no content": async () => ({}) as CallToolResult,
      "an invalid result": async () => ({ content: [{ type: "nope" }] }) as unknown as CallToolResult,
      "a throwing handler": async () => {
        throw new Error("handler failed");
      },
      "an MCP error with data": async () => {
        throw new McpError(ErrorCode.InvalidRequest, "refused", { why: "because" });
      },
    };
    for (const [what, handler] of Object.entries(handlers)) {
      for (const request of [call, { ...call, id: "s" } as JSONRPCRequest]) {
        const direct = await answerToolCall(request.id, plainToolCall(request)!, handler);
        assert.deepEqual(direct, await throughServer(request, handler), what);
        if ("result" in direct)
          assert.deepEqual(direct.result, CallToolResultSchema.parse(await handler(plainToolCall(request)!)));
      }
    }
  });

  test("each call's handler sees its own request only", async () => {
    const seen: string[] = [];
    const handler = async (r: CallToolRequest) => {
      await new Promise((resolve) => setImmediate(resolve));
      seen.push(String(r.params.arguments?.url));
      return { content: [{ type: "text" as const, text: String(r.params.arguments?.url) }] };
    };
    const calls = ["https://a.example", "https://b.example"].map((url, i) => {
      const request = { ...call, id: i, params: { name: "web_scrape", arguments: { url } } };
      return answerToolCall(request.id, plainToolCall(request as JSONRPCRequest)!, handler);
    });
    const [a, b] = await Promise.all(calls);
    assert.deepEqual(seen.sort(), ["https://a.example", "https://b.example"]);
    assert.deepEqual(a, {
      result: { content: [{ type: "text", text: "https://a.example" }] },
      jsonrpc: "2.0",
      id: 0,
    });
    assert.deepEqual(b, {
      result: { content: [{ type: "text", text: "https://b.example" }] },
      jsonrpc: "2.0",
      id: 1,
    });
  });
});
