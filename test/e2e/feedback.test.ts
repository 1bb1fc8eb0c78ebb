import assert from "node:assert/strict";
import { after, before, test } from "node:test";
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
