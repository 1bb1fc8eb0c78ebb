import assert from "node:assert/strict";
import { test } from "node:test";
import {
  batchRequest,
  crawlRequest,
  mapRequest,
  scrapeRequest,
  searchRequest,
  sessionRequest,
} from "@browserfleet/contracts";
import { priceOf, sessionMinutesDue, sessionTailMinutes, usd } from "../src/index.ts";

const scrape = (body: unknown) => scrapeRequest.parse(body);

test("a scrape costs $0.001 per format; the default single markdown format is the spec's floor", () => {
  assert.equal(priceOf({ route: "scrape", request: scrape({ url: "https://a.example/" }) }).micros, 1_000);
  const q = priceOf({
    route: "scrape",
    request: scrape({ url: "https://a.example/", formats: ["markdown", "links", "screenshot"] }),
  });
  assert.equal(q.micros, 3_000);
  assert.equal(q.lines.length, 3);
});

test("cached formats cost $0.0002 in place of their format price", () => {
  const request = scrape({ url: "https://a.example/", formats: ["markdown", "html", "links"] });
  assert.equal(
    priceOf({ route: "scrape", request, cachedFormats: ["markdown", "html"] }).micros,
    200 + 200 + 1_000,
  );
  // a cached format that was not requested changes nothing
  assert.equal(priceOf({ route: "scrape", request, cachedFormats: ["pdf"] }).micros, 3_000);
});

test("json pays for its model call", () => {
  const request = scrape({ url: "https://a.example/", formats: ["json"], json: { prompt: "title" } });
  assert.equal(priceOf({ route: "scrape", request }).micros, 3_000);
});

test("session open is $0.005 with one format, more per extra format", () => {
  assert.equal(
    priceOf({ route: "session", request: sessionRequest.parse({ url: "https://a.example/" }) }).micros,
    5_000,
  );
  const two = sessionRequest.parse({ url: "https://a.example/", formats: ["controls", "screenshot"] });
  assert.equal(priceOf({ route: "session", request: two }).micros, 6_000);
});

test("act is $0.0005 per action plus $0.004 per minute past the first", () => {
  const actions = [{ press: "Enter" }, { press: "Tab" }, { press: "Tab" }];
  assert.equal(priceOf({ route: "act", request: { actions } as never, minutesDue: 0 }).micros, 1_500);
  assert.equal(priceOf({ route: "act", request: { actions } as never, minutesDue: 2 }).micros, 1_500 + 8_000);
});

test("session minutes: the first minute is free, each started minute after it is billed once", () => {
  const opened = new Date("2026-01-01T00:00:00Z");
  const at = (s: number) => new Date(opened.getTime() + s * 1000);
  assert.equal(sessionMinutesDue(opened, 1, at(30)), 0);
  assert.equal(sessionMinutesDue(opened, 1, at(60)), 0);
  assert.equal(sessionMinutesDue(opened, 1, at(61)), 1);
  assert.equal(sessionMinutesDue(opened, 2, at(119)), 0);
  assert.equal(sessionMinutesDue(opened, 2, at(200)), 2);
});

test("a session's idle tail: the act's run plus the idle timeout, in started minutes, within the lifetime", () => {
  assert.equal(sessionTailMinutes({ idleMs: 300_000, actBudgetMs: 120_000, maxLifetimeMs: 3_600_000 }), 7);
  assert.equal(sessionTailMinutes({ idleMs: 4_000, actBudgetMs: 120_000, maxLifetimeMs: 3_600_000 }), 3);
  // a session can never run past its lifetime, whose first minute is in the opening price
  assert.equal(sessionTailMinutes({ idleMs: 300_000, actBudgetMs: 120_000, maxLifetimeMs: 180_000 }), 2);
  assert.equal(sessionTailMinutes({ idleMs: 1_000, actBudgetMs: 1_000, maxLifetimeMs: 60_000 }), 0);
});

test("map and search scale with their limits from the spec's floors", () => {
  assert.equal(
    priceOf({ route: "map", request: mapRequest.parse({ url: "https://a.example/" }) }).micros,
    300,
  );
  assert.equal(
    priceOf({ route: "map", request: mapRequest.parse({ url: "https://a.example/", limit: 5000 }) }).micros,
    1_500,
  );
  assert.equal(
    priceOf({ route: "map", request: mapRequest.parse({ url: "https://a.example/", limit: 1001 }) }).micros,
    600,
  );
  assert.equal(priceOf({ route: "search", request: searchRequest.parse({ query: "x" }) }).micros, 7_000);
  assert.equal(
    priceOf({ route: "search", request: searchRequest.parse({ query: "x", limit: 50 }) }).micros,
    35_000,
  );
});

test("batch holds urls × page price, crawl holds limit × page price", () => {
  const batch = batchRequest.parse({
    urls: ["https://a.example/1", "https://a.example/2", "https://a.example/3"],
    formats: ["markdown", "links"],
  });
  assert.equal(priceOf({ route: "batch", request: batch }).micros, 3 * 2_000);
  assert.equal(
    priceOf({ route: "crawl", request: crawlRequest.parse({ url: "https://a.example/" }) }).micros,
    25 * 1_000,
  );
});

test("usd prints exact dollar amounts", () => {
  assert.equal(usd(200), "$0.0002");
  assert.equal(usd(1_000), "$0.001");
  assert.equal(usd(5_000_000), "$5.00");
  assert.equal(usd(1_234_567), "$1.234567");
});
