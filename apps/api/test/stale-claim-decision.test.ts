/**
 * What the stale-claim sweep does with a wallet claim left pending, given what the chain says of its
 * authorization: record what moved, release what can never move, keep the rest. Pure; no chain, no
 * database (test/e2e/x402-recovery.test.ts runs it against a real chain and PostgreSQL).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decideStaleClaim, type StaleClaim } from "../src/billing/stale-claim-decision.ts";
import type { AuthorizationFacts } from "../src/payments/x402-chain.ts";

const VALID_BEFORE = 1_800_000_000;
const TX = "0x1111111111111111111111111111111111111111111111111111111111111111";
const PAY_TO = "0x00000000000000000000000000000000000000B2";

const exact: StaleClaim = { scheme: "exact", amountMicros: 2_000, validBefore: VALID_BEFORE };
const upto: StaleClaim = { scheme: "upto", amountMicros: 2_000, validBefore: VALID_BEFORE };
const at = (timestamp: number) => ({ number: 100n, timestamp });
const facts = (f: Partial<AuthorizationFacts> = {}): AuthorizationFacts => ({
  block: at(VALID_BEFORE - 60),
  used: false,
  ...f,
});
const settlement = (amountMicros: number) => ({ transaction: TX, to: PAY_TO, amountMicros }) as const;

describe("decideStaleClaim", () => {
  it("exact, spent on chain with its transaction found: records what moved, with that transaction", () => {
    assert.deepEqual(decideStaleClaim(exact, facts({ used: true, settlement: settlement(2_000) })), {
      action: "record",
      transaction: TX,
      amountMicros: 2_000,
    });
  });

  it("upto: records the Transfer's value, what the call cost, not the quote", () => {
    assert.deepEqual(decideStaleClaim(upto, facts({ used: true, settlement: settlement(1_000) })), {
      action: "record",
      transaction: TX,
      amountMicros: 1_000,
    });
  });

  it("records a settlement found after the authorization expired: spent is spent", () => {
    const v = decideStaleClaim(
      exact,
      facts({ block: at(VALID_BEFORE + 3600), used: true, settlement: settlement(2_000) }),
    );
    assert.equal(v.action, "record");
  });

  it("spent on chain but its transaction not found: kept for an operator, never dropped, even long expired", () => {
    for (const claim of [exact, upto]) {
      const v = decideStaleClaim(claim, facts({ block: at(VALID_BEFORE + 86_400), used: true }));
      assert.equal(v.action, "keep");
      assert.equal(v.action === "keep" && v.attention, true);
    }
  });

  it("a spending transaction that moved nothing from the payer is not recorded as a payment", () => {
    const v = decideStaleClaim(exact, facts({ used: true, settlement: settlement(0) }));
    assert.equal(v.action, "keep");
    assert.equal(v.action === "keep" && v.attention, true);
  });

  it("exact, cancelled by the payer (AuthorizationCanceled): nothing moved, released", () => {
    assert.equal(decideStaleClaim(exact, facts({ used: true, canceled: true })).action, "release");
  });

  it("unused at a block past validBefore: it can never be used, released", () => {
    for (const claim of [exact, upto]) {
      assert.equal(decideStaleClaim(claim, facts({ block: at(VALID_BEFORE + 1) })).action, "release");
    }
  });

  it("unused and still usable (the chain's clock, not ours, at or before validBefore): kept, quietly", () => {
    for (const timestamp of [VALID_BEFORE - 600, VALID_BEFORE]) {
      const v = decideStaleClaim(exact, facts({ block: at(timestamp) }));
      assert.equal(v.action, "keep");
      assert.equal(v.action === "keep" && v.attention, false, "not an operator's business yet");
    }
  });
});
