import assert from "node:assert/strict";
import { test } from "node:test";
import { pageMicros, pageQuote, sessionMinutesDue, sessionTailMinutes, usd } from "../src/index.ts";

test("a page costs $0.001 per format and json pays for its model call", () => {
  assert.equal(pageQuote(["markdown"]).micros, 1_000);
  const q = pageQuote(["markdown", "links", "screenshot"]);
  assert.equal(q.micros, 3_000);
  assert.equal(q.lines.length, 3);
  assert.equal(pageQuote(["json"]).micros, 3_000);
  assert.equal(pageMicros(["markdown", "json"]), 4_000);
});

test("cached formats cost $0.0002 in place of their format price", () => {
  assert.equal(pageQuote(["markdown", "html", "links"], ["markdown", "html"]).micros, 200 + 200 + 1_000);
  // a cached format that was not requested changes nothing
  assert.equal(pageQuote(["markdown", "html", "links"], ["pdf"]).micros, 3_000);
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

test("usd prints exact dollar amounts", () => {
  assert.equal(usd(200), "$0.0002");
  assert.equal(usd(1_000), "$0.001");
  assert.equal(usd(5_000_000), "$5.00");
  assert.equal(usd(1_234_567), "$1.234567");
});
