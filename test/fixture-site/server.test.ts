import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { crc32 } from "node:zlib";
import { waitFor } from "../helpers/wait-for.ts";
import { type FixtureSite, startFixtureSite } from "./server.ts";

describe("fixture site", () => {
  let site: FixtureSite;

  before(async () => {
    site = await startFixtureSite();
  });

  after(async () => {
    await site.close();
  });

  const get = (path: string, init?: RequestInit) => fetch(`${site.url}${path}`, init);

  it("listens on 127.0.0.1 with a free port", () => {
    assert.match(site.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(site.port > 0);
    assert.equal(site.url, `http://127.0.0.1:${site.port}`);
  });

  it("serves the index and the article", async () => {
    const index = await get("/");
    assert.equal(index.status, 200);
    assert.equal(index.headers.get("content-type"), "text/html; charset=utf-8");
    const indexHtml = await index.text();
    for (const p of ["/article", "/page2", "/form", "/links", "/large"]) {
      assert.ok(indexHtml.includes(`href="${p}"`), `index links ${p}`);
    }

    const res = await get("/article");
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.ok(html.includes("<title>Fixture Article</title>"));
    assert.ok(html.includes("<h1>The Fixture Article</h1>"));
    assert.ok(html.includes('<a href="/page2">next page</a>'));
    assert.ok(html.includes('<img src="/img/pixel.png" alt="A pixel">'));
    assert.ok(html.includes('<pre><code class="language-js">const answer = 42;</code></pre>'));
    assert.ok(html.includes("hidden-text-should-not-appear"));
    assert.ok(html.includes('var secretScript = "do-not-leak";'));
  });

  it("serves a valid PNG", async () => {
    const res = await get("/img/pixel.png");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "image/png");
    const buf = Buffer.from(await res.arrayBuffer());
    assert.deepEqual([...buf.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    // Walk the chunks and verify every CRC.
    let off = 8;
    const types: string[] = [];
    while (off < buf.length) {
      const len = buf.readUInt32BE(off);
      const type = buf.subarray(off + 4, off + 8);
      const data = buf.subarray(off + 8, off + 8 + len);
      const crc = buf.readUInt32BE(off + 8 + len);
      assert.equal(crc32(Buffer.concat([type, data])) >>> 0, crc);
      types.push(type.toString("latin1"));
      off += 12 + len;
    }
    assert.deepEqual(types, ["IHDR", "IDAT", "IEND"]);
  });

  it("follows the redirect chain hop by hop", async () => {
    const hops: Array<[string, number, string]> = [
      ["/redirect/1", 302, "/redirect/2"],
      ["/redirect/2", 301, "/redirect/3"],
      ["/redirect/3", 302, "/article"],
    ];
    for (const [from, status, location] of hops) {
      const res = await get(from, { redirect: "manual" });
      assert.equal(res.status, status, from);
      assert.equal(res.headers.get("location"), location, from);
      await res.arrayBuffer();
    }
    const followed = await get("/redirect/1");
    assert.equal(followed.status, 200);
    assert.ok(followed.url.endsWith("/article"));
    assert.ok((await followed.text()).includes("The Fixture Article"));
  });

  it("redirects anywhere with /redirect-to", async () => {
    const target = "http://169.254.169.254/latest/meta-data/";
    const res = await get(`/redirect-to?url=${encodeURIComponent(target)}`, {
      redirect: "manual",
    });
    assert.equal(res.status, 302);
    assert.equal(res.headers.get("location"), target);
    await res.arrayBuffer();
  });

  it("returns status pages and 404 for unknown paths", async () => {
    const nf = await get("/status/404");
    assert.equal(nf.status, 404);
    assert.ok((await nf.text()).includes("Not Found Page"));

    const err = await get("/status/500");
    assert.equal(err.status, 500);
    assert.ok((await err.text()).includes("Server Error Page"));

    const teapot = await get("/status/418");
    assert.equal(teapot.status, 418);
    await teapot.arrayBuffer();

    const unknown = await get("/no/such/page");
    assert.equal(unknown.status, 404);
    assert.ok((await unknown.text()).includes("Not Found Page"));
  });

  it("serves Latin-1 bytes on /latin1", async () => {
    const res = await get("/latin1");
    assert.equal(res.headers.get("content-type"), "text/html; charset=iso-8859-1");
    const buf = Buffer.from(await res.arrayBuffer());
    const expected = Buffer.from([
      0x43, 0x61, 0x66, 0xe9, 0x20, 0x63, 0x72, 0xe8, 0x6d, 0x65, 0x20, 0x62, 0x72, 0xfb, 0x6c, 0xe9, 0x65,
    ]); // "Café crème brûlée" in ISO-8859-1
    assert.ok(buf.includes(expected), "latin1 bytes present");
    assert.ok(!buf.includes(Buffer.from("Café", "utf8")), "no utf-8 bytes");
    assert.ok(new TextDecoder("iso-8859-1").decode(buf).includes("Café crème brûlée"));
  });

  it("enforces basic auth", async () => {
    const none = await get("/auth");
    assert.equal(none.status, 401);
    assert.equal(none.headers.get("www-authenticate"), 'Basic realm="fixture"');
    await none.arrayBuffer();

    const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString("base64")}`;
    const wrong = await get("/auth", {
      headers: { authorization: basic("alice", "nope") },
    });
    assert.equal(wrong.status, 401);
    await wrong.arrayBuffer();

    const ok = await get("/auth", {
      headers: { authorization: basic("alice", "secret") },
    });
    assert.equal(ok.status, 200);
    assert.ok((await ok.text()).includes("Authenticated as alice"));
  });

  it("echoes request headers and cookies, sets a cookie", async () => {
    const res = await get("/headers", {
      headers: { "user-agent": "fixture-test/1.0", "x-custom": "hello" },
    });
    const html = await res.text();
    const json = /<pre id="echo">([\s\S]*?)<\/pre>/.exec(html)?.[1] ?? "";
    const headers = JSON.parse(json.replace(/&quot;/g, '"').replace(/&amp;/g, "&"));
    assert.equal(headers["user-agent"], "fixture-test/1.0");
    assert.equal(headers["x-custom"], "hello");

    const cookies = await get("/cookies", { headers: { cookie: "a=1; b=2" } });
    assert.ok((await cookies.text()).includes('<pre id="cookies">a=1; b=2</pre>'));

    const set = await get("/set-cookie");
    assert.equal(set.headers.get("set-cookie"), "tracker=abc123; Path=/");
    assert.ok((await set.text()).includes("cookie set"));
  });

  it("escapes the welcome name", async () => {
    const res = await get(`/welcome?username=${encodeURIComponent("<b>Bob</b>")}`);
    assert.ok((await res.text()).includes("<h1>Welcome, &lt;b&gt;Bob&lt;/b&gt;</h1>"));
  });

  it("serves robots.txt and sitemap.xml with the request origin", async () => {
    const robots = await (await get("/robots.txt")).text();
    assert.ok(robots.includes("User-agent: *"));
    assert.ok(robots.includes("Disallow: /private"));
    assert.ok(robots.includes(`Sitemap: ${site.url}/sitemap.xml`));

    const sm = await get("/sitemap.xml");
    assert.match(sm.headers.get("content-type") ?? "", /xml/);
    const xml = await sm.text();
    for (const p of ["/article", "/page2", "/links", "/form"]) {
      assert.ok(xml.includes(`<loc>${site.url}${p}</loc>`), p);
    }
  });

  it("serves a ~2 MB page", async () => {
    const html = await (await get("/large")).text();
    assert.ok(html.length > 1_500_000, `length ${html.length}`);
    assert.ok(html.includes("Paragraph 5000 "));
    assert.ok(html.includes('<p id="end">End of large page</p>'));
  });

  it("counts hits per pathname, ignoring the query", async () => {
    const before = site.hits("/page2");
    await (await get("/page2")).arrayBuffer();
    await (await get("/page2?x=1")).arrayBuffer();
    assert.equal(site.hits("/page2"), before + 2);
    assert.equal(site.hits("/page2?ignored=1"), before + 2);
    assert.equal(site.hits("/never-requested"), 0);

    await (await get("/style.css")).arrayBuffer();
    await (await get("/app.js")).arrayBuffer();
    assert.equal(site.hits("/style.css"), 1);
    assert.equal(site.hits("/app.js"), 1);
  });

  it("serves /slow after the requested delay", async () => {
    const t0 = Date.now();
    const res = await get("/slow?ms=150");
    const html = await res.text();
    assert.ok(Date.now() - t0 >= 140);
    assert.ok(html.includes("Slow page done"));
  });
});

describe("fixture site close()", () => {
  it("cuts a pending /slow request instead of waiting for it", async () => {
    const site = await startFixtureSite();
    const pending = fetch(`${site.url}/slow?ms=10000`).then(
      () => "resolved",
      () => "rejected",
    );
    await waitFor("the server to receive the /slow request", () => site.hits("/slow") === 1, 5_000, 10);

    await site.close();
    // Had close() waited for the page, the request would have been answered.
    assert.equal(await pending, "rejected");
    // Closing twice is harmless.
    await site.close();
  });
});
