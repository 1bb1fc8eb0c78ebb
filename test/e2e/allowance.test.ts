import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { callTool, connectMcp, type Json } from "../helpers/mcp-client.ts";
import { type Stack, startStack } from "../helpers/stack.ts";

/**
 * The keyless free allowance over MCP, exactly as the spec's table: pages of a site are distinct pages,
 * act counts actions, free sessions and acts give only the free scrape's outputs. The api trusts one
 * proxy hop, as behind the chart's ingress: each test is another caller by its X-Forwarded-For.
 */
let stack: Stack;
before(async () => {
  stack = await startStack({ env: { TRUSTED_PROXY_HOPS: "1" } });
});
after(async () => {
  await stack?.stop();
});

let n = 0;
/** A new keyless caller, as the proxy in front would name it. */
const newCaller = () => `198.51.100.${++n}`;

async function connect(address: string): Promise<Client> {
  return connectMcp(stack.api.url, { "x-forwarded-for": address });
}

const call = callTool;

async function counters(address: string): Promise<Record<string, number>> {
  const rows = await stack.pg.database.sql<{ bucket: string; count: number }[]>`
    select bucket, count from allowance_counters
    where client = ${address} and position('|' in bucket) = 0 order by bucket`;
  return Object.fromEntries(rows.map((r) => [r.bucket.replace(/:\d{4}-\d{2}-\d{2}$/, ""), r.count]));
}

const refOf = (controls: Json[], role: string, name: string): string => {
  const c = controls.find((x) => x.role === role && x.name === name);
  assert.ok(c, `no ${role} "${name}" in ${JSON.stringify(controls.map((x) => [x.role, x.name]))}`);
  return c.ref;
};

describe("keyless free allowance", () => {
  test("3 pages of a site are 3 distinct pages: the same page again, or with a #fragment, counts once", async () => {
    const me = newCaller();
    const client = await connect(me);
    const site = stack.site.url;
    for (const url of [
      `${site}/article`,
      `${site}/article#comments`,
      `${site}/article`,
      `${site}/page2`,
      `${site}/form`,
    ]) {
      const r = await call(client, "web_scrape", { url });
      assert.equal(r.isError, false, `${url}: ${JSON.stringify(r.body)}`);
    }
    const fourth = await call(client, "web_scrape", { url: `${site}/links` });
    assert.equal(fourth.isError, true);
    assert.equal(fourth.body.error.code, "allowance_exhausted");
    assert.match(fourth.body.error.message, /scrape-site:127\.0\.0\.1:.*3 of 3/);
    assert.match(fourth.body.error.message, /API key/);
    const again = await call(client, "web_scrape", { url: `${site}/page2` });
    assert.equal(again.isError, false, "a page already counted today still goes");
    assert.deepEqual(await counters(me), { scrape: 6, "scrape-site:127.0.0.1": 3 });
    await client.close();
  });

  test("callers behind the trusted proxy are told apart: one caller's use leaves another's allowance whole", async () => {
    const first = newCaller();
    const second = newCaller();
    const a = await connect(first);
    for (const path of ["/article", "/page2", "/form"])
      assert.equal((await call(a, "web_scrape", { url: `${stack.site.url}${path}` })).isError, false);
    assert.equal((await call(a, "web_scrape", { url: `${stack.site.url}/links` })).isError, true);
    const b = await connect(second);
    const theirs = await call(b, "web_scrape", { url: `${stack.site.url}/links` });
    assert.equal(theirs.isError, false, JSON.stringify(theirs.body));
    assert.deepEqual(await counters(second), { scrape: 1, "scrape-site:127.0.0.1": 1 });
    await a.close();
    await b.close();
  });

  test("a free session gives only the free scrape's outputs, and act counts actions (those that ran)", async () => {
    const me = newCaller();
    const client = await connect(me);
    const shot = await call(client, "web_session_open", {
      url: `${stack.site.url}/form`,
      formats: ["controls", "screenshot"],
    });
    assert.equal(shot.isError, true);
    assert.equal(shot.body.error.code, "key_required");
    assert.match(shot.body.error.message, /screenshot/);
    assert.deepEqual(await counters(me), {}, "a refused open takes nothing");

    const opened = await call(client, "web_session_open", { url: `${stack.site.url}/form` });
    assert.equal(opened.isError, false, JSON.stringify(opened.body));
    const { sessionId, data } = opened.body;

    // 4 actions asked, the third fails: the 2 that ran are counted, the other 2 go back
    const stopped = await call(client, "web_act", {
      sessionId,
      actions: [
        { type: { ref: refOf(data.controls, "textbox", "Username"), text: "bob" } },
        { click: { ref: refOf(data.controls, "button", "Cancel") } },
        { click: { ref: "e99999" } },
        { press: "Enter" },
      ],
    });
    assert.equal(stopped.body.success, false);
    assert.deepEqual(await counters(me), { "act:ever": 2, "session:ever": 1 });

    const pdf = await call(client, "web_act", { sessionId, actions: [{ press: "Tab" }], formats: ["pdf"] });
    assert.equal(pdf.isError, true);
    assert.match(pdf.body.error.message, /pdf/);

    const tooMany = await call(client, "web_act", {
      sessionId,
      actions: Array.from({ length: 9 }, () => ({ press: "Tab" })),
    });
    assert.equal(tooMany.isError, true);
    assert.equal(tooMany.body.error.code, "allowance_exhausted");
    assert.match(tooMany.body.error.message, /act:ever: 2 of 10 used, and this call asks for 9/);

    const rest = await call(client, "web_act", {
      sessionId,
      actions: Array.from({ length: 8 }, () => ({ press: "Tab" })),
    });
    assert.equal(rest.isError, false, JSON.stringify(rest.body));
    assert.deepEqual(Object.keys(rest.body.data), ["controls"], "the session's free formats");
    assert.deepEqual(await counters(me), { "act:ever": 10, "session:ever": 1 });
    const none = await call(client, "web_act", { sessionId, actions: [{ press: "Tab" }] });
    assert.equal(none.body.error.code, "allowance_exhausted");
    assert.equal((await call(client, "web_session_close", { sessionId })).isError, false);
    await client.close();
  });
});
