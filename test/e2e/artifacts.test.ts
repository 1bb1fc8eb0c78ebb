/**
 * binaryAs "url" on the embedded default store (files under DATA_DIR): screenshots and PDFs come back as
 * signed links under the api, served without a key until they expire; a changed or expired link reveals
 * nothing; a file that cannot be stored fails only its format, and is not charged.
 */
import assert from "node:assert/strict";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { hourAfter } from "@browserfleet/artifacts";
import { connectMcp } from "../helpers/mcp-client.ts";
import { type Stack, startStack } from "../helpers/stack.ts";
import { waitFor } from "../helpers/wait-for.ts";

const TTL_MS = 8000;
let stack: Stack;
before(async () => {
  stack = await startStack({ env: { ARTIFACT_TTL_MS: String(TTL_MS), MCP_INLINE_IMAGE_MAX_BYTES: "30000" } });
});
after(async () => stack?.stop());

const as = (key: string) => ({ authorization: `Bearer ${key}` });
const balanceOf = async (key: string): Promise<number> =>
  (await stack.call("GET", "/web/v1/account", as(key))).body.balance.micros;

describe("binaryAs url", () => {
  it("a screenshot and a PDF come back as links that serve the files without a key", async () => {
    const started = Date.now();
    const { status, body } = await stack.post("/web/v1/scrape", {
      url: `${stack.site.url}/article`,
      formats: ["markdown", "screenshot", "pdf"],
      binaryAs: "url",
    });
    assert.equal(status, 200, JSON.stringify(body).slice(0, 300));
    const shot = new URL(body.data.screenshot);
    const pdf = new URL(body.data.pdf);
    assert.equal(shot.origin, stack.api.url);
    assert.match(shot.pathname, /^\/web\/v1\/artifacts\/\d{10}\/[A-Za-z0-9_-]{22}\.png$/);
    assert.match(pdf.pathname, /\.pdf$/);
    const expires = Date.parse(body.metadata.filesExpireAt);
    assert.ok(expires > started && expires <= Date.now() + TTL_MS, body.metadata.filesExpireAt);
    assert.match(body.data.markdown, /Fixture Article/);

    const png = await fetch(shot);
    assert.equal(png.status, 200);
    assert.equal(png.headers.get("content-type"), "image/png");
    assert.equal(
      Buffer.from(await png.arrayBuffer())
        .subarray(1, 4)
        .toString(),
      "PNG",
    );
    const doc = await fetch(pdf);
    assert.equal(doc.headers.get("content-type"), "application/pdf");
    assert.equal(
      Buffer.from(await doc.arrayBuffer())
        .subarray(0, 4)
        .toString(),
      "%PDF",
    );
    assert.ok(JSON.stringify(body).length < 5000, "no base64 in the answer");
  });

  it("a changed, forged or expired link is the same 404, which says nothing", async () => {
    const { body } = await stack.post("/web/v1/scrape", {
      url: `${stack.site.url}/article`,
      formats: ["screenshot"],
      binaryAs: "url",
    });
    const link = new URL(body.data.screenshot);
    const variants = [
      (u: URL) => {
        const sig = u.searchParams.get("s")!;
        u.searchParams.set("s", sig.slice(0, 5) + (sig[5] === "A" ? "B" : "A") + sig.slice(6));
      },
      (u: URL) => u.searchParams.set("e", String(Number(u.searchParams.get("e")) + 3600)),
      (u: URL) => {
        const file = u.pathname.split("/").pop()!;
        u.pathname = u.pathname.replace(file, (file[0] === "Z" ? "Y" : "Z") + file.slice(1));
      },
      (u: URL) => u.searchParams.delete("s"),
      (u: URL) => (u.pathname = "/web/v1/artifacts/2026010100/AAAAAAAAAAAAAAAAAAAAAA.png"),
    ];
    const answers = new Set<string>();
    for (const change of variants) {
      const u = new URL(link);
      change(u);
      const res = await fetch(u);
      assert.equal(res.status, 404, u.toString());
      const err = (await res.json()) as { error: { code: string; message: string } };
      answers.add(`${err.error.code}: ${err.error.message}`);
    }
    assert.equal(answers.size, 1, [...answers].join(" | "));
    assert.equal((await fetch(link)).status, 200, "the link as given still works");
    await waitFor("the link to expire", async () => (await fetch(link)).status === 404, TTL_MS + 10_000, 250);
  });

  it("a file that cannot be stored fails only its format, and is not charged", async () => {
    const { key } = await stack.newKey(1_000_000);
    // Where the next files go is a file, not a folder: every write there fails, as on a broken disk.
    const data = stack.dataDir;
    const hours = [hourAfter(Date.now() + TTL_MS), hourAfter(Date.now() + TTL_MS + 60_000)];
    await mkdir(join(data, "artifacts"), { recursive: true });
    for (const h of hours) {
      await rm(join(data, "artifacts", h), { recursive: true, force: true });
      await writeFile(join(data, "artifacts", h), "not a folder");
    }
    const before = await balanceOf(key);
    const { status, body } = await stack.post(
      "/web/v1/scrape",
      { url: `${stack.site.url}/article`, formats: ["markdown", "screenshot"], binaryAs: "url" },
      as(key),
    );
    assert.equal(status, 200);
    assert.equal(body.success, true);
    assert.match(body.data.markdown, /Fixture Article/);
    assert.equal(body.data.screenshot, undefined);
    assert.equal(body.errors.screenshot.code, "storage_failed");
    assert.equal(before - (await balanceOf(key)), 1000, "only markdown is charged");
    // Served wholly from the cache: the quote is not taken as the charge when a file may fail.
    const cachedReq = {
      url: `${stack.site.url}/article?c=1`,
      formats: ["markdown", "screenshot"],
      maxAge: 600_000,
    };
    assert.equal((await stack.post("/web/v1/scrape", cachedReq, as(key))).status, 200);
    const beforeCached = await balanceOf(key);
    const cached = await stack.post("/web/v1/scrape", { ...cachedReq, binaryAs: "url" }, as(key));
    assert.deepEqual(cached.body.metadata.cached, ["markdown", "screenshot"]);
    assert.equal(cached.body.errors.screenshot.code, "storage_failed");
    assert.equal(beforeCached - (await balanceOf(key)), 200, "one cached format, not two");
    for (const h of hours) await rm(join(data, "artifacts", h), { force: true });
  });
});

describe("binaryAs url on batch pages", () => {
  it("each page's files come as links that last as long as the job, the same links on every read", async () => {
    const start = await stack.post("/web/v1/scrape/batch", {
      urls: [`${stack.site.url}/article?b=files`, `${stack.site.url}/form?b=files`],
      formats: ["markdown", "screenshot"],
      binaryAs: "url",
    });
    assert.equal(start.status, 200, JSON.stringify(start.body));
    const done = await waitFor(
      "the batch to end",
      async () => {
        const r = await stack.call("GET", start.body.url);
        return ["queued", "running"].includes(r.body.status) ? undefined : r.body;
      },
      90_000,
      200,
    );
    assert.equal(done.status, "completed");
    const again = (await stack.call("GET", start.body.url)).body;
    for (const [i, page] of done.data.entries()) {
      const link = new URL(page.data.screenshot);
      assert.match(link.pathname, /^\/web\/v1\/artifacts\/\d{10}\/[A-Za-z0-9_-]{22}\.png$/);
      assert.equal(again.data[i].url, page.url);
      assert.equal(again.data[i].data.screenshot, page.data.screenshot, "read again: the same link");
      const res = await fetch(link);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "image/png");
      assert.equal(
        Date.parse(page.metadata.filesExpireAt),
        Math.floor(Date.parse(done.expiresAt) / 1000) * 1000,
      );
    }
    assert.notEqual(done.data[0].data.screenshot, done.data[1].data.screenshot);
  });
});

describe("files over MCP", () => {
  type Block = { type: string; uri?: string; mimeType?: string; name?: string; data?: string; text?: string };
  const call = async (args: Record<string, unknown>) => {
    const client = await connectMcp(stack.api.url, as(stack.key));
    try {
      const r = await client.callTool({ name: "web_scrape", arguments: args });
      assert.notEqual(r.isError, true, JSON.stringify(r.content).slice(0, 400));
      return { content: r.content as Block[], size: JSON.stringify(r).length };
    } finally {
      await client.close();
    }
  };

  it("with binaryAs url, every file is a resource link the agent can fetch", async () => {
    const { content } = await call({
      url: `${stack.site.url}/article`,
      formats: ["markdown", "screenshot", "pdf"],
      binaryAs: "url",
    });
    const links = content.filter((c) => c.type === "resource_link");
    assert.deepEqual(
      links.map((l) => [l.name?.split(".")[0], l.mimeType]),
      [
        ["screenshot", "image/png"],
        ["pdf", "application/pdf"],
      ],
    );
    assert.equal(content.filter((c) => c.type === "image").length, 0);
    for (const l of links) assert.equal((await fetch(l.uri!)).status, 200);
  });

  it("a screenshot larger than MCP_INLINE_IMAGE_MAX_BYTES comes as a link, a small one inline", async () => {
    const big = await call({
      url: `${stack.site.url}/manual`,
      formats: ["screenshot"],
      screenshot: { fullPage: true },
    });
    const link = big.content.find((c) => c.type === "resource_link");
    assert.ok(link, JSON.stringify(big.content.map((c) => c.type)));
    assert.equal(big.content.filter((c) => c.type === "image").length, 0);
    const png = Buffer.from(await (await fetch(link.uri!)).arrayBuffer());
    assert.ok(png.length > 30_000, `${png.length} bytes`);
    assert.ok(
      big.size * 50 < png.length * (4 / 3),
      `the answer (${big.size} bytes) is far smaller than the image`,
    );

    const small = await call({
      url: `${stack.site.url}/form`,
      formats: ["screenshot"],
      screenshot: { viewport: { width: 200, height: 150 } },
    });
    assert.equal(small.content.filter((c) => c.type === "image").length, 1, "small: inline as before");
  });
});
