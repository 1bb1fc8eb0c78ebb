import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { DEFAULT_RETRY, nextStep, retryAfterMs } from "../src/retry.ts";

const t0 = Date.parse("2026-11-28T00:00:00Z");
const created = new Date(t0);
const answered = (status: number, retryAfter?: string) => ({
  kind: "answered" as const,
  status,
  retryAfter,
  ms: 5,
});
const half = () => 0; // jitter at its least: half the delay
const whole = () => 1; // jitter at its most: all of it

describe("what follows a delivery attempt", () => {
  test("a 2xx is delivered; a 410 stops; a 4xx other than 408, 425 and 429 fails at once; a refused address fails", () => {
    for (const s of [200, 202, 204])
      assert.equal(nextStep(answered(s), { attempts: 1, createdAt: created }).kind, "delivered");
    assert.equal(nextStep(answered(410), { attempts: 1, createdAt: created }).kind, "stopped");
    for (const s of [301, 400, 401, 403, 404, 413]) {
      const n = nextStep(answered(s), { attempts: 1, createdAt: created }, DEFAULT_RETRY, t0);
      assert.equal(n.kind, "failed", String(s));
    }
    const refused = nextStep(
      { kind: "refused", error: "private address", ms: 1 },
      { attempts: 1, createdAt: created },
    );
    assert.deepEqual(refused, { kind: "failed", why: "private address" });
  });

  test("no answer, 408, 425, 429 and 5xx are retried after a delay that doubles, with jitter between half and all of it, up to an hour", () => {
    for (const o of [
      answered(500),
      answered(503),
      answered(429),
      answered(408),
      answered(425),
      { kind: "unanswered" as const, error: "timeout", ms: 10_000 },
    ]) {
      const n = nextStep(o, { attempts: 1, createdAt: created }, DEFAULT_RETRY, t0, whole);
      assert.deepEqual(n, { kind: "retry", at: new Date(t0 + 5_000) });
    }
    const delays = [1, 2, 3, 4, 12].map((attempts) => {
      const n = nextStep(answered(500), { attempts, createdAt: created }, DEFAULT_RETRY, t0, whole);
      assert.equal(n.kind, "retry");
      return (n as { at: Date }).at.getTime() - t0;
    });
    assert.deepEqual(delays, [5_000, 10_000, 20_000, 40_000, 3_600_000]);
    const low = nextStep(answered(500), { attempts: 3, createdAt: created }, DEFAULT_RETRY, t0, half);
    assert.equal((low as { at: Date }).at.getTime() - t0, 10_000);
  });

  test("Retry-After, in seconds or as a date, is honoured when longer than the backoff, up to six hours", () => {
    const at = (o: ReturnType<typeof answered>) =>
      (
        nextStep(o, { attempts: 1, createdAt: created }, DEFAULT_RETRY, t0, whole) as { at: Date }
      ).at.getTime() - t0;
    assert.equal(at(answered(429, "120")), 120_000);
    assert.equal(at(answered(503, new Date(t0 + 300_000).toUTCString())), 300_000);
    assert.equal(at(answered(429, "1")), 5_000, "a shorter Retry-After does not hurry the backoff");
    assert.equal(at(answered(429, "999999")), 6 * 3_600_000);
    assert.equal(retryAfterMs("soon", t0), undefined);
  });

  test("retries last a day: the last one lands at the day's end, and after it the event fails", () => {
    const late = t0 + 24 * 3_600_000 - 1_000;
    const n = nextStep(answered(500), { attempts: 20, createdAt: created }, DEFAULT_RETRY, late, whole);
    assert.deepEqual(n, { kind: "retry", at: new Date(t0 + 24 * 3_600_000) });
    const over = nextStep(
      answered(500),
      { attempts: 21, createdAt: created },
      DEFAULT_RETRY,
      t0 + 24 * 3_600_000,
    );
    assert.equal(over.kind, "failed");
    assert.match((over as { why: string }).why, /21 attempts over 24 h/);
  });
});
