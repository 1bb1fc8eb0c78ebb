import assert from "node:assert/strict";
import { test } from "node:test";
import { nextLeaseSize } from "../src/lease-size.ts";

const o = { leaseMicros: 50_000, leaseMs: 5_000, maxLeaseMicros: 5_000_000 };

test("an account's first lease, and a quiet one's, is the smallest", () => {
  assert.equal(nextLeaseSize(undefined, o), 50_000);
  // $0.05 spent over 20 s: a fifth of a lease in its time.
  assert.equal(nextLeaseSize({ taken: 50_000, spent: 50_000, ms: 20_000 }, o), 50_000);
});

test("a busy account's next lease lasts a lease's time at the rate the last one was spent, growing at most 4 times", () => {
  // 40,000 spent in 1 s: 200,000 lasts 5 s.
  assert.equal(nextLeaseSize({ taken: 50_000, spent: 40_000, ms: 1_000 }, o), 200_000);
  // Spent in 10 ms (a burst): 4 times the last, not 100 times.
  assert.equal(nextLeaseSize({ taken: 50_000, spent: 40_000, ms: 10 }, o), 200_000);
  assert.equal(
    nextLeaseSize({ taken: 2_000_000, spent: 1_500_000, ms: 100 }, o),
    5_000_000,
    "never past the most",
  );
});

test("a lease that the balance kept small grows from what it took, never below the smallest", () => {
  assert.equal(nextLeaseSize({ taken: 1_000, spent: 1_000, ms: 1 }, o), 50_000);
});
