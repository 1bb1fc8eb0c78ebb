import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { callTool, connectMcp } from "../helpers/mcp-client.ts";
import { type Stack, startStack } from "../helpers/stack.ts";

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(async () => {
  await stack?.stop();
});

test("feedback is free, needs no key, is kept with who sent it, and a bad body is a 400 naming the field", async () => {
  const { key, accountId } = await stack.newKey(1_000);
  const keyed = await stack.post(
    "/web/v1/feedback",
    {
      message: "the table on this page lost a column",
      category: "quality",
      url: `${stack.site.url}/article`,
    },
    { authorization: `Bearer ${key}` },
  );
  assert.equal(keyed.status, 200, JSON.stringify(keyed.body));
  assert.match(keyed.body.feedbackId, /^fb_/);
  const keyless = await stack.postKeyless("/web/v1/feedback", { message: "please add a sitemap-only map" });
  assert.equal(keyless.status, 200);
  const rows = await stack.pg.database
    .sql`select id, account_id, client, category, message, url from feedback order by created_at`;
  assert.equal(rows.length, 2);
  assert.equal(rows[0]?.account_id, accountId);
  assert.equal(rows[0]?.category, "quality");
  assert.equal(rows[1]?.account_id, null);
  assert.equal(rows[1]?.category, "other");
  assert.ok(rows[1]?.client, "a keyless report keeps the client address");
  const account = await stack.call("GET", "/web/v1/account", { authorization: `Bearer ${key}` });
  assert.equal(account.body.balance.micros, 1_000, "nothing was charged");
  const bad = await stack.post("/web/v1/feedback", { message: "", category: "rant" });
  assert.equal(bad.status, 400);
  const fields = bad.body.error.details.map((d: { field: string }) => d.field).sort();
  assert.deepEqual(fields, ["category", "message"]);
});

test("a report keeps what it can: NUL and lone surrogates stored as U+FFFD, anything else as sent; never a 5xx", async () => {
  const { key } = await stack.newKey(1_000);
  const auth = { authorization: `Bearer ${key}` };
  // Raw JSON, so that the lone surrogate travels as the \ud800 escape a client would send.
  const report = (body: string) => stack.post("/web/v1/feedback", body, auth);
  const kept = ["line one\r\nline two", "\u202eright to left", "zero\u200bwidth", "\u{1F600} emoji"];
  for (const message of kept) {
    const r = await report(JSON.stringify({ message, requestId: message }));
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  const cleaned = await report(
    '{"message":"nul \\u0000 and lone \\ud800 here","jobId":"j\\u0000","sessionId":"s\\udc00"}',
  );
  assert.equal(cleaned.status, 200, JSON.stringify(cleaned.body));
  const rows = await stack.pg.database.sql`select message, request_id, job_id, session_id from feedback
    where id = ${cleaned.body.feedbackId}`;
  assert.deepEqual(rows[0], {
    message: "nul \ufffd and lone \ufffd here",
    request_id: cleaned.headers.get("x-request-id"),
    job_id: "j\ufffd",
    session_id: "s\ufffd",
  });
  const stored = await stack.pg.database.sql`select message from feedback where message = any(${kept})`;
  assert.equal(stored.length, kept.length, "CR/LF, right-to-left, zero-width and astral characters are kept");

  const refused: Array<[string, string]> = [
    [JSON.stringify({ message: "x".repeat(100_000) }), "message"],
    [JSON.stringify({ message: "ok", requestId: "r".repeat(100_000) }), "requestId"],
    [JSON.stringify({ message: "ok", url: "https://example.com/\u0000" }), "url"],
    [JSON.stringify({ message: "ok", url: "https://example.com/\r\n" }), "url"],
    ['{"message":"ok","url":"https://example.com/\\ud800"}', "url"],
  ];
  for (const [body, field] of refused) {
    const r = await report(body);
    assert.equal(r.status, 400, `${field}: ${JSON.stringify(r.body).slice(0, 300)}`);
    assert.equal(r.body.error.code, "invalid_request");
    assert.deepEqual(
      r.body.error.details.map((d: { field: string }) => d.field),
      [field],
    );
  }
  // The MCP tool takes its arguments through the same contract.
  const mcp = await connectMcp(stack.api.url, auth);
  try {
    const viaTool = await callTool(mcp, "web_feedback", { message: "over mcp \u0000" });
    assert.equal(viaTool.isError, false, JSON.stringify(viaTool.body));
    const [row] = await stack.pg.database
      .sql`select message from feedback where id = ${viaTool.body.feedbackId}`;
    assert.equal(row?.message, "over mcp \ufffd");
  } finally {
    await mcp.close();
  }
  const account = await stack.call("GET", "/web/v1/account", auth);
  assert.equal(account.body.balance.micros, 1_000, "nothing was charged");
});
