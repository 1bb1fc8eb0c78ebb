import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type JobQueue, type LastStarts, pickDispatches } from "../src/schedule.ts";

const queue = (jobId: string, n: number, host = "a.test", extra: Partial<JobQueue> = {}): JobQueue => ({
  jobId,
  inFlight: 0,
  candidates: Array.from({ length: n }, (_, i) => ({ pageId: i + 1, host })),
  hostDelayMs: 0,
  ...extra,
});

describe("pickDispatches", () => {
  test("a small batch gets pages out beside a large crawl, round-robin", () => {
    const picks = pickDispatches(
      [queue("crawl", 200, "big.test"), queue("batch", 3, "small.test")],
      { jobConcurrency: 8, hostConcurrency: 8, budget: 6 },
      new Map(),
      0,
    );
    assert.equal(picks.filter((p) => p.jobId === "batch").length, 3);
    assert.equal(picks.filter((p) => p.jobId === "crawl").length, 3);
  });

  test("a job never has more than jobConcurrency pages in flight", () => {
    const picks = pickDispatches(
      [queue("crawl", 50, "x.test", { inFlight: 6 })],
      { jobConcurrency: 8, hostConcurrency: 10, budget: 100 },
      new Map(),
      0,
      new Map([["x.test", 6]]),
    );
    assert.equal(picks.length, 2);
  });

  test("per-host concurrency holds within a job, other hosts of that job still go", () => {
    const q = queue("batch", 0);
    q.candidates = [
      { pageId: 1, host: "a.test" },
      { pageId: 2, host: "a.test" },
      { pageId: 3, host: "a.test" },
      { pageId: 4, host: "b.test" },
    ];
    const picks = pickDispatches([q], { jobConcurrency: 8, hostConcurrency: 2, budget: 10 }, new Map(), 0);
    assert.deepEqual(
      picks.map((p) => p.pageId),
      [1, 2, 4],
    );
  });

  test("per-host limits count every job's pages: two crawls of one site share its limit", () => {
    const picks = pickDispatches(
      [queue("a", 10, "shared.test"), queue("b", 10, "shared.test"), queue("c", 2, "other.test")],
      { jobConcurrency: 8, hostConcurrency: 3, budget: 50 },
      new Map(),
      0,
      new Map([["shared.test", 1]]),
    );
    assert.equal(picks.filter((p) => p.host === "shared.test").length, 2, "one was already in flight");
    assert.deepEqual(
      new Set(picks.filter((p) => p.host === "shared.test").map((p) => p.jobId)),
      new Set(["a", "b"]),
    );
    assert.equal(picks.filter((p) => p.host === "other.test").length, 2);
  });

  test("one host delay window holds across jobs", () => {
    const starts: LastStarts = new Map();
    const limits = { jobConcurrency: 8, hostConcurrency: 8, budget: 10 };
    const q = () => [
      queue("x", 5, "h.test", { hostDelayMs: 1000 }),
      queue("y", 5, "h.test", { hostDelayMs: 1000 }),
    ];
    assert.equal(pickDispatches(q(), limits, starts, 10_000).length, 1);
    assert.equal(pickDispatches(q(), limits, starts, 10_400).length, 0);
  });

  test("a host delay allows one start per delay window", () => {
    const starts: LastStarts = new Map();
    const limits = { jobConcurrency: 8, hostConcurrency: 8, budget: 10 };
    const first = pickDispatches([queue("c", 5, "h.test", { hostDelayMs: 1000 })], limits, starts, 10_000);
    assert.equal(first.length, 1);
    const tooSoon = pickDispatches([queue("c", 5, "h.test", { hostDelayMs: 1000 })], limits, starts, 10_500);
    assert.equal(tooSoon.length, 0);
    const later = pickDispatches([queue("c", 5, "h.test", { hostDelayMs: 1000 })], limits, starts, 11_000);
    assert.equal(later.length, 1);
  });

  test("the budget caps the round", () => {
    const picks = pickDispatches(
      [queue("a", 10), queue("b", 10, "b.test")],
      { jobConcurrency: 8, hostConcurrency: 8, budget: 3 },
      new Map(),
      0,
    );
    assert.equal(picks.length, 3);
  });
});
