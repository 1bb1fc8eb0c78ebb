import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ALLOWANCE, ALLOWANCE_TABLE, allowanceFor, siteOf, utcDay } from "../src/allowance/index.ts";

const NOW = new Date("2026-11-22T23:59:59.999Z");

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
  it("scrape of a url uses the daily counter and the per-site counter", () => {
    assert.deepEqual(buckets({ route: "scrape", request: { url: "https://www.Example.com/a?b=1" } }), [
      { bucket: "scrape:2026-11-22", limit: 10 },
      { bucket: "scrape-site:example.com:2026-11-22", limit: 3 },
    ]);
  });

  it("days are UTC calendar days", () => {
    const next = new Date("2026-11-23T00:00:00.000Z");
    assert.deepEqual(buckets({ route: "map", request: { url: "https://a.test" } }, next), [
      { bucket: "map:2026-11-23", limit: 10 },
    ]);
    // 23:30 on the 22nd in New York is already the 23rd in UTC
    assert.equal(utcDay(new Date("2026-11-22T23:30:00-05:00")), "2026-11-23");
  });

  it("site is the lowercase host without www. and without a trailing dot; subdomains are separate", () => {
    assert.equal(siteOf("https://WWW.example.com./x"), "example.com");
    assert.equal(siteOf("http://example.com:8080/"), "example.com");
    assert.equal(siteOf("https://blog.example.com/"), "blog.example.com");
    assert.equal(siteOf("https://www/"), "www");
    assert.equal(siteOf("not a url"), undefined);
  });

  it("scrape of raw html uses the daily counter only", () => {
    assert.deepEqual(buckets({ route: "scrape", request: { html: "<p>hi</p>", formats: ["links"] } }), [
      { bucket: "scrape:2026-11-22", limit: 10 },
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
    assert.deepEqual(buckets({ route: "map", request: {} }), [{ bucket: "map:2026-11-22", limit: 10 }]);
    assert.deepEqual(buckets({ route: "session", request: {} }), [{ bucket: "session:ever", limit: 1 }]);
    assert.deepEqual(buckets({ route: "act", request: {} }), [{ bucket: "act:ever", limit: 10 }]);
    assert.deepEqual(buckets({ route: "search", request: { query: "x" } }), [
      { bucket: "search:ever", limit: 5 },
    ]);
  });

  it("exports the table as data", () => {
    assert.equal(ALLOWANCE.scrape.perDay, 10);
    assert.equal(ALLOWANCE.scrape.perSitePerDay, 3);
    assert.equal(ALLOWANCE.session.ever, 1);
    assert.equal(ALLOWANCE_TABLE[0]?.route, "scrape");
    assert.equal(
      ALLOWANCE_TABLE[0]?.allowance,
      "10 a day; at most 3 pages of the same site; outputs markdown, html, links, controls, accessibility, elements",
    );
  });
});
