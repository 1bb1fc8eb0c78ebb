/**
 * Each priced operation's price rule (on the operation): the spec's prices, and the words every
 * description shows beside the quote the handler charges.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  batchRequest,
  crawlRequest,
  mapRequest,
  searchRequest,
  sessionRequest,
} from "@browserfleet/contracts";
import { actPrice } from "../src/operations/act.ts";
import { crawlPrice } from "../src/operations/crawl.ts";
import { PRICED_OPERATIONS } from "../src/operations/index.ts";
import { mapPrice } from "../src/operations/map.ts";
import { scrapePrice } from "../src/operations/scrape.ts";
import { batchPrice } from "../src/operations/scrape-batch.ts";
import { searchPrice } from "../src/operations/search.ts";
import { sessionPrice } from "../src/operations/session.ts";

test("a scrape costs $0.001 per format, cached formats $0.0002, json $0.003", () => {
  assert.equal(scrapePrice.quote({ formats: ["markdown"] }).micros, 1_000);
  assert.equal(scrapePrice.quote({ formats: ["markdown", "links", "screenshot"] }).micros, 3_000);
  assert.equal(scrapePrice.quote({ formats: ["markdown", "html"], cached: ["html"] }).micros, 1_200);
  assert.equal(scrapePrice.quote({ formats: ["json"] }).micros, 3_000);
});

test("session open is $0.005 with one format, more per extra format", () => {
  assert.equal(sessionPrice.quote(sessionRequest.parse({ url: "https://a.example/" })).micros, 5_000);
  const two = sessionRequest.parse({ url: "https://a.example/", formats: ["controls", "screenshot"] });
  assert.equal(sessionPrice.quote(two).micros, 6_000);
  const json = sessionRequest.parse({ url: "https://a.example/", formats: ["json"], json: { prompt: "x" } });
  assert.equal(sessionPrice.quote(json).micros, 7_000);
});

test("a recorded session adds $0.001 for each of its minutes, the first with the open", () => {
  const recorded = sessionRequest.parse({ url: "https://a.example/", record: true });
  const open = sessionPrice.quote(recorded);
  assert.equal(open.micros, 6_000);
  assert.deepEqual(
    open.lines.map((l) => l.item),
    ["session open (first minute, first format)", "recording (first minute)"],
  );
  assert.equal(actPrice.quote({ actions: 1, minutesDue: 2, recorded: true }).micros, 500 + 2 * 5_000);
  assert.equal(actPrice.quote({ actions: 1, minutesDue: 0, recorded: true }).micros, 500);
});

test("act is $0.0005 per action plus $0.004 per minute past the first", () => {
  assert.equal(actPrice.quote({ actions: 3, minutesDue: 0 }).micros, 1_500);
  assert.equal(actPrice.quote({ actions: 3, minutesDue: 2 }).micros, 1_500 + 8_000);
});

test("map and search scale with their limits from the spec's floors", () => {
  const map = (body: object) =>
    mapPrice.quote(mapRequest.parse({ url: "https://a.example/", ...body })).micros;
  assert.equal(map({}), 300);
  assert.equal(map({ limit: 5000 }), 1_500);
  assert.equal(map({ limit: 1001 }), 600);
  assert.equal(searchPrice.quote(searchRequest.parse({ query: "x" })).micros, 7_000);
  assert.equal(searchPrice.quote(searchRequest.parse({ query: "x", limit: 50 })).micros, 35_000);
});

test("batch holds urls × page price, crawl holds limit × page price", () => {
  const batch = batchRequest.parse({
    urls: ["https://a.example/1", "https://a.example/2", "https://a.example/3"],
    formats: ["markdown", "links"],
  });
  assert.equal(batchPrice.quote({ pages: batch.urls.length, formats: batch.formats }).micros, 3 * 2_000);
  const crawl = crawlRequest.parse({ url: "https://a.example/" });
  assert.equal(crawlPrice.quote({ pages: crawl.limit, formats: crawl.formats }).micros, 25 * 1_000);
});

test("every priced operation words its price and its free allowance, and its tool states the price", () => {
  for (const op of PRICED_OPERATIONS) {
    const { price, allowance } = op.priced;
    assert.match(price.words, /\$0\.\d+/, op.name);
    assert.match(price.brief, /^\$0\.\d+ /, op.name);
    assert.ok(allowance.words.length > 0, op.name);
    const tool = op.tool && "description" in op.tool ? op.tool.description : undefined;
    if (tool) assert.ok(tool.includes(price.brief) || tool.includes(price.words), `${op.name}: ${tool}`);
  }
});
