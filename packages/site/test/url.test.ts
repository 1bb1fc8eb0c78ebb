import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { looksLikeTrap, normalizeUrl, siteScope } from "../src/index.ts";

describe("normalizeUrl", () => {
  it("keeps absolute http(s) URLs, resolves relative ones, refuses the rest", () => {
    assert.equal(normalizeUrl("https://example.com/a"), "https://example.com/a");
    assert.equal(normalizeUrl("/b?x=1", "https://example.com/a/"), "https://example.com/b?x=1");
    assert.equal(normalizeUrl("c", "https://example.com/a/"), "https://example.com/a/c");
    assert.equal(normalizeUrl("  https://example.com/trim  "), "https://example.com/trim");
    for (const bad of [
      "mailto:someone@example.com",
      "javascript:void(0)",
      "data:text/html,hi",
      "tel:+123",
      "ftp://example.com/file",
      "not a url",
      "",
      "/relative-without-base",
    ])
      assert.equal(normalizeUrl(bad), undefined, bad);
    assert.equal(normalizeUrl("javascript:alert(1)", "https://example.com/"), undefined);
  });

  it("drops the fragment and the default port, lower-cases the host, makes IDN hosts ASCII", () => {
    assert.equal(normalizeUrl("https://Example.COM:443/Path#top"), "https://example.com/Path");
    assert.equal(normalizeUrl("http://example.com:80/"), "http://example.com/");
    assert.equal(normalizeUrl("http://example.com:8080/"), "http://example.com:8080/");
    assert.equal(normalizeUrl("https://bücher.example/"), "https://xn--bcher-kva.example/");
    assert.equal(normalizeUrl("https://example.com"), "https://example.com/");
    assert.equal(normalizeUrl("https://example.com/a/../b/./c"), "https://example.com/b/c");
    assert.equal(normalizeUrl("https://example.com/?"), "https://example.com/");
  });

  it("drops session ids from the query and the path, keeping the other parameters in order", () => {
    assert.equal(
      normalizeUrl("https://example.com/p?b=2&PHPSESSID=abc&a=1&sid=9&sessionid=x&session_id=y"),
      "https://example.com/p?b=2&a=1",
    );
    assert.equal(
      normalizeUrl("https://example.com/p?jsessionid=1&cfid=2&cftoken=3"),
      "https://example.com/p",
    );
    assert.equal(
      normalizeUrl("https://example.com/shop;jsessionid=ABC123?item=4"),
      "https://example.com/shop?item=4",
    );
    assert.equal(
      normalizeUrl("https://example.com/a;JSESSIONID=x/b"),
      "https://example.com/a/b",
      "a path parameter in the middle",
    );
    const one = normalizeUrl("https://example.com/cart?sid=1111&page=2");
    const two = normalizeUrl("https://example.com/cart?page=2&sid=2222");
    assert.equal(one, two, "two sessions, one URL");
    assert.equal(normalizeUrl("https://example.com/?q=a%20b&&x"), "https://example.com/?q=a%20b&x");
    assert.equal(
      normalizeUrl("https://example.com/?side=1&sidebar=2"),
      "https://example.com/?side=1&sidebar=2",
    );
  });
});

describe("siteScope", () => {
  it("keeps the start host, with or without www., on either scheme, and nothing else", () => {
    const inScope = siteScope("https://www.example.com/start", {});
    assert.ok(inScope("https://www.example.com/a"));
    assert.ok(inScope("https://example.com/b"));
    assert.ok(inScope("http://example.com/c"));
    assert.ok(!inScope("https://blog.example.com/"));
    assert.ok(!inScope("https://example.org/"));
    assert.ok(!inScope("https://notexample.com/"));
    assert.ok(!inScope("https://example.com.evil.net/"));
    assert.ok(!inScope("https://example.com:8443/"), "another port is another site");
    assert.ok(!inScope("mailto:a@example.com"));
    assert.ok(!inScope("garbage"));
    const bare = siteScope("https://example.com/", {});
    assert.ok(bare("https://www.example.com/x"));
  });

  it("includeSubdomains keeps any subdomain of the start host without its www.", () => {
    const inScope = siteScope("https://www.example.com/", { includeSubdomains: true });
    assert.ok(inScope("https://blog.example.com/"));
    assert.ok(inScope("https://a.b.example.com/"));
    assert.ok(inScope("https://example.com/"));
    assert.ok(!inScope("https://badexample.com/"));
    const blog = siteScope("https://blog.example.com/", { includeSubdomains: true });
    assert.ok(blog("https://x.blog.example.com/"));
    assert.ok(!blog("https://example.com/"));
    assert.ok(!blog("https://shop.example.com/"));
  });

  it("includePaths, excludePaths and search filter by path and by URL text", () => {
    const start = "https://example.com/";
    const inc = siteScope(start, { includePaths: ["/blog", "/news/"] });
    assert.ok(inc("https://example.com/blog/post"));
    assert.ok(inc("https://example.com/en/blog"));
    assert.ok(inc("https://example.com/news/today"));
    assert.ok(!inc("https://example.com/about"));
    assert.ok(!inc("https://example.com/about?x=/blog"), "the query is not the path");
    const exc = siteScope(start, { includePaths: ["/blog"], excludePaths: ["/blog/tag/", "draft"] });
    assert.ok(exc("https://example.com/blog/post"));
    assert.ok(!exc("https://example.com/blog/tag/js"));
    assert.ok(!exc("https://example.com/blog/draft-1"));
    const search = siteScope(start, { search: "Pricing" });
    assert.ok(search("https://example.com/pricing"));
    assert.ok(search("https://example.com/?page=PRICING"));
    assert.ok(!search("https://example.com/about"));
    const accents = siteScope(start, { search: "café" });
    assert.ok(accents("https://example.com/caf%C3%A9"));
  });
});

describe("looksLikeTrap", () => {
  const now = Date.UTC(2025, 5, 1);
  it("passes ordinary URLs, archives and ids", () => {
    for (const ok of [
      "https://example.com/",
      "https://example.com/blog/2024/05/hello",
      "https://example.com/2009/01/01/old-post",
      "https://example.com/calendar/2027/12",
      "https://example.com/p/1/2/1/3/1",
      "https://example.com/a/b/a/b",
      "https://example.com/search?q=x&page=2&sort=asc",
      "https://example.com/products/2031",
    ])
      assert.equal(looksLikeTrap(ok, now), undefined, ok);
  });

  it("names the reason for long, deep, repeating, over-parameterized and far-calendar URLs", () => {
    assert.match(looksLikeTrap(`https://example.com/${"a".repeat(2100)}`, now)!, /characters long/);
    assert.match(
      looksLikeTrap(`https://example.com/${Array.from({ length: 13 }, (_, i) => `d${i}`).join("/")}`, now)!,
      /13 segments deep/,
    );
    assert.match(looksLikeTrap("https://example.com/a/b/a/b/a/", now)!, /"a" repeats 3 times/);
    const q = Array.from({ length: 11 }, (_, i) => `f${i}=1`).join("&");
    assert.match(looksLikeTrap(`https://example.com/shop?${q}`, now)!, /11 parameters/);
    assert.match(looksLikeTrap("https://example.com/calendar/2031/05", now)!, /2031/);
    assert.match(looksLikeTrap("https://example.com/events/2040-01-01", now)!, /2040/);
    assert.match(looksLikeTrap("https://example.com/cal?date=2035-07-01", now)!, /2035/);
    assert.match(looksLikeTrap("https://example.com/cal?year=2099&month=1", now)!, /2099/);
    assert.match(looksLikeTrap("https://example.com/calendar/1850/03", now)!, /before 1900/);
  });
});
