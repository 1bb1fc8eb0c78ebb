import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { endOfUtcDay, pageOf, siteOf, utcDay } from "../src/allowance/index.ts";
import { allowanceFor, allowanceOf } from "./allowance-of.ts";

const NOW = new Date("2026-11-22T23:59:59.999Z");
const DAY_END = new Date("2026-11-23T00:00:00.000Z");

function buckets(call: Parameters<typeof allowanceFor>[0], now = NOW) {
  const d = allowanceFor(call, now);
  assert.ok(d.ok, `expected ok, got ${JSON.stringify(d)}`);
  return d.buckets;
}
function refusal(call: Parameters<typeof allowanceFor>[0]) {
  const d = allowanceFor(call, NOW);
  assert.ok(!d.ok, `expected a refusal, got ${JSON.stringify(d)}`);
  return d.reason;
}

describe("keyless free allowance rules", () => {
  it("scrape of a url uses the daily counter and counts its page once in the site's counter", () => {
    assert.deepEqual(buckets({ route: "scrape", request: { url: "https://www.Example.com/a?b=1#top" } }), [
      { bucket: "scrape:2026-11-22", limit: 10, expiresAt: DAY_END },
      {
        bucket: "scrape-site:example.com:2026-11-22",
        limit: 3,
        member: "https://www.example.com/a?b=1",
        expiresAt: DAY_END,
      },
    ]);
  });

  it("a chosen pool or the caller's own proxy needs a key; auto and none stay free", () => {
    const url = "https://a.test/";
    for (const proxy of ["pool:de", { server: "http://proxy.example:3128" }]) {
      assert.match(
        refusal({ route: "scrape", request: { url, proxy } }),
        /through a chosen proxy needs an API key/,
      );
      assert.match(
        refusal({ route: "session", request: { url, proxy } }),
        /through a chosen proxy needs an API key/,
      );
    }
    for (const proxy of ["auto", "none", undefined]) buckets({ route: "scrape", request: { url, proxy } });
  });

  it("days are UTC calendar days, and a day's counters expire when it ends", () => {
    const next = new Date("2026-11-23T00:00:00.000Z");
    assert.deepEqual(buckets({ route: "map", request: { url: "https://a.test" } }, next), [
      { bucket: "map:2026-11-23", limit: 10, expiresAt: new Date("2026-11-24T00:00:00.000Z") },
    ]);
    // 23:30 on the 22nd in New York is already the 23rd in UTC
    assert.equal(utcDay(new Date("2026-11-22T23:30:00-05:00")), "2026-11-23");
    assert.deepEqual(endOfUtcDay(new Date("2026-12-31T12:00:00Z")), new Date("2027-01-01T00:00:00Z"));
  });

  it("a site is the registrable domain (public-suffix aware): subdomains share it", () => {
    assert.equal(siteOf("https://WWW.example.com./x"), "example.com");
    assert.equal(siteOf("http://example.com:8080/"), "example.com");
    assert.equal(siteOf("https://blog.example.com/"), "example.com");
    assert.equal(siteOf("https://a.b.example.co.uk/"), "example.co.uk");
    // a private suffix (one party's customers) makes separate sites, as browsers treat them
    assert.equal(siteOf("https://alice.github.io/"), "alice.github.io");
    assert.notEqual(siteOf("https://alice.github.io/"), siteOf("https://bob.github.io/"));
    // an address or a name without a public suffix is its own site
    assert.equal(siteOf("http://127.0.0.1:9/"), "127.0.0.1");
    assert.equal(siteOf("http://localhost:3000/"), "localhost");
    assert.equal(siteOf("https://www/"), "www");
    assert.equal(siteOf("not a url"), undefined);
  });

  it("a page is its normalized URL: fragment and session ids do not make another page", () => {
    assert.equal(pageOf("https://Example.com:443/a?x=1#part"), "https://example.com/a?x=1");
    assert.equal(pageOf("https://example.com/a?PHPSESSID=abc"), pageOf("https://example.com/a"));
    assert.notEqual(pageOf("https://example.com/a?x=1"), pageOf("https://example.com/a?x=2"));
  });

  it("scrape of raw html uses the daily counter only", () => {
    assert.deepEqual(buckets({ route: "scrape", request: { html: "<p>hi</p>", formats: ["links"] } }), [
      { bucket: "scrape:2026-11-22", limit: 10, expiresAt: DAY_END },
    ]);
  });

  it("scrape allows every free format, and markdown by default", () => {
    const formats = ["markdown", "html", "links", "controls", "accessibility", "elements"];
    assert.equal(buckets({ route: "scrape", request: { url: "https://a.test", formats } }).length, 2);
    assert.equal(buckets({ route: "scrape", request: { url: "https://a.test" } }).length, 2);
  });

  it("scrape with screenshot or pdf is refused, naming the formats", () => {
    const reason = refusal({
      route: "scrape",
      request: { url: "https://a.test", formats: ["markdown", "screenshot", "pdf"] },
    });
    assert.match(reason, /screenshot, pdf/);
    assert.match(reason, /markdown, html, links, controls, accessibility, elements/);
    assert.doesNotMatch(reason, /formats? markdown/);
  });

  it("scrape with json, crawl and batch need a key", () => {
    assert.match(
      refusal({ route: "scrape", request: { url: "https://a.test", formats: ["json"] } }),
      /API key/,
    );
    assert.match(refusal({ route: "crawl", request: { url: "https://a.test" } }), /^crawl .*API key/);
    assert.match(refusal({ route: "batch", request: { urls: [] } }), /^batch scrape .*API key/);
  });

  it("map, session, act and search have their own counters and limits", () => {
    assert.deepEqual(buckets({ route: "map", request: {} }), [
      { bucket: "map:2026-11-22", limit: 10, expiresAt: DAY_END },
    ]);
    assert.deepEqual(buckets({ route: "session", request: {} }), [{ bucket: "session:ever", limit: 1 }]);
    assert.deepEqual(buckets({ route: "act", request: {} }), [{ bucket: "act:ever", limit: 10, units: 1 }]);
    assert.deepEqual(buckets({ route: "search", request: { query: "x" } }), [
      { bucket: "search:ever", limit: 5 },
    ]);
  });

  it("act counts actions, not calls", () => {
    const actions = [{ press: "Tab" }, { press: "Tab" }, { press: "Enter" }];
    assert.deepEqual(buckets({ route: "act", request: { sessionId: "s", actions } }), [
      { bucket: "act:ever", limit: 10, units: 3 },
    ]);
  });

  it("free sessions and acts give only the free scrape's outputs", () => {
    assert.equal(buckets({ route: "session", request: { formats: ["controls", "markdown"] } }).length, 1);
    assert.match(
      refusal({ route: "session", request: { formats: ["controls", "screenshot"] } }),
      /screenshot/,
    );
    assert.match(refusal({ route: "session", request: { formats: ["pdf"] } }), /format pdf/);
    assert.match(refusal({ route: "session", request: { formats: ["json"] } }), /json format .*API key/);
    assert.match(
      refusal({ route: "act", request: { actions: [{ press: "Enter" }], formats: ["screenshot"] } }),
      /screenshot/,
    );
    // without formats an act returns the session's, which its open already checked
    assert.equal(buckets({ route: "act", request: { actions: [{ press: "Enter" }] } }).length, 1);
  });

  it("each operation carries the spec's table row, in the spec's words", () => {
    const words = (name: string) => allowanceOf(name).words;
    assert.equal(
      words("scrape"),
      "10 a day; at most 3 pages of the same site; outputs markdown, html, links, controls, accessibility, elements",
    );
    assert.equal(words("map"), "10 a day");
    assert.equal(words("session"), "1, ever");
    assert.equal(words("act"), "10, ever");
    assert.equal(words("search"), "5, ever");
    assert.equal(words("crawl"), "needs a key");
    assert.equal(words("batch"), "needs a key");
  });
});
