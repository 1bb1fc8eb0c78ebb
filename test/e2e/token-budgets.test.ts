/**
 * Answers an agent can afford: token counts on results, maxTokens cutting an answer at a block boundary,
 * and reading on with the cursor from the same kept render, over REST and MCP.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { countTokens } from "@browserfleet/tokens";
import { callTool, connectMcp } from "../helpers/mcp-client.ts";
import { type Stack, startStack } from "../helpers/stack.ts";
import { waitFor } from "../helpers/wait-for.ts";

let stack: Stack;
let site: string;
before(async () => {
  stack = await startStack();
  site = stack.site.url;
});
after(async () => stack?.stop());

const balanceOf = async (key: string): Promise<number> =>
  (await stack.call("GET", "/web/v1/account", { authorization: `Bearer ${key}` })).body.balance.micros;
const as = (key: string) => ({ authorization: `Bearer ${key}` });

describe("token counts", () => {
  it("every text format of a scrape says how many tokens it holds; binary formats are not counted", async () => {
    const { status, body } = await stack.post("/web/v1/scrape", {
      url: `${site}/form`,
      formats: ["markdown", "html", "links", "accessibility", "controls", "elements", "screenshot"],
      selectors: ["button"],
    });
    assert.equal(status, 200);
    const tokens = body.metadata.tokens;
    assert.deepEqual(Object.keys(tokens).sort(), [
      "accessibility",
      "controls",
      "elements",
      "html",
      "links",
      "markdown",
    ]);
    assert.equal(tokens.markdown, countTokens(body.data.markdown));
    assert.equal(tokens.html, countTokens(body.data.html));
    assert.equal(tokens.controls, countTokens(JSON.stringify(body.data.controls)));
    assert.ok(tokens.html > tokens.markdown, "html costs more tokens than markdown");
    assert.equal(body.metadata.truncated, undefined);
  });
});

describe("maxTokens and reading on with a cursor", () => {
  it("a long page read in budgeted parts concatenates to exactly the unbudgeted markdown of that render", async () => {
    const { key } = await stack.newKey(1_000_000);
    const first = await stack.post("/web/v1/scrape", { url: `${site}/manual`, maxTokens: 6000 }, as(key));
    assert.equal(first.status, 200, JSON.stringify(first.body).slice(0, 300));
    const t = first.body.metadata.truncated;
    assert.equal(t.format, "markdown");
    assert.deepEqual(t.omitted, []);
    assert.ok(t.cursor && Date.parse(t.expiresAt) > Date.now());
    assert.ok(first.body.metadata.tokens.markdown <= 6000);
    // The same render, whole: the cache keeps what the first call rendered.
    const whole = await stack.post("/web/v1/scrape", { url: `${site}/manual`, maxAge: 600_000 }, as(key));
    assert.deepEqual(whole.body.metadata.cached, ["markdown"]);
    const full: string = whole.body.data.markdown;
    const total = whole.body.metadata.tokens.markdown;
    assert.ok(total > 18_000, `a long page: ${total} tokens`);
    assert.ok(Math.abs(t.remainingTokens - (total - first.body.metadata.tokens.markdown)) < 50);

    const budget = Math.ceil(total / 4) + 200;
    const parts: string[] = [];
    let answer = await stack.post(
      "/web/v1/scrape",
      { url: `${site}/manual`, maxTokens: budget, maxAge: 600_000 },
      as(key),
    );
    parts.push(answer.body.data.markdown);
    const before = await balanceOf(key);
    let calls = 0;
    while (answer.body.metadata.truncated) {
      answer = await stack.post(
        "/web/v1/scrape",
        { cursor: answer.body.metadata.truncated.cursor, maxTokens: budget },
        as(key),
      );
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.ok(answer.body.metadata.tokens.markdown <= budget);
      assert.equal(answer.body.metadata.renders, 0, "no page load");
      parts.push(answer.body.data.markdown);
      calls++;
    }
    assert.equal(parts.length, 4, `${parts.length} parts`);
    assert.equal(parts.join(""), full, "the parts concatenated are the whole markdown, byte for byte");
    for (const p of parts.slice(0, -1)) {
      assert.equal(
        (full.slice(0, full.indexOf(p) + p.length).match(/^```/gm) ?? []).length % 2,
        0,
        "not inside a code block",
      );
      assert.match(p, /\n$/, "a part ends at a line end");
    }
    assert.equal(before - (await balanceOf(key)), calls * 200, "each part read on costs one cached format");
  });

  it("formats that do not fit are left out and named, then come in the next part", async () => {
    const { body } = await stack.post("/web/v1/scrape", {
      url: `${site}/manual`,
      formats: ["markdown", "links", "screenshot"],
      maxTokens: 2000,
    });
    assert.equal(body.metadata.truncated.format, "markdown");
    assert.deepEqual(body.metadata.truncated.omitted, ["links"]);
    assert.ok(body.data.screenshot, "binary formats are not cut");
    assert.equal(body.data.links, undefined);
    let next = body;
    const links: unknown[] = [];
    for (let i = 0; i < 40 && next.metadata.truncated; i++) {
      next = (await stack.post("/web/v1/scrape", { cursor: next.metadata.truncated.cursor })).body;
      links.push(...(next.data.links ?? []));
    }
    assert.equal(next.metadata.truncated, undefined);
    assert.ok(links.length > 80, `${links.length} links`);
  });

  it("foreign, forged and expired cursors are refused with a clear code, and cost nothing", async () => {
    const a = await stack.newKey(1_000_000);
    const b = await stack.newKey(1_000_000);
    const { body } = await stack.post(
      "/web/v1/scrape",
      { url: `${site}/manual`, maxTokens: 1000 },
      as(a.key),
    );
    const cursor: string = body.metadata.truncated.cursor;
    const bBefore = await balanceOf(b.key);

    const foreign = await stack.post("/web/v1/scrape", { cursor }, as(b.key));
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error.code, "cursor_not_found");

    const forged = await stack.post("/web/v1/scrape", { cursor: "bm90LWEtY3Vyc29y" }, as(b.key));
    assert.equal(forged.status, 400);
    assert.equal(forged.body.error.code, "invalid_cursor");
    assert.equal(forged.body.error.details[0].field, "cursor");

    const [id, f, o] = JSON.parse(Buffer.from(cursor, "base64url").toString());
    const made = (v: unknown[]) => Buffer.from(JSON.stringify(v)).toString("base64url");
    const unknown = await stack.post(
      "/web/v1/scrape",
      { cursor: made([crypto.randomUUID(), f, o, 4102444800]) },
      as(a.key),
    );
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, "cursor_not_found");
    const past = await stack.post(
      "/web/v1/scrape",
      { cursor: made([id, f, 99_000_000, 4102444800]) },
      as(a.key),
    );
    assert.equal(past.status, 400, "an offset past the end of the render");
    assert.equal(past.body.error.code, "invalid_cursor");
    const expired = await stack.post("/web/v1/scrape", { cursor: made([id, f, o, 1700000000]) }, as(a.key));
    assert.equal(expired.status, 410);
    assert.equal(expired.body.error.code, "cursor_expired");

    const both = await stack.post("/web/v1/scrape", { cursor, url: `${site}/manual` }, as(a.key));
    assert.equal(both.status, 400);
    assert.equal(await balanceOf(b.key), bBefore, "nothing charged for refused cursors");
    const own = await stack.post("/web/v1/scrape", { cursor }, as(a.key));
    assert.equal(own.status, 200, "the owner still reads on");
  });

  it("over MCP, web_scrape takes maxTokens and the same cursor", async () => {
    const client = await connectMcp(stack.api.url, as(stack.key));
    const first = await callTool(client, "web_scrape", { url: `${site}/manual`, maxTokens: 3000 });
    assert.equal(first.isError, false);
    assert.ok(first.body.metadata.tokens.markdown <= 3000);
    const next = await callTool(client, "web_scrape", {
      cursor: first.body.metadata.truncated.cursor,
      maxTokens: 3000,
    });
    assert.equal(next.isError, false, JSON.stringify(next.body));
    assert.ok(next.body.data.markdown.length > 1000);
    assert.ok(!first.body.data.markdown.includes(next.body.data.markdown.slice(0, 200)));
    await client.close();
  });
});

describe("sessions, acts and jobs", () => {
  it("a session's page and an act's result carry token counts and obey maxTokens, with a cursor to read on", async () => {
    const { key } = await stack.newKey(1_000_000);
    const open = await stack.post(
      "/web/v1/session",
      { url: `${site}/manual`, formats: ["markdown", "controls"], maxTokens: 4000 },
      as(key),
    );
    assert.equal(open.status, 200, JSON.stringify(open.body).slice(0, 300));
    const t = open.body.metadata.truncated;
    assert.equal(t.format, "markdown");
    assert.deepEqual(t.omitted, ["controls"]);
    assert.ok(open.body.metadata.tokens.markdown <= 4000);
    const more = await stack.post("/web/v1/scrape", { cursor: t.cursor, maxTokens: 4000 }, as(key));
    assert.equal(more.status, 200);
    assert.ok(more.body.data.markdown.length > 1000);

    const acted = await stack.post(
      "/web/v1/act",
      {
        sessionId: open.body.sessionId,
        actions: [{ scroll: { direction: "down" } }],
        formats: ["markdown"],
        maxTokens: 1000,
      },
      as(key),
    );
    assert.equal(acted.status, 200, JSON.stringify(acted.body).slice(0, 300));
    assert.ok(acted.body.metadata.tokens.markdown <= 1000);
    assert.equal(acted.body.metadata.truncated.format, "markdown");
    const plain = await stack.post(
      "/web/v1/act",
      { sessionId: open.body.sessionId, actions: [{ scroll: { direction: "up" } }], formats: ["controls"] },
      as(key),
    );
    assert.equal(plain.body.metadata.tokens.controls, countTokens(JSON.stringify(plain.body.data.controls)));
    assert.equal(plain.body.metadata.truncated, undefined);
    // An act cuts its largest format and keeps the smaller ones whole, whatever order they were asked in.
    const controlsTokens: number = plain.body.metadata.tokens.controls;
    const both = await stack.post(
      "/web/v1/act",
      {
        sessionId: open.body.sessionId,
        actions: [{ scroll: { direction: "down" } }],
        formats: ["markdown", "controls"],
        maxTokens: controlsTokens + 2000,
      },
      as(key),
    );
    assert.equal(both.status, 200, JSON.stringify(both.body).slice(0, 300));
    assert.equal(both.body.metadata.truncated.format, "markdown");
    assert.deepEqual(both.body.metadata.truncated.omitted, []);
    // Whole: every control (boxes move with the scroll, so the count may differ by a few tokens).
    assert.equal(
      both.body.data.controls.length,
      plain.body.data.controls.length,
      "the controls map is whole",
    );
    assert.ok(Math.abs(both.body.metadata.tokens.controls - controlsTokens) < controlsTokens / 100);
    assert.ok(both.body.metadata.tokens.markdown <= 2000);
    await fetch(`${stack.api.url}/web/v1/session/${open.body.sessionId}`, {
      method: "DELETE",
      headers: as(key),
    });
  });

  it("a batch cuts each page to maxTokens, charges every format that came out, and its cursors read on", async () => {
    const { key } = await stack.newKey(1_000_000);
    const start = await stack.post(
      "/web/v1/scrape/batch",
      {
        urls: [`${site}/manual?b=1`, `${site}/article?b=1`],
        formats: ["markdown", "links"],
        maxTokens: 1500,
      },
      as(key),
    );
    assert.equal(start.status, 200, JSON.stringify(start.body));
    const done = await waitFor(
      "the batch to end",
      async () => {
        const r = await stack.call("GET", start.body.url, as(key));
        assert.ok(!["queued", "running"].includes(r.body.status), r.body.status);
        return r.body;
      },
      90_000,
      100,
    );
    assert.equal(done.status, "completed");
    const [manual, article] = done.data;
    assert.equal(manual.metadata.truncated.format, "markdown");
    assert.deepEqual(manual.metadata.truncated.omitted, ["links"]);
    assert.ok(manual.metadata.tokens.markdown <= 1500);
    assert.equal(article.metadata.truncated, undefined, "a short page is whole");
    assert.ok(article.metadata.tokens.markdown > 0 && article.metadata.tokens.links > 0);
    assert.equal(
      done.charged.micros,
      2 * 2 * 1_000,
      "links left for the cursor were rendered and are charged",
    );
    const next = await stack.post("/web/v1/scrape", { cursor: manual.metadata.truncated.cursor }, as(key));
    assert.equal(next.status, 200, JSON.stringify(next.body));
    assert.match(next.body.data.markdown, /Section|option/);
    const other = await stack.newKey(1_000_000);
    const foreign = await stack.post(
      "/web/v1/scrape",
      { cursor: manual.metadata.truncated.cursor },
      as(other.key),
    );
    assert.equal(foreign.body.error.code, "cursor_not_found");
  });
});
