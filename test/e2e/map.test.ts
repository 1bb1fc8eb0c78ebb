import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { discoverSitemapUrls, type SiteFetcher, siteScope } from "@browserfleet/site";
import { parseAllowList } from "@browserfleet/ssrf";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type GuardProxy, startGuardProxy } from "../../apps/browser/src/net/guard-proxy.ts";
import { guardedFetch } from "../../apps/browser/src/net/guarded-fetch.ts";
import { MAPSITE_HUGE_COUNT } from "../fixture-site/sitemaps.ts";
import { type Stack, startStack } from "../helpers/stack.ts";

let stack: Stack;
let site: string;
before(async () => {
  stack = await startStack();
  site = stack.site.url;
});
after(async () => stack?.stop());

const map = (body: Record<string, unknown>, headers?: Record<string, string>) =>
  stack.post("/web/v1/map", body, headers);
const urlsOf = (body: { links: { url: string }[] }) => body.links.map((l) => l.url.slice(site.length));
const balance = async (key: string) => {
  const res = await fetch(`${stack.api.url}/web/v1/account`, { headers: { authorization: `Bearer ${key}` } });
  return ((await res.json()) as { balance: { micros: number } }).balance.micros;
};

/** The origin's /sitemap.xml (pages.ts), named by its robots.txt. */
const FROM_SITEMAP = ["/article", "/page2", "/links", "/form"];
/** What only /mapsite/ itself links to, in page order, normalized and de-duplicated. */
const FROM_PAGE = [
  "/mapsite/",
  "/mapsite/about",
  "/mapsite/blog/first",
  "/mapsite/blog/second?utm=x",
  "/mapsite/shop?item=1",
  "/mapsite/private-ish",
  "/mapsite/built-by-script",
  "/mapsite/built-late",
];

describe("POST /web/v1/map", () => {
  it("lists the sitemap's URLs, then the page's own links (script-built too), normalized and de-duplicated", async () => {
    const { status, body, headers } = await map({ url: `${site}/mapsite/` });
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual(urlsOf(body), [...FROM_SITEMAP, ...FROM_PAGE]);
    assert.equal(body.success, true);
    assert.equal(body.metadata.url, `${site}/mapsite/`);
    assert.equal(body.metadata.sitemaps, 1);
    assert.equal(body.metadata.fromSitemaps, 4);
    assert.equal(body.metadata.fromPage, FROM_PAGE.length);
    assert.equal(body.metadata.truncated, false);
    assert.equal(body.metadata.warnings, undefined);
    assert.ok(body.metadata.ms > 0);
    const title = (path: string) => body.links.find((l: { url: string }) => l.url === site + path)?.title;
    assert.equal(title("/mapsite/"), "Map Site", "the page's own title");
    assert.equal(title("/mapsite/about"), "About us", "the first anchor text");
    assert.equal(title("/article"), "The article", "a sitemap entry takes the page's anchor text");
    assert.equal(title("/page2"), undefined, "sitemaps have no titles");
    assert.equal(title("/mapsite/private-ish"), "Labelled only", "aria-label when there is no text");
    assert.equal(headers.get("x-charged-usd"), "$0.0003", "one started 1000 URLs of limit");
  });

  it("applies includePaths, excludePaths and search to sitemap and page URLs alike", async () => {
    const inc = await map({ url: `${site}/mapsite/`, includePaths: ["/mapsite/blog"] });
    assert.deepEqual(urlsOf(inc.body), ["/mapsite/blog/first", "/mapsite/blog/second?utm=x"]);
    assert.equal(inc.body.metadata.fromSitemaps, 0);
    const exc = await map({ url: `${site}/mapsite/`, excludePaths: ["/mapsite", "/form"] });
    assert.deepEqual(urlsOf(exc.body), ["/article", "/page2", "/links"]);
    const search = await map({ url: `${site}/mapsite/`, search: "BUILT" });
    assert.deepEqual(urlsOf(search.body), ["/mapsite/built-by-script", "/mapsite/built-late"]);
  });

  it("cuts at limit and says truncated; charges per started 1000 URLs of limit", async () => {
    const { key } = await stack.newKey(1_000_000);
    const auth = { authorization: `Bearer ${key}` };
    const cut = await map({ url: `${site}/mapsite/`, limit: 3 }, auth);
    assert.equal(cut.status, 200);
    assert.deepEqual(urlsOf(cut.body), FROM_SITEMAP.slice(0, 3));
    assert.equal(cut.body.metadata.truncated, true);
    assert.equal(cut.body.metadata.fromSitemaps, 3);
    assert.equal(cut.body.metadata.fromPage, 0);
    assert.equal(cut.headers.get("x-charged-usd"), "$0.0003");
    const big = await map({ url: `${site}/mapsite/`, limit: 2500 }, auth);
    assert.equal(big.body.links.length, 12);
    assert.equal(big.headers.get("x-charged-usd"), "$0.0009");
    assert.equal(await balance(key), 1_000_000 - 300 - 900);
  });

  it("includePage false reads only the sitemaps and renders nothing", async () => {
    const before = stack.site.hits("/mapsite/");
    const { body } = await map({ url: `${site}/mapsite/`, includePage: false });
    assert.deepEqual(urlsOf(body), FROM_SITEMAP);
    assert.equal(body.metadata.fromPage, 0);
    assert.equal(stack.site.hits("/mapsite/"), before);
  });

  it("a page that cannot be rendered leaves the sitemaps, with a warning", async () => {
    const { status, body } = await map({ url: `${site}/mapsite/download` });
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual(urlsOf(body), FROM_SITEMAP);
    assert.equal(body.metadata.fromPage, 0);
    assert.match(body.metadata.warnings.join("\n"), /the page could not be rendered/);
  });

  it("a map that finds nothing says success false and is not charged", async () => {
    const { key } = await stack.newKey(1_000_000);
    const r = await map(
      { url: `${site}/mapsite/`, search: "no-such-thing" },
      { authorization: `Bearer ${key}` },
    );
    assert.equal(r.status, 200);
    assert.equal(r.body.success, false);
    assert.deepEqual(r.body.links, []);
    assert.equal(await balance(key), 1_000_000);
  });

  it("a bad body is a 400 naming the field", async () => {
    for (const [body, field] of [
      [{ url: "not a url" }, "url"],
      [{ url: `${site}/`, limit: 9999 }, "limit"],
      [{ url: `${site}/`, limit: 0 }, "limit"],
      [{ url: `${site}/`, includePaths: "/blog" }, "includePaths"],
      [{ url: `${site}/`, depth: 2 }, "depth"],
      [{}, "url"],
    ] as const) {
      const r = await map(body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.error.code, "invalid_request");
      assert.equal(r.body.error.details[0].field, field, JSON.stringify(r.body));
    }
  });

  it("refuses an SSRF target up front, and a start page that redirects into one, without charging", async () => {
    const { key } = await stack.newKey(1_000_000);
    const auth = { authorization: `Bearer ${key}` };
    const direct = await map({ url: "http://169.254.169.254/latest/meta-data/" }, auth);
    assert.equal(direct.status, 400);
    assert.equal(direct.body.error.code, "ssrf_blocked");
    assert.equal(direct.body.error.details[0].field, "url");
    const port = stack.site.port;
    const redirect = await map(
      { url: `${site}/redirect-to?url=${encodeURIComponent(`http://127.0.0.2:${port}/article`)}` },
      auth,
    );
    assert.equal(redirect.status, 400, JSON.stringify(redirect.body));
    assert.equal(redirect.body.error.code, "ssrf_blocked");
    assert.equal(await balance(key), 1_000_000);
  });

  it("describes itself on GET with the response schema", async () => {
    const doc = await (await fetch(`${stack.api.url}/web/v1/map`)).json();
    assert.equal(doc.available, true);
    assert.ok(doc.response.schema.properties.links);
  });

  it("the MCP web_map tool returns the same links, with a key and on the keyless allowance", async () => {
    for (const key of [stack.key, undefined]) {
      const client = new Client({ name: "e2e", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${stack.api.url}/mcp`), {
          requestInit: key ? { headers: { authorization: `Bearer ${key}` } } : {},
        }),
      );
      try {
        const r = await client.callTool({ name: "web_map", arguments: { url: `${site}/mapsite/` } });
        assert.notEqual(r.isError, true, JSON.stringify(r.content));
        const body = JSON.parse((r.content as Array<{ text: string }>)[0]!.text);
        assert.deepEqual(urlsOf(body), [...FROM_SITEMAP, ...FROM_PAGE]);
      } finally {
        await client.close();
      }
    }
  });
});

describe("sitemap discovery through the worker's guarded fetch", () => {
  let proxy: GuardProxy;
  let fetcher: SiteFetcher;
  before(async () => {
    proxy = await startGuardProxy(parseAllowList("127.0.0.1/32"));
    fetcher = (url, maxBytes) =>
      guardedFetch(proxy, url, {
        maxBytes,
        timeoutMs: 10_000,
        userAgent: "MapTest/1.0",
        overflow: "truncate",
      });
  });
  after(async () => proxy?.close());
  const opts = (o: Record<string, unknown> = {}) => ({
    maxSitemaps: 20,
    maxUrls: 10_000,
    maxBytesPerFile: 16 * 1024 * 1024,
    deadline: Date.now() + 20_000,
    ...o,
  });

  it("follows an index to a gzipped, a plain and a text sitemap, once each despite the index listing itself", async () => {
    const robotsTxt = await (await fetch(`${site}/mapsite/robots.txt`)).text();
    const start = `${site}/mapsite/`;
    const r = await discoverSitemapUrls(fetcher, start, {
      ...opts(),
      robotsTxt,
      filter: siteScope(start, { includePaths: ["/mapsite/"] }),
    });
    assert.deepEqual(
      r.urls.map((u) => u.url.slice(site.length)),
      [
        "/mapsite/blog/first",
        "/mapsite/blog/second",
        "/mapsite/blog/third",
        "/mapsite/about",
        "/mapsite/contact",
        "/mapsite/text/one",
        "/mapsite/text/two",
      ],
    );
    assert.equal(r.urls[0]!.lastmod, "2024-06-01");
    // The index, the origin's /sitemap.xml, and the three children.
    assert.equal(r.sitemapsRead, 5);
    assert.deepEqual(r.warnings, []);
    assert.equal(r.truncated, false);
  });

  it(`stops a ${MAPSITE_HUGE_COUNT}-URL gzipped sitemap at maxUrls`, async () => {
    const r = await discoverSitemapUrls(fetcher, `${site}/mapsite/`, {
      ...opts({ maxUrls: 1000 }),
      robotsTxt: `Sitemap: ${site}/mapsite/huge-sitemap.xml?gz=1\n`,
    });
    assert.equal(r.urls.length, 1000);
    assert.equal(r.urls[999]!.url, `${site}/mapsite/item/999`);
    assert.equal(r.truncated, true);
  });

  it("reads broken XML as far as it goes; an HTML page and an SSRF target become warnings", async () => {
    const r = await discoverSitemapUrls(fetcher, `${site}/mapsite/`, {
      ...opts(),
      robotsTxt: [
        `Sitemap: ${site}/mapsite/broken-sitemap.xml`,
        `Sitemap: ${site}/mapsite/html-sitemap.xml`,
        "Sitemap: http://169.254.169.254/sitemap.xml",
      ].join("\n"),
      filter: (u: string) => u.includes("/mapsite/"),
    });
    assert.deepEqual(
      r.urls.map((u) => u.url.slice(site.length)),
      ["/mapsite/broken/before", "/mapsite/broken/damaged", "/mapsite/broken/after"],
    );
    const w = r.warnings.join("\n");
    assert.match(w, /broken-sitemap\.xml: malformed XML/);
    assert.match(w, /html-sitemap\.xml: an HTML page, not a sitemap/);
    assert.match(w, /169\.254\.169\.254\/sitemap\.xml: .*(refus|block)/i);
  });
});
