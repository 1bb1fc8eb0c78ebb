import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, test } from "node:test";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, type JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { OneRequestTransport } from "../src/mcp/one-request.ts";
import { endJson, responseParts } from "../src/mcp/response-json.ts";

const responseJson = (...args: Parameters<typeof responseParts>) => responseParts(...args).join("");

const call = { jsonrpc: "2.0", id: "call-1", method: "tools/call", params: { name: "t", arguments: {} } };

/** The SDK's validated response to a tool call whose handler answered `result`. */
async function answer(result: Record<string, unknown>) {
  const s = new Server({ name: "t", version: "1" }, { capabilities: { tools: {} } });
  s.setRequestHandler(CallToolRequestSchema, async () => result as never);
  const one = new OneRequestTransport();
  await s.connect(one);
  return one.handle(call as JSONRPCRequest, { requestInfo: { headers: {} } });
}

describe("MCP response bytes", () => {
  const structured = {
    success: true,
    data: { markdown: '# A "quoted" title\n\nline\\two\u2028' },
    metadata: { url: "https://example.com/", formats: ["markdown"], cached: ["markdown"] },
  };
  const json = JSON.stringify(structured);

  test("a tool result's JSON text is written as its structuredContent: the same message as the SDK's", async () => {
    const response = await answer({ content: [{ type: "text", text: json }], structuredContent: structured });
    const bytes = responseJson(response, { value: structured, json });
    assert.deepEqual(JSON.parse(bytes), JSON.parse(JSON.stringify(response)));
    assert.deepEqual(JSON.parse(bytes).result.structuredContent, structured);
    assert.equal(JSON.parse(bytes).result.content[0].text, json);
    const error = await answer({
      content: [{ type: "text", text: json }],
      structuredContent: structured,
      isError: true,
    });
    assert.deepEqual(
      JSON.parse(responseJson(error, { value: structured, json })),
      JSON.parse(JSON.stringify(error)),
    );
  });

  test("where the response's structuredContent is not what the JSON was made from, it is serialised as is", async () => {
    const response = await answer({ content: [{ type: "text", text: json }], structuredContent: structured });
    const other = { ...structured, success: false };
    const stale = { value: other, json: JSON.stringify(other) };
    assert.equal(responseJson(response, stale), JSON.stringify(response));
    const reordered = { metadata: structured.metadata, success: true, data: structured.data };
    assert.equal(
      responseJson(response, { value: reordered, json: JSON.stringify(reordered) }),
      JSON.stringify(response),
    );
    const plain = await answer({ content: [{ type: "text", text: "no structured content" }] });
    assert.equal(responseJson(plain, { value: structured, json }), JSON.stringify(plain));
    assert.equal(responseJson(plain), JSON.stringify(plain));
  });

  test("the parts go out as one JSON body with its length in bytes, whatever characters it holds", async () => {
    const wide = { ...structured, data: { markdown: "Ünïcödé — 日本語 🙂 ".repeat(500) } };
    const wideJson = JSON.stringify(wide);
    const response = await answer({ content: [{ type: "text", text: wideJson }], structuredContent: wide });
    const parts = responseParts(response, { value: wide, json: wideJson });
    assert.equal(parts.length, 3, "the structured JSON is a part of its own");
    const server = createServer((_req, res) => endJson(res, parts));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      const body = Buffer.from(await res.arrayBuffer());
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "application/json");
      assert.equal(Number(res.headers.get("content-length")), body.length);
      assert.equal(body.toString("utf8"), parts.join(""));
      assert.deepEqual(JSON.parse(body.toString("utf8")), JSON.parse(JSON.stringify(response)));
    } finally {
      server.close();
    }
  });
});
