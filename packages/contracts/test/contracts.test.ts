import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  actRequest,
  batchRequest,
  crawlRequest,
  detailsFromZod,
  feedbackRequest,
  mapRequest,
  scrapeRequest,
  searchRequest,
  sessionRequest,
} from "../src/index.ts";

function fieldsOf(result: { success: boolean; error?: import("zod").ZodError }): string[] {
  assert.equal(result.success, false, "expected the input to be refused");
  return detailsFromZod(result.error!).map((d) => d.field);
}

describe("scrape request", () => {
  it("defaults formats to markdown and binaryAs to base64", () => {
    const r = scrapeRequest.parse({ url: "https://example.com/" });
    assert.deepEqual(r.formats, ["markdown"]);
    assert.equal(r.binaryAs, "base64");
  });
  it("needs exactly one of url or html", () => {
    assert.deepEqual(fieldsOf(scrapeRequest.safeParse({})), ["url"]);
    assert.deepEqual(fieldsOf(scrapeRequest.safeParse({ url: "https://a.com", html: "<p>x</p>" })), ["url"]);
    assert.equal(scrapeRequest.safeParse({ html: "<p>x</p>" }).success, true);
  });
  it("refuses unknown fields and names them", () => {
    assert.deepEqual(fieldsOf(scrapeRequest.safeParse({ url: "https://a.com", foo: 1 })), ["foo"]);
    assert.deepEqual(
      fieldsOf(scrapeRequest.safeParse({ url: "https://a.com", wait: { until: "load", bar: 1 } })),
      ["wait.bar"],
    );
  });
  it("refuses wrong types, unknown formats and non-http urls", () => {
    assert.deepEqual(fieldsOf(scrapeRequest.safeParse({ url: 42 })), ["url"]);
    assert.deepEqual(fieldsOf(scrapeRequest.safeParse({ url: "https://a.com", formats: ["gif"] })), [
      "formats.0",
    ]);
    assert.deepEqual(fieldsOf(scrapeRequest.safeParse({ url: "file:///etc/passwd" })), ["url"]);
    assert.deepEqual(fieldsOf(scrapeRequest.safeParse({ url: "https://a.com", formats: [] })), ["formats"]);
  });
  it("requires selectors with elements and json options with json", () => {
    assert.deepEqual(fieldsOf(scrapeRequest.safeParse({ url: "https://a.com", formats: ["elements"] })), [
      "selectors",
    ]);
    assert.deepEqual(fieldsOf(scrapeRequest.safeParse({ url: "https://a.com", formats: ["json"] })), [
      "json",
    ]);
  });
  it("accepts base64 and url for binaryAs, and nothing else", () => {
    assert.equal(scrapeRequest.safeParse({ url: "https://a.com", binaryAs: "url" }).success, true);
    assert.deepEqual(fieldsOf(scrapeRequest.safeParse({ url: "https://a.com", binaryAs: "file" })), [
      "binaryAs",
    ]);
  });
  it("refuses repeated formats", () => {
    assert.deepEqual(fieldsOf(scrapeRequest.safeParse({ url: "https://a.com", formats: ["html", "html"] })), [
      "formats",
    ]);
  });
});

describe("session and act", () => {
  it("session formats default to controls", () => {
    assert.deepEqual(sessionRequest.parse({ url: "https://a.com" }).formats, ["controls"]);
  });
  it("act takes 1 to 25 actions of known forms", () => {
    const ok = actRequest.safeParse({
      sessionId: "s",
      actions: [{ type: { ref: "e5", text: "x" } }, { press: "Enter" }],
    });
    assert.equal(ok.success, true);
    assert.deepEqual(fieldsOf(actRequest.safeParse({ sessionId: "s", actions: [] })), ["actions"]);
    const many = Array.from({ length: 26 }, () => ({ press: "Tab" }));
    assert.deepEqual(fieldsOf(actRequest.safeParse({ sessionId: "s", actions: many })), ["actions"]);
    assert.deepEqual(fieldsOf(actRequest.safeParse({ sessionId: "s", actions: [{ fly: {} }] })), [
      "actions.0",
    ]);
  });
});

describe("jobs, map, search, feedback", () => {
  it("batch takes 2 to 50 urls and no url", () => {
    assert.deepEqual(fieldsOf(batchRequest.safeParse({ urls: ["https://a.com"] })), ["urls"]);
    const fiftyOne = Array.from({ length: 51 }, (_, i) => `https://a.com/${i}`);
    assert.deepEqual(fieldsOf(batchRequest.safeParse({ urls: fiftyOne })), ["urls"]);
    assert.deepEqual(
      fieldsOf(batchRequest.safeParse({ urls: ["https://a.com", "https://b.com"], url: "https://c.com" })),
      ["url"],
    );
  });
  it("crawl defaults limit 25 and maxDepth 2, max 200", () => {
    const c = crawlRequest.parse({ url: "https://a.com" });
    assert.equal(c.limit, 25);
    assert.equal(c.maxDepth, 2);
    assert.deepEqual(fieldsOf(crawlRequest.safeParse({ url: "https://a.com", limit: 201 })), ["limit"]);
  });
  it("map defaults limit 1000 and includePage true, max 5000", () => {
    const m = mapRequest.parse({ url: "https://a.com" });
    assert.equal(m.limit, 1000);
    assert.equal(m.includePage, true);
    assert.deepEqual(fieldsOf(mapRequest.safeParse({ url: "https://a.com", limit: 5001 })), ["limit"]);
  });
  it("search defaults limit 10 and snippets true, max 50", () => {
    const s = searchRequest.parse({ query: "q" });
    assert.equal(s.limit, 10);
    assert.equal(s.snippets, true);
    assert.deepEqual(fieldsOf(searchRequest.safeParse({ query: "q", limit: 51 })), ["limit"]);
    assert.deepEqual(fieldsOf(searchRequest.safeParse({ query: "q", since: "yesterday" })), ["since"]);
  });
  it("feedback needs a message", () => {
    assert.deepEqual(fieldsOf(feedbackRequest.safeParse({})), ["message"]);
  });
});
