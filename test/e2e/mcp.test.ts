import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { callTool, connectMcp, type Json } from "../helpers/mcp-client.ts";
import { type Stack, startStack } from "../helpers/stack.ts";
import { waitFor } from "../helpers/wait-for.ts";

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(async () => {
  await stack?.stop();
});

async function connect(key?: string): Promise<Client> {
  return connectMcp(stack.api.url, key ? { authorization: `Bearer ${key}` } : {});
}

const call = callTool;

describe("MCP endpoint", () => {
  test("initialize and tools/list need no key and list the spec's tools", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of [
      "web_scrape",
      "web_session_open",
      "web_act",
      "web_scrape_batch",
      "web_map",
      "web_crawl",
      "web_feedback",
    ])
      assert.ok(names.includes(n), `${n} missing from ${names.join(", ")}`);
    const scrape = tools.find((t) => t.name === "web_scrape");
    assert.ok(
      (scrape?.inputSchema.properties as Record<string, unknown> | undefined)?.formats,
      "the input schema comes from the contract",
    );
    for (const t of tools) {
      const a = t.annotations;
      assert.ok(
        a && typeof a.readOnlyHint === "boolean" && typeof a.openWorldHint === "boolean",
        `${t.name} hints`,
      );
      assert.ok(t.title, `${t.name} has a title`);
    }
    const byName = new Map(tools.map((t) => [t.name, t.annotations]));
    assert.equal(byName.get("web_scrape")?.readOnlyHint, true);
    assert.equal(byName.get("web_act")?.destructiveHint, true);
    assert.equal(byName.get("web_batch_status")?.openWorldHint, false);
    await client.close();
  });

  test("a screenshot comes back as image content, the rest as structured content and JSON text", async () => {
    const client = await connect(stack.key);
    const r = await client.callTool({
      name: "web_scrape",
      arguments: { url: `${stack.site.url}/article`, formats: ["markdown", "screenshot"] },
    });
    assert.notEqual(r.isError, true, JSON.stringify(r.content).slice(0, 500));
    const content = r.content as Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
    const image = content.find((c) => c.type === "image");
    assert.equal(image?.mimeType, "image/png");
    assert.ok(
      Buffer.from(image?.data ?? "", "base64")
        .subarray(1, 4)
        .toString() === "PNG",
    );
    const structured = r.structuredContent as { data: { markdown: string; screenshot: string } };
    assert.match(structured.data.markdown, /The Fixture Article/);
    assert.equal(structured.data.screenshot, "(image content 1)");
    assert.deepEqual(JSON.parse(content[0]?.text ?? "null"), structured);
    await client.close();
  });

  test("a keyless client gets the free allowance: 3 pages of one site, then a result that says how to get a key", async () => {
    const client = await connect();
    const failed = await call(client, "web_scrape", { url: "http://127.0.0.1:9/" });
    assert.equal(failed.isError, true, "an unreachable page fails");
    for (let i = 0; i < 3; i++) {
      const ok = await call(client, "web_scrape", { url: `${stack.site.url}/page2?n=${i}` });
      assert.equal(ok.isError, false, JSON.stringify(ok.body));
      assert.match(ok.body.data.markdown, /\S/);
    }
    const fourth = await call(client, "web_scrape", { url: `${stack.site.url}/article` });
    assert.equal(fourth.isError, true);
    assert.equal(fourth.body.error.code, "allowance_exhausted");
    assert.match(fourth.body.error.message, /API key/);
    const [row] = await stack.pg.database.sql`
      select count from allowance_counters where bucket like 'scrape-site:%' and position('|' in bucket) = 0`;
    assert.equal(row?.count, 3, "the failed call gave its unit back");
    await client.close();
  });

  test("keyless calls outside the allowance are refused with the reason", async () => {
    const client = await connect();
    const shot = await call(client, "web_scrape", {
      url: `${stack.site.url}/article`,
      formats: ["screenshot"],
    });
    assert.equal(shot.isError, true);
    assert.match(shot.body.error.message, /screenshot/);
    const json = await call(client, "web_scrape", {
      url: `${stack.site.url}/article`,
      formats: ["json"],
      json: { prompt: "x" },
    });
    assert.equal(json.body.error.code, "key_required");
    await client.close();
  });

  test("a keyed client is charged like REST, and bad arguments name the field", async () => {
    const { key } = await stack.newKey(1_000_000);
    const client = await connect(key);
    const ok = await call(client, "web_scrape", {
      url: `${stack.site.url}/article`,
      formats: ["markdown", "links"],
    });
    assert.equal(ok.isError, false, JSON.stringify(ok.body));
    const account = await (
      await fetch(`${stack.api.url}/web/v1/account`, { headers: { authorization: `Bearer ${key}` } })
    ).json();
    assert.equal(account.balance.micros, 1_000_000 - 2_000);
    const bad = await call(client, "web_scrape", { url: "not a url" });
    assert.equal(bad.isError, true);
    assert.equal(bad.body.error.code, "invalid_request");
    assert.equal(bad.body.error.details[0].field, "url");
    await client.close();
  });

  test("callers with different keys calling at once each get their own results, charges and errors", async () => {
    const a = await stack.newKey(1_000_000);
    const b = await stack.newKey(1_000_000);
    const poor = await stack.newKey(500); // less than one format costs
    const [ca, cb, cp] = await Promise.all([connect(a.key), connect(b.key), connect(poor.key)]);
    const rounds = 4;
    const calls: Array<Promise<{ who: string; isError: boolean; body: Json }>> = [];
    for (let i = 0; i < rounds; i++) {
      // Interleaved, all in flight together: every request builds its own server and transport.
      calls.push(
        call(ca, "web_scrape", { url: `${stack.site.url}/article`, formats: ["markdown"] }).then((r) => ({
          who: "a",
          ...r,
        })),
        call(cb, "web_scrape", { url: `${stack.site.url}/page2`, formats: ["links"] }).then((r) => ({
          who: "b",
          ...r,
        })),
        call(cp, "web_scrape", { url: `${stack.site.url}/article`, formats: ["markdown"] }).then((r) => ({
          who: "poor",
          ...r,
        })),
      );
    }
    const results = await Promise.all(calls);
    for (const r of results) {
      if (r.who === "a") {
        assert.equal(r.isError, false, JSON.stringify(r.body));
        assert.match(r.body.data.markdown, /The Fixture Article/);
        assert.equal(r.body.data.links, undefined, "a gets only its own format");
      } else if (r.who === "b") {
        assert.equal(r.isError, false, JSON.stringify(r.body));
        assert.ok(Array.isArray(r.body.data.links), JSON.stringify(r.body));
        assert.equal(r.body.data.markdown, undefined, "b gets only its own format");
      } else {
        assert.equal(r.isError, true, JSON.stringify(r.body));
        assert.equal(r.body.error.code, "insufficient_balance");
      }
    }
    const balance = async (key: string) =>
      (
        await (
          await fetch(`${stack.api.url}/web/v1/account`, { headers: { authorization: `Bearer ${key}` } })
        ).json()
      ).balance.micros;
    assert.equal(await balance(a.key), 1_000_000 - rounds * 1_000, "a paid for its own calls only");
    assert.equal(await balance(b.key), 1_000_000 - rounds * 1_000, "b paid for its own calls only");
    assert.equal(await balance(poor.key), 500, "a refused call costs nothing");
    await Promise.all([ca.close(), cb.close(), cp.close()]);
  });

  test("web_scrape_batch starts a job on the same path as REST, web_batch_status pages through its results; keyless is told to get a key", async () => {
    const { key } = await stack.newKey(1_000_000);
    const client = await connect(key);
    const urls = [`${stack.site.url}/article`, `${stack.site.url}/page2`];
    const start = await call(client, "web_scrape_batch", { urls });
    assert.equal(start.isError, false, JSON.stringify(start.body));
    const status: Json = await waitFor(
      "the batch to complete",
      async () => {
        const body = (await call(client, "web_batch_status", { jobId: start.body.jobId })).body;
        assert.equal(body.status, "completed");
        return body;
      },
      30_000,
      100,
    );
    assert.deepEqual(
      status.data.map((p: Json) => p.url),
      urls,
    );
    const crawlStatus = await call(client, "web_crawl_status", { jobId: start.body.jobId });
    assert.equal(crawlStatus.isError, true, "a batch is not a crawl");
    await client.close();
    const keyless = await connect();
    const refused = await call(keyless, "web_crawl", { url: `${stack.site.url}/crawl/` });
    assert.equal(refused.isError, true);
    assert.equal(refused.body.error.code, "key_required");
    await keyless.close();
  });

  test("a wrong key on /mcp is a 401, and GET /mcp is 405 on this stateless server", async () => {
    const res = await fetch(`${stack.api.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: "Bearer bf_live_wrong",
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    assert.equal(res.status, 401);
    assert.equal((await fetch(`${stack.api.url}/mcp`)).status, 405);
  });
});
