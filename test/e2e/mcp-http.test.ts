/**
 * /mcp over plain HTTP: a single JSON-RPC request is answered by a transport made for just that
 * request, everything else by the SDK's web-standard transport. A batch of one goes through the SDK's
 * transport and is answered with a single object, so it is the reference the single request is held to.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Json } from "../helpers/mcp-client.ts";
import { type Stack, startStack } from "../helpers/stack.ts";

let stack: Stack;
before(async () => {
  stack = await startStack({ jobs: false });
});
after(async () => {
  await stack?.stop();
});

const ACCEPT = "application/json, text/event-stream";

async function post(
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; type: string | null; session: string | null; body: Json }> {
  const res = await fetch(`${stack.api.url}/mcp`, {
    method: "POST",
    headers: {
      accept: ACCEPT,
      "content-type": "application/json",
      "mcp-protocol-version": "2025-06-18",
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    session: res.headers.get("mcp-session-id"),
    body: text ? JSON.parse(text) : null,
  };
}

describe("MCP over HTTP", () => {
  test("a single request is answered as the SDK's transport answers it: result or JSON-RPC error, same id", async () => {
    const messages = [
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", id: "abc", method: "tools/list" },
      { jsonrpc: "2.0", id: 0, method: "no/such/method" },
      { jsonrpc: "2.0", id: 7, method: "tools/call", params: {} },
      { jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "no_such_tool", arguments: {} } },
      { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "web_scrape", arguments: { url: 1 } } },
      { jsonrpc: "2.0", id: 10, method: "logging/setLevel", params: { level: "debug" } },
    ];
    for (const message of messages) {
      const single = await post(message);
      const reference = await post([message]);
      assert.equal(single.status, 200, JSON.stringify(message));
      assert.equal(single.type, "application/json");
      assert.equal(single.session, null, "a stateless server gives no session");
      assert.equal(single.body.id, message.id);
      assert.deepEqual(
        { status: single.status, type: single.type, body: single.body },
        { status: reference.status, type: reference.type, body: reference.body },
        `${JSON.stringify(message)} answered differently from the SDK's transport`,
      );
    }
    const unknown = await post({ jsonrpc: "2.0", id: 3, method: "no/such/method" });
    assert.equal(unknown.body.error.code, -32601);
    const wrongArgs = await post({
      jsonrpc: "2.0",
      id: 4,
      method: "tools/call",
      params: { name: "web_scrape", arguments: { url: 1 } },
    });
    assert.equal(wrongArgs.body.result.isError, true);
    assert.equal(JSON.parse(wrongArgs.body.result.content[0].text).error.details[0].field, "url");
  });

  test("a tools/call that runs its tool is answered as the SDK's Server answers it, and charged alike", async () => {
    const auth = { authorization: `Bearer ${stack.key}` };
    const args = { url: `${stack.site.url}/article`, formats: ["markdown"], maxAge: 3_600_000 };
    const message = (id: number, extra: Record<string, unknown> = {}) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "web_scrape", arguments: args, ...extra },
    });
    const balance = async () =>
      (await (await fetch(`${stack.api.url}/web/v1/account`, { headers: auth })).json()).balance.micros;
    await post(message(1), auth); // rendered once; both answers below come from the cache
    // A call's own duration is the one thing its answer may differ in.
    const steady = (body: Json) =>
      JSON.parse(JSON.stringify(body).replace(/(\\?"ms\\?":)\d+/g, (_, key) => `${key}0`));
    for (const extra of [{}, { _meta: { progressToken: "p" } }]) {
      const before = await balance();
      const single = await post(message(2, extra), auth);
      const afterSingle = await balance();
      const reference = await post([message(2, extra)], auth);
      assert.equal(single.status, 200);
      assert.notEqual(single.body.result.isError, true, JSON.stringify(single.body));
      assert.deepEqual(steady(single.body), steady(reference.body));
      assert.ok(before > afterSingle, "the call was charged");
      assert.equal(afterSingle - (await balance()), before - afterSingle, "both paid the same");
    }
    const task = await post(message(3, { task: { ttl: 1000 } }), auth);
    assert.deepEqual(task.body, (await post([message(3, { task: { ttl: 1000 } })], auth)).body);
  });

  test("what the transport refuses stays refused: Accept, Content-Type, protocol version, malformed messages", async () => {
    const call = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    const notAcceptable = await post(call, { accept: "application/json" });
    assert.equal(notAcceptable.status, 406);
    assert.equal(notAcceptable.body.error.code, -32000);
    const notJson = await post(call, { "content-type": "text/plain" });
    assert.equal(notJson.status, 415);
    const oldVersion = await post(call, { "mcp-protocol-version": "1999-01-01" });
    assert.equal(oldVersion.status, 400);
    assert.match(oldVersion.body.error.message, /Unsupported protocol version/);
    const noVersion = await post(call, { "mcp-protocol-version": "" });
    assert.equal(noVersion.status, 400, "an empty version is not a supported one");
    const badId = await post({ jsonrpc: "2.0", id: { x: 1 }, method: "ping" });
    assert.equal(badId.status, 400);
    assert.equal(badId.body.error.code, -32700);
    const extraField = await post({ jsonrpc: "2.0", id: 1, method: "ping", extra: true });
    assert.equal(extraField.status, 400, "a request with fields JSON-RPC does not have is not a request");
    const wrongVersion = await post({ jsonrpc: "1.0", id: 1, method: "ping" });
    assert.equal(wrongVersion.status, 400);
  });

  test("notifications are accepted without a body; initialize still negotiates", async () => {
    const note = await post({ jsonrpc: "2.0", method: "notifications/initialized" });
    assert.equal(note.status, 202);
    assert.equal(note.body, null);
    const init = await post({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    assert.equal(init.status, 200);
    assert.equal(init.body.result.protocolVersion, "2025-06-18");
    assert.equal(init.body.result.serverInfo.name, "browserfleet");
    assert.equal(init.session, null);
  });

  test("two callers interleaved through one process each get their own identity and charges", async () => {
    const rich = await stack.newKey(1_000_000);
    const poor = await stack.newKey(500); // less than one format costs
    const scrape = (key: string, id: number) =>
      post(
        {
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "web_scrape", arguments: { url: `${stack.site.url}/article` } },
        },
        { authorization: `Bearer ${key}` },
      );
    const rounds = 6;
    const calls: Array<Promise<{ who: string; answer: Json }>> = [];
    for (let i = 1; i <= rounds; i++)
      calls.push(
        scrape(rich.key, i).then((answer) => ({ who: "rich", answer })),
        scrape(poor.key, i).then((answer) => ({ who: "poor", answer })),
      );
    for (const { who, answer } of await Promise.all(calls)) {
      assert.equal(answer.status, 200);
      const result = answer.body.result;
      const body = JSON.parse(result.content[0].text);
      if (who === "rich") {
        assert.notEqual(result.isError, true, JSON.stringify(body));
        assert.match(body.data.markdown, /The Fixture Article/);
      } else {
        assert.equal(result.isError, true);
        assert.equal(body.error.code, "insufficient_balance");
      }
    }
    const balance = async (key: string) =>
      (
        await (
          await fetch(`${stack.api.url}/web/v1/account`, { headers: { authorization: `Bearer ${key}` } })
        ).json()
      ).balance.micros;
    assert.equal(await balance(rich.key), 1_000_000 - rounds * 1_000, "rich paid for its own calls");
    assert.equal(await balance(poor.key), 500, "poor was charged for nothing");
  });

  test("interleaved calls for different pages each carry their own page, the same in text and structuredContent", async () => {
    const scrape = (page: string, id: number) =>
      post(
        {
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "web_scrape", arguments: { url: `${stack.site.url}${page}` } },
        },
        { authorization: `Bearer ${stack.key}` },
      ).then((answer) => ({ page, answer }));
    const calls = [];
    for (let i = 1; i <= 6; i++) calls.push(scrape("/article", 2 * i), scrape("/page2", 2 * i + 1));
    for (const { page, answer } of await Promise.all(calls)) {
      assert.equal(answer.status, 200);
      const { result } = answer.body;
      assert.notEqual(result.isError, true, JSON.stringify(result));
      assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
      assert.equal(result.structuredContent.metadata.url, `${stack.site.url}${page}`);
      const [own, other] =
        page === "/article" ? [/Fixture Article/, /Page Two/] : [/Page Two/, /Fixture Article/];
      assert.match(result.structuredContent.data.markdown, own);
      assert.doesNotMatch(result.structuredContent.data.markdown, other);
    }
  });
});
