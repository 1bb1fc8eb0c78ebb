/**
 * Each way of paying (key balance, balance lease, lease reservation, keyless allowance, wallet) through the same
 * reserve → work → commit/cancel that payFor runs, against in-memory fakes of its narrow dependencies:
 * what the caller is charged, what goes back when the work fails or nothing came out. No server, no
 * database (the e2e tests run the real ledger, allowance counters and chain).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ChargeResult, HoldResult, Settlement, WalletPaymentClaim } from "@browserfleet/billing";
import type { Quote } from "@browserfleet/pricing";
import type { ConsumeResult } from "../src/allowance/index.ts";
import { balanceLease, type Leases, leaseReservation } from "../src/billing/balance-lease.ts";
import { type Holds, keyBalance } from "../src/billing/key-balance.ts";
import { type AllowanceCounters, keylessAllowance } from "../src/billing/keyless-allowance.ts";
import { payFor } from "../src/billing/payment.ts";
import { type Facilitator, type WalletClaims, wallet } from "../src/billing/wallet.ts";
import {
  type Alongside,
  type CallBooks,
  type CallToReserve,
  type PaidWork,
  type Payer,
  runPaid,
  type UsageOf,
  type WayOfPaying,
} from "../src/billing/way-of-paying.ts";
import { ApiError } from "../src/errors.ts";
import { PaymentError, type VerifiedPayment } from "../src/payments/x402.ts";
import { allowanceOf } from "./allowance-of.ts";

const quote = (micros: number): Quote => ({ micros, lines: [] });

const call = (micros: number, over: Partial<CallToReserve> = {}): CallToReserve => ({
  route: "search",
  allowance: allowanceOf(over.route ?? "search"),
  request: {},
  quote: quote(micros),
  description: "a call",
  holdMs: 60_000,
  requestId: "req_1",
  ...over,
});

/** Records what a way of paying reports: usage rows, money metrics, headers. */
function books() {
  const seen = {
    usage: [] as { status: number; priceMicros: number; who: UsageOf }[],
    charged: [] as { payer: string; micros: number }[],
    refunded: [] as number[],
    headers: {} as Record<string, string>,
  };
  const b: CallBooks = {
    usage: (status, priceMicros, who) => seen.usage.push({ status, priceMicros, who }),
    charged: (payer, micros) => seen.charged.push({ payer, micros }),
    refunded: (micros) => seen.refunded.push(micros),
    setHeader: (name, value) => {
      seen.headers[name] = value;
    },
  };
  return { books: b, seen };
}

/** Work that came out costing `chargeMicros`, remembering who paid. */
function work(chargeMicros: number, unitsUsed?: number) {
  const ran: Payer[] = [];
  const fn = async (payer: Payer): Promise<PaidWork<string>> => {
    ran.push(payer);
    return { result: "done", chargeMicros, allowanceUnitsUsed: unitsUsed };
  };
  return { fn, ran };
}

const failing = (err: unknown) => {
  const ran: Payer[] = [];
  const fn = async (payer: Payer): Promise<PaidWork<string>> => {
    ran.push(payer);
    throw err;
  };
  return { fn, ran };
};

const rejectsWith = (p: Promise<unknown>, code: string) =>
  assert.rejects(p, (err: unknown) => err instanceof ApiError && err.code === code);

/** One account's ledger: a balance, and holds that capture at most what they hold. */
function fakeLedger(balance: number) {
  const state = { balance, held: new Map<string, { micros: number; open: boolean }>(), captured: 0 };
  let n = 0;
  const holds: Holds = {
    async place(h): Promise<HoldResult> {
      if (state.balance < h.micros) return { ok: false, balanceMicros: state.balance };
      state.balance -= h.micros;
      const holdId = `hold_${++n}`;
      state.held.set(holdId, { micros: h.micros, open: true });
      return { ok: true, holdId, balanceMicros: state.balance };
    },
    async settle(holdId, capturedMicros): Promise<Settlement | undefined> {
      const hold = state.held.get(holdId);
      if (!hold?.open) return undefined;
      hold.open = false;
      const captured = Math.min(capturedMicros, hold.micros);
      state.captured += captured;
      state.balance += hold.micros - captured;
      return { capturedMicros: captured, refundedMicros: hold.micros - captured };
    },
  };
  return { holds, state, openHolds: () => [...state.held.values()].filter((h) => h.open).length };
}

describe("key balance", () => {
  it("holds the quote, charges what came out below it and refunds the rest at once", async () => {
    const ledger = fakeLedger(10_000);
    const { books: b, seen } = books();
    const way = keyBalance({ holds: ledger.holds, books: b }, "acct_1");
    const w = work(1_000);
    assert.equal(await runPaid(way, call(3_000), w.fn), "done");
    assert.deepEqual(w.ran, [{ kind: "account", accountId: "acct_1" }]);
    assert.equal(ledger.state.balance, 9_000);
    assert.equal(ledger.state.captured, 1_000);
    assert.equal(ledger.openHolds(), 0);
    assert.equal(seen.headers["X-Charged-Usd"], "$0.001");
    assert.deepEqual(seen.charged, [{ payer: "account", micros: 1_000 }]);
    assert.deepEqual(seen.refunded, [2_000]);
    assert.deepEqual(seen.usage, [{ status: 200, priceMicros: 1_000, who: { accountId: "acct_1" } }]);
  });

  it("charges the whole quote when all of it came out, and never more than the hold", async () => {
    const ledger = fakeLedger(10_000);
    const { books: b, seen } = books();
    await runPaid(keyBalance({ holds: ledger.holds, books: b }, "acct_1"), call(3_000), work(3_000).fn);
    assert.equal(ledger.state.balance, 7_000);
    assert.equal(seen.headers["X-Charged-Usd"], "$0.003");
    assert.deepEqual(seen.refunded, []);
  });

  it("settles the hold in one statement with the work's write alongside, which the plain settle never sees", async () => {
    const ledger = fakeLedger(10_000);
    const { books: b, seen } = books();
    const plain: string[] = [];
    const holds: Holds = {
      ...ledger.holds,
      settle: (holdId, micros) => {
        plain.push(holdId);
        return ledger.holds.settle(holdId, micros);
      },
    };
    const made: string[] = [];
    const alongside: Alongside = {
      write: async () => void made.push("write"),
      settle: (holdId, micros) => {
        made.push(`settle ${holdId} ${micros}`);
        return ledger.holds.settle(holdId, micros);
      },
      within: async () => void made.push("within"),
    };
    const done = await runPaid(keyBalance({ holds, books: b }, "acct_1"), call(3_000), async () => ({
      result: "done",
      chargeMicros: 1_000,
      alongside,
    }));
    assert.equal(done, "done");
    assert.deepEqual(made, ["settle hold_1 1000"]);
    assert.deepEqual(plain, []);
    assert.equal(ledger.state.balance, 9_000);
    assert.equal(seen.headers["X-Charged-Usd"], "$0.001");
    assert.deepEqual(seen.refunded, [2_000]);
    // The work failed: refunded in full by the plain settle, nothing written.
    await assert.rejects(
      runPaid(keyBalance({ holds, books: b }, "acct_1"), call(3_000), failing(new Error("gone")).fn),
    );
    assert.deepEqual(made, ["settle hold_1 1000"]);
    assert.deepEqual(plain, ["hold_2"]);
    assert.equal(ledger.state.balance, 9_000);
  });

  it("charges nothing when nothing came out", async () => {
    const ledger = fakeLedger(10_000);
    const { books: b, seen } = books();
    await runPaid(keyBalance({ holds: ledger.holds, books: b }, "acct_1"), call(3_000), work(0).fn);
    assert.equal(ledger.state.balance, 10_000);
    assert.equal(seen.headers["X-Charged-Usd"], "$0.00");
    assert.deepEqual(seen.refunded, [3_000]);
  });

  it("refunds the hold in full when the work throws, and passes the failure on", async () => {
    const ledger = fakeLedger(10_000);
    const { books: b, seen } = books();
    const boom = new ApiError("render_failed", "the page did not load");
    await assert.rejects(
      runPaid(keyBalance({ holds: ledger.holds, books: b }, "acct_1"), call(3_000), failing(boom).fn),
      (err) => err === boom,
    );
    assert.equal(ledger.state.balance, 10_000);
    assert.equal(ledger.state.captured, 0);
    assert.equal(ledger.openHolds(), 0);
    assert.equal(seen.headers["X-Charged-Usd"], undefined);
    assert.deepEqual(seen.refunded, [3_000]);
    assert.deepEqual(seen.usage, [{ status: boom.status, priceMicros: 0, who: { accountId: "acct_1" } }]);
  });

  it("refuses a quote the balance does not cover with 402 insufficient_balance, before any work", async () => {
    const ledger = fakeLedger(2_000);
    const { books: b, seen } = books();
    const w = work(3_000);
    await assert.rejects(
      runPaid(keyBalance({ holds: ledger.holds, books: b }, "acct_1"), call(3_000), w.fn),
      (err) =>
        err instanceof ApiError &&
        err.code === "insufficient_balance" &&
        err.status === 402 &&
        err.extra?.price?.micros === 3_000 &&
        err.extra?.balance?.micros === 2_000,
    );
    assert.equal(w.ran.length, 0);
    assert.equal(ledger.state.balance, 2_000);
    assert.deepEqual(seen.usage, [{ status: 402, priceMicros: 0, who: { accountId: "acct_1" } }]);
  });
});

/**
 * Balance leases as the caller sees them: a charge or a reservation comes off the balance at once, a
 * refund or a release puts it back, a settlement puts back what was not charged. `written` holds the
 * settled calls (micros) and their writes alongside, as the lease's next batch would write them.
 */
function fakeLeases(balance: number) {
  const state = { balance, refunds: 0, written: [] as Array<{ micros: number; alongside: boolean }> };
  const leases: Leases = {
    async reserve(c) {
      if (state.balance < c.micros) return { ok: false, balanceMicros: state.balance };
      state.balance -= c.micros;
      let open = true;
      const done = (micros: number, alongside?: unknown) => {
        assert.ok(open, "a reservation is settled or released once");
        open = false;
        const take = Math.min(micros, c.micros);
        state.balance += c.micros - take;
        if (take > 0 || alongside) state.written.push({ micros: take, alongside: !!alongside });
      };
      return {
        ok: true,
        reservation: { settle: (micros, alongside) => done(micros, alongside), release: () => done(0) },
      };
    },
    async charge(c): Promise<ChargeResult> {
      if (state.balance < c.micros) return { ok: false, balanceMicros: state.balance };
      state.balance -= c.micros;
      let refunded = false;
      return {
        ok: true,
        async refund() {
          assert.ok(!refunded, "a charge is refunded once");
          refunded = true;
          state.refunds++;
          state.balance += c.micros;
        },
      };
    },
  };
  return { leases, state };
}

describe("balance lease", () => {
  it("charges the final quote from the lease before the work", async () => {
    const l = fakeLeases(1_000);
    const { books: b, seen } = books();
    let balanceDuringWork = -1;
    const way = balanceLease({ leases: l.leases, books: b }, "acct_1");
    const result = await runPaid(way, call(400), async (payer) => {
      assert.deepEqual(payer, { kind: "account", accountId: "acct_1" });
      balanceDuringWork = l.state.balance;
      return { result: "cached", chargeMicros: 400 };
    });
    assert.equal(result, "cached");
    assert.equal(balanceDuringWork, 600);
    assert.equal(l.state.balance, 600);
    assert.equal(seen.headers["X-Charged-Usd"], "$0.0004");
    assert.deepEqual(seen.charged, [{ payer: "account", micros: 400 }]);
    assert.deepEqual(seen.usage, [{ status: 200, priceMicros: 400, who: { accountId: "acct_1" } }]);
  });

  it("gives the charge back when the work throws after all", async () => {
    const l = fakeLeases(1_000);
    const { books: b, seen } = books();
    const way = balanceLease({ leases: l.leases, books: b }, "acct_1");
    await assert.rejects(runPaid(way, call(400), failing(new Error("cache row vanished")).fn), /vanished/);
    assert.equal(l.state.balance, 1_000);
    assert.equal(l.state.refunds, 1);
    assert.equal(seen.headers["X-Charged-Usd"], undefined);
    assert.deepEqual(seen.charged, []);
    assert.deepEqual(seen.usage, [{ status: 500, priceMicros: 0, who: { accountId: "acct_1" } }]);
  });

  it("refuses with 402 insufficient_balance when the lease cannot cover the call", async () => {
    const l = fakeLeases(300);
    const { books: b, seen } = books();
    const w = work(400);
    await rejectsWith(
      runPaid(balanceLease({ leases: l.leases, books: b }, "acct_1"), call(400), w.fn),
      "insufficient_balance",
    );
    assert.equal(w.ran.length, 0);
    assert.equal(l.state.balance, 300);
    assert.deepEqual(seen.usage, [{ status: 402, priceMicros: 0, who: { accountId: "acct_1" } }]);
  });
});

describe("lease reservation (an act paid from the balance lease)", () => {
  const alongside = (made: string[]): Alongside => ({
    write: async () => void made.push("write"),
    settle: async () => {
      made.push("settle");
      return undefined;
    },
    within: async () => void made.push("within"),
  });

  it("sets the quote aside before the work, charges what came out and hands the write to the lease's batch", async () => {
    const l = fakeLeases(10_000);
    const { books: b, seen } = books();
    const made: string[] = [];
    let balanceDuringWork = -1;
    const way = leaseReservation({ leases: l.leases, books: b }, "acct_1");
    const done = await runPaid(way, call(3_000), async (payer) => {
      assert.deepEqual(payer, { kind: "account", accountId: "acct_1" });
      balanceDuringWork = l.state.balance;
      return { result: "done", chargeMicros: 1_000, alongside: alongside(made) };
    });
    assert.equal(done, "done");
    assert.equal(balanceDuringWork, 7_000, "the whole quote is set aside during the work");
    assert.equal(l.state.balance, 9_000, "what did not come out is given back");
    assert.deepEqual(l.state.written, [{ micros: 1_000, alongside: true }]);
    assert.deepEqual(made, [], "the write is the lease's to make, in its batch: not made on the call's path");
    assert.equal(seen.headers["X-Charged-Usd"], "$0.001");
    assert.deepEqual(seen.charged, [{ payer: "account", micros: 1_000 }]);
    assert.deepEqual(seen.refunded, [2_000]);
    assert.deepEqual(seen.usage, [{ status: 200, priceMicros: 1_000, who: { accountId: "acct_1" } }]);
  });

  it("charges nothing when nothing came out, but still writes the record that goes with it", async () => {
    const l = fakeLeases(10_000);
    const { books: b, seen } = books();
    const way = leaseReservation({ leases: l.leases, books: b }, "acct_1");
    await runPaid(way, call(3_000), async () => ({
      result: "done",
      chargeMicros: 0,
      alongside: alongside([]),
    }));
    assert.equal(l.state.balance, 10_000);
    assert.deepEqual(l.state.written, [{ micros: 0, alongside: true }]);
    assert.equal(seen.headers["X-Charged-Usd"], "$0.00");
  });

  it("never charges more than the quote", async () => {
    const l = fakeLeases(10_000);
    const { books: b, seen } = books();
    await runPaid(leaseReservation({ leases: l.leases, books: b }, "acct_1"), call(3_000), work(5_000).fn);
    assert.equal(l.state.balance, 7_000);
    assert.deepEqual(seen.charged, [{ payer: "account", micros: 3_000 }]);
  });

  it("gives everything back and writes nothing when the work throws", async () => {
    const l = fakeLeases(10_000);
    const { books: b, seen } = books();
    const boom = new ApiError("timeout", "the session's browser did not answer");
    await assert.rejects(
      runPaid(leaseReservation({ leases: l.leases, books: b }, "acct_1"), call(3_000), failing(boom).fn),
      (err) => err === boom,
    );
    assert.equal(l.state.balance, 10_000);
    assert.deepEqual(l.state.written, []);
    assert.equal(seen.headers["X-Charged-Usd"], undefined);
    assert.deepEqual(seen.usage, [{ status: boom.status, priceMicros: 0, who: { accountId: "acct_1" } }]);
  });

  it("refuses with 402 insufficient_balance before any work when the lease cannot cover the quote", async () => {
    const l = fakeLeases(2_000);
    const { books: b, seen } = books();
    const w = work(1_000);
    await rejectsWith(
      runPaid(leaseReservation({ leases: l.leases, books: b }, "acct_1"), call(3_000), w.fn),
      "insufficient_balance",
    );
    assert.equal(w.ran.length, 0);
    assert.equal(l.state.balance, 2_000);
    assert.deepEqual(seen.usage, [{ status: 402, priceMicros: 0, who: { accountId: "acct_1" } }]);
  });
});

/** Allowance counters per bucket, all or nothing, like AllowanceStore (members aside). */
function fakeAllowance() {
  const used = new Map<string, number>();
  const counters: AllowanceCounters = {
    async consume(_client, buckets): Promise<ConsumeResult> {
      for (const b of buckets) {
        const units = b.units ?? 1;
        const now = used.get(b.bucket) ?? 0;
        if (now + units > b.limit) return { ok: false, bucket: b.bucket, limit: b.limit, used: now, units };
      }
      const held = new Map<string, number>();
      for (const b of buckets) {
        used.set(b.bucket, (used.get(b.bucket) ?? 0) + (b.units ?? 1));
        held.set(b.bucket, b.units ?? 1);
      }
      const giveBack = async (bucket: string, units: number) => {
        const n = Math.min(units, held.get(bucket) ?? 0);
        held.set(bucket, (held.get(bucket) ?? 0) - n);
        used.set(bucket, (used.get(bucket) ?? 0) - n);
      };
      return {
        ok: true,
        release: async () => {
          for (const bucket of held.keys()) await giveBack(bucket, Infinity);
        },
        giveBack,
      };
    },
  };
  return { counters, used };
}

describe("keyless allowance", () => {
  const allowance = (a: ReturnType<typeof fakeAllowance>, b: CallBooks, wallets = false) =>
    keylessAllowance({ allowance: a.counters, books: b, wallets }, "203.0.113.7");

  it("makes the work's write alongside on its own, as no ledger hold is settled", async () => {
    const a = fakeAllowance();
    const { books: b } = books();
    const made: string[] = [];
    const alongside: Alongside = {
      write: async () => void made.push("write"),
      settle: async () => {
        made.push("settle");
        return undefined;
      },
      within: async () => void made.push("within"),
    };
    const done = await runPaid(allowance(a, b), call(7_000), async () => ({
      result: "done",
      chargeMicros: 7_000,
      alongside,
    }));
    assert.equal(done, "done");
    assert.deepEqual(made, ["write"]);
    assert.equal(a.used.get("search:ever"), 1);
  });

  it("takes a unit for a call that came out, and charges no money", async () => {
    const a = fakeAllowance();
    const { books: b, seen } = books();
    const w = work(7_000);
    assert.equal(await runPaid(allowance(a, b), call(7_000), w.fn), "done");
    assert.deepEqual(w.ran, [{ kind: "allowance", client: "203.0.113.7" }]);
    assert.equal(a.used.get("search:ever"), 1);
    assert.deepEqual(seen.charged, []);
    assert.deepEqual(seen.headers, {});
    assert.deepEqual(seen.usage, [{ status: 200, priceMicros: 0, who: {} }]);
  });

  it("gives the unit back when nothing came out, and when the work throws", async () => {
    const a = fakeAllowance();
    const { books: b } = books();
    await runPaid(allowance(a, b), call(7_000), work(0).fn);
    assert.equal(a.used.get("search:ever"), 0);
    await assert.rejects(
      runPaid(allowance(a, b), call(7_000), failing(new Error("no worker")).fn),
      /no worker/,
    );
    assert.equal(a.used.get("search:ever"), 0);
  });

  it("an act takes one unit per action and gives back the actions that did not run", async () => {
    const a = fakeAllowance();
    const { books: b } = books();
    const act = call(1_500, { route: "act", request: { sessionId: "ses_1", actions: [{}, {}, {}] } });
    await runPaid(allowance(a, b), act, work(500, 1).fn);
    assert.equal(a.used.get("act:ever"), 1);
  });

  it("refuses once the counter is used up, with the bucket and the price, before any work", async () => {
    const a = fakeAllowance();
    const { books: b } = books();
    for (let i = 0; i < 5; i++) await runPaid(allowance(a, b), call(7_000), work(7_000).fn);
    const w = work(7_000);
    await assert.rejects(
      runPaid(allowance(a, b, true), call(7_000), w.fn),
      (err) =>
        err instanceof ApiError &&
        err.code === "allowance_exhausted" &&
        /search:ever: 5 of 5 used/.test(err.message) &&
        /x402 wallet/.test(err.message) &&
        err.extra?.price?.micros === 7_000,
    );
    assert.equal(w.ran.length, 0);
    assert.equal(a.used.get("search:ever"), 5);
  });

  it("refuses what needs a key (crawl) with key_required, taking nothing", async () => {
    const a = fakeAllowance();
    const { books: b } = books();
    const w = work(1_000);
    await rejectsWith(runPaid(allowance(a, b), call(1_000, { route: "crawl" }), w.fn), "key_required");
    assert.equal(w.ran.length, 0);
    assert.equal(a.used.size, 0);
  });
});

const PAYER = "0x00000000000000000000000000000000000000A1" as const;

/**
 * A facilitator that accepts signatures `sig:<nonce>:<amount>[:upto]` for the quoted amount, and settles
 * like the real one: `exact` the whole quote, `upto` the amount it is asked for, at most the quote.
 */
function fakeWallet(
  opts: {
    settleFails?: boolean;
    /** The settlement error names a broadcast transaction (settlement_pending). */
    broadcast?: string;
    /** The facilitator can read the chain (the in-process one), so a stale-claim sweep can ask it. */
    readsChain?: boolean;
    /** Recording the settlement fails (PostgreSQL unreachable) this many times. */
    recordFails?: number;
  } = {},
) {
  const state = {
    settled: [] as number[],
    claims: new Map<string, WalletPaymentClaim>(),
    recorded: [] as string[],
    recordedMicros: [] as number[],
    unsettled: [] as { id: string; transaction?: string }[],
  };
  let recordFails = opts.recordFails ?? 0;
  const x402: Facilitator = {
    challenge: (q) => ({ header: `quote:${q.amountMicros}`, body: {} as never }),
    async verify(signature, q) {
      const m = /^sig:(\w+):(\d+)(?::(upto))?$/.exec(signature);
      if (!m || Number(m[2]) !== q.amountMicros)
        throw new PaymentError("payment_invalid", "the signature does not match the quote");
      return {
        scheme: m[3] ?? "exact",
        payer: PAYER,
        amountMicros: Number(m[2]),
        nonce: `0x${m[1]}`,
        network: "eip155:8453",
        asset: "0x0",
        validBefore: 2_000_000_000,
      } as unknown as VerifiedPayment;
    },
    async settle(v, amountMicros = v.amountMicros) {
      if (opts.settleFails)
        throw new PaymentError("payment_failed", "the chain said no", {
          ...(opts.broadcast ? { reason: "settlement_pending", transaction: opts.broadcast } : {}),
        });
      if (amountMicros > v.amountMicros || (v.scheme === "exact" && amountMicros !== v.amountMicros))
        throw new RangeError(`${v.scheme} cannot settle ${amountMicros} of ${v.amountMicros}`);
      state.settled.push(amountMicros);
      return {
        header: `settled:${v.nonce}`,
        transaction: `0xtx${v.nonce}`,
        payer: v.payer,
        network: v.network,
        nonce: v.nonce,
        amountMicros,
      };
    },
    ...(opts.readsChain ? { chain: { authorization: async () => assert.fail("not asked here") } } : {}),
  };
  const claims: WalletClaims = {
    async claim(c) {
      if ([...state.claims.values()].some((x) => x.nonce === c.nonce)) return undefined;
      const id = `pay_${state.claims.size + state.recorded.length + 1}`;
      state.claims.set(id, c);
      return id;
    },
    async settled(id, transaction, amountMicros) {
      if (recordFails-- > 0) throw new Error("connect ECONNREFUSED 127.0.0.1:5432");
      state.recorded.push(transaction);
      state.recordedMicros.push(amountMicros);
      state.claims.delete(id);
    },
    async release(id) {
      state.claims.delete(id);
    },
    async unsettled(id, transaction) {
      state.unsettled.push({ id, ...(transaction ? { transaction } : {}) });
    },
  };
  return { x402, claims, state };
}

describe("wallet", () => {
  const pay = (f: ReturnType<typeof fakeWallet>, b: CallBooks, signature: string): WayOfPaying =>
    wallet(
      { x402: f.x402, claims: f.claims, books: b },
      { signature, resourceUrl: "http://api/web/v1/search" },
    );

  it("claims the nonce with its scheme and validBefore, for a sweep to ask the chain about", async () => {
    const f = fakeWallet();
    const { books: b } = books();
    const claimed: WalletPaymentClaim[] = [];
    const claim = f.claims.claim;
    f.claims.claim = async (c) => {
      claimed.push(c);
      return claim(c);
    };
    await runPaid(pay(f, b, "sig:a0:1000:upto"), call(1_000), work(400).fn);
    assert.equal(claimed[0]?.scheme, "upto");
    assert.equal(claimed[0]?.validBefore.getTime(), 2_000_000_000_000);
  });

  it("settles the whole quote once anything came out (exact scheme), and answers PAYMENT-RESPONSE", async () => {
    const f = fakeWallet();
    const { books: b, seen } = books();
    const w = work(400);
    assert.equal(await runPaid(pay(f, b, "sig:aa:1000"), call(1_000), w.fn), "done");
    assert.deepEqual(w.ran, [{ kind: "wallet", address: PAYER }]);
    assert.deepEqual(f.state.settled, [1_000]);
    assert.deepEqual(f.state.recorded, ["0xtx0xaa"]);
    assert.equal(seen.headers["PAYMENT-RESPONSE"], "settled:0xaa");
    assert.deepEqual(seen.charged, [{ payer: "wallet", micros: 1_000 }]);
    assert.deepEqual(seen.usage, [{ status: 200, priceMicros: 1_000, who: { payer: PAYER } }]);
  });

  it("upto: settles what came out, never more than the quote it was signed for", async () => {
    const f = fakeWallet();
    const { books: b, seen } = books();
    assert.equal(await runPaid(pay(f, b, "sig:a1:1000:upto"), call(1_000), work(400).fn), "done");
    assert.deepEqual(f.state.settled, [400]);
    assert.deepEqual(f.state.recordedMicros, [400], "the ledger records what moved");
    assert.deepEqual(seen.charged, [{ payer: "wallet", micros: 400 }]);
    assert.deepEqual(seen.usage, [{ status: 200, priceMicros: 400, who: { payer: PAYER } }]);
    assert.equal(seen.headers["PAYMENT-RESPONSE"], "settled:0xa1");

    await runPaid(pay(f, b, "sig:a2:1000:upto"), call(1_000), work(1_300).fn);
    assert.deepEqual(f.state.settled, [400, 1_000]);

    await runPaid(pay(f, b, "sig:a3:1000:upto"), call(1_000), work(0).fn);
    assert.deepEqual(f.state.settled, [400, 1_000], "nothing came out: nothing settled");
    assert.equal(f.state.claims.size, 0);
  });

  it("exact: the same partial outcome settles the whole quote", async () => {
    const f = fakeWallet();
    const { books: b, seen } = books();
    await runPaid(pay(f, b, "sig:a4:1000"), call(1_000), work(400).fn);
    assert.deepEqual(f.state.settled, [1_000]);
    assert.deepEqual(f.state.recordedMicros, [1_000]);
    assert.deepEqual(seen.charged, [{ payer: "wallet", micros: 1_000 }]);
  });

  it("settles nothing when nothing came out, and the same authorization may be sent again", async () => {
    const f = fakeWallet();
    const { books: b, seen } = books();
    await runPaid(pay(f, b, "sig:bb:1000"), call(1_000), work(0).fn);
    assert.deepEqual(f.state.settled, []);
    assert.equal(f.state.claims.size, 0);
    assert.equal(seen.headers["PAYMENT-RESPONSE"], undefined);
    assert.deepEqual(seen.usage, [{ status: 200, priceMicros: 0, who: { payer: PAYER } }]);
    await runPaid(pay(f, b, "sig:bb:1000"), call(1_000), work(1_000).fn);
    assert.deepEqual(f.state.settled, [1_000]);
  });

  it("settles nothing when the work throws, and releases the claim", async () => {
    const f = fakeWallet();
    const { books: b, seen } = books();
    const boom = new ApiError("render_failed", "the page did not load");
    await assert.rejects(
      runPaid(pay(f, b, "sig:cc:1000"), call(1_000), failing(boom).fn),
      (err) => err === boom,
    );
    assert.deepEqual(f.state.settled, []);
    assert.equal(f.state.claims.size, 0);
    assert.deepEqual(seen.usage, [{ status: boom.status, priceMicros: 0, who: { payer: PAYER } }]);
  });

  it("a replayed authorization never runs the work twice: payment_replayed with a fresh quote", async () => {
    const f = fakeWallet();
    const { books: b } = books();
    await runPaid(pay(f, b, "sig:dd:1000"), call(1_000), work(1_000).fn);
    await runPaid(pay(f, b, "sig:ee:1000"), call(1_000), work(1_000).fn);
    // "dd" settled and recorded; a claim still pending (a call in flight) refuses a replay too
    f.state.claims.set("pay_busy", { nonce: "0xff" } as WalletPaymentClaim);
    const w = work(1_000);
    await assert.rejects(
      runPaid(pay(f, b, "sig:ff:1000"), call(1_000), w.fn),
      (err) =>
        err instanceof ApiError &&
        err.code === "payment_replayed" &&
        err.headers?.["PAYMENT-REQUIRED"] === "quote:1000",
    );
    assert.equal(w.ran.length, 0);
    assert.deepEqual(f.state.settled, [1_000, 1_000]);
  });

  it("a signature that does not verify is refused before any work, with the quote to pay again", async () => {
    const f = fakeWallet();
    const { books: b, seen } = books();
    const w = work(1_000);
    await assert.rejects(
      runPaid(pay(f, b, "sig:gg:999"), call(1_000), w.fn),
      (err) =>
        err instanceof ApiError &&
        err.code === "payment_invalid" &&
        err.headers?.["PAYMENT-REQUIRED"] === "quote:1000" &&
        err.extra?.price?.micros === 1_000,
    );
    assert.equal(w.ran.length, 0);
    assert.deepEqual(seen.usage, []);
  });

  it("a settlement that fails is payment_failed, charges nothing and releases the claim", async () => {
    const f = fakeWallet({ settleFails: true });
    const { books: b, seen } = books();
    await rejectsWith(runPaid(pay(f, b, "sig:hh:1000"), call(1_000), work(1_000).fn), "payment_failed");
    assert.equal(f.state.claims.size, 0);
    assert.deepEqual(f.state.unsettled, []);
    assert.deepEqual(seen.charged, []);
    assert.equal(seen.headers["PAYMENT-RESPONSE"], undefined);
    assert.deepEqual(seen.usage, [{ status: 402, priceMicros: 0, who: { payer: PAYER } }]);
  });

  it("a failed settlement whose transaction was broadcast keeps its claim, with the transaction", async () => {
    const f = fakeWallet({ settleFails: true, broadcast: "0xpending" });
    const { books: b, seen } = books();
    await rejectsWith(runPaid(pay(f, b, "sig:hi:1000"), call(1_000), work(1_000).fn), "payment_failed");
    assert.equal(f.state.claims.size, 1, "the outcome is unknown: the claim is not dropped");
    assert.deepEqual(f.state.unsettled, [{ id: "pay_1", transaction: "0xpending" }]);
    assert.deepEqual(seen.charged, []);
  });

  it("where the chain can be asked, any failed settlement keeps its claim for the stale-claim sweep", async () => {
    const f = fakeWallet({ settleFails: true, readsChain: true });
    const { books: b } = books();
    await rejectsWith(runPaid(pay(f, b, "sig:hj:1000"), call(1_000), work(1_000).fn), "payment_failed");
    assert.equal(f.state.claims.size, 1);
    assert.deepEqual(f.state.unsettled, [{ id: "pay_1" }]);
  });

  it("settled on chain but not recorded (PostgreSQL down): the caller is answered as paid, the claim stays pending", async () => {
    const f = fakeWallet({ recordFails: 1, readsChain: true });
    const { books: b, seen } = books();
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      assert.equal(await runPaid(pay(f, b, "sig:hk:1000"), call(1_000), work(1_000).fn), "done");
    } finally {
      console.error = original;
    }
    assert.deepEqual(f.state.settled, [1_000], "the money moved");
    assert.deepEqual(f.state.recorded, []);
    assert.equal(f.state.claims.size, 1, "never released once settled: the sweep records it");
    assert.deepEqual(f.state.unsettled, []);
    assert.equal(seen.headers["PAYMENT-RESPONSE"], "settled:0xhk");
    assert.deepEqual(seen.charged, [{ payer: "wallet", micros: 1_000 }]);
    assert.deepEqual(seen.usage, [{ status: 200, priceMicros: 1_000, who: { payer: PAYER } }]);
    assert.match(String(errors[0]), /settled in 0xtx0xhk but not recorded/);
  });
});

describe("payFor", () => {
  /** payFor's dependencies as fakes; `db` is never reached by these callers. */
  function deps(opts: { wallets?: boolean; balance?: number } = {}) {
    const l = fakeLeases(opts.balance ?? 1_000);
    const a = fakeAllowance();
    const f = fakeWallet();
    const rows: { route: string; status: number; priceMicros: number; accountId?: string }[] = [];
    const counter = () => ({ inc: () => {} }) as never;
    return {
      l,
      a,
      rows,
      d: {
        db: { db: undefined as never },
        leases: l.leases,
        allowance: a.counters,
        x402: opts.wallets ? f.x402 : undefined,
        usage: { record: (u: (typeof rows)[number]) => void rows.push(u) },
        metrics: { charged: counter(), refunded: counter() },
      },
    };
  }
  const caller = (over: Record<string, unknown> = {}) => {
    const headers: Record<string, string> = {};
    return {
      headers,
      c: {
        requestId: "req_9",
        resourceUrl: "http://api/web/v1/search",
        baseUrl: "http://api",
        setHeader: (n: string, v: string) => {
          headers[n] = v;
        },
        ...over,
      },
    };
  };
  const paid = (micros: number, over: Record<string, unknown> = {}, w = work(micros)) => ({
    allowance: allowanceOf("search"),
    request: {},
    quote: quote(micros),
    description: "search",
    holdMs: 60_000,
    work: w.fn,
    ...over,
  });

  it("a keyed call with a final price is charged from the lease", async () => {
    const { d, l, rows } = deps();
    const { c, headers } = caller({ auth: { keyId: "k", accountId: "acct_1" } });
    assert.equal(await payFor(d, c, paid(200, { final: true })), "done");
    assert.equal(l.state.balance, 800);
    assert.equal(headers["X-Charged-Usd"], "$0.0002");
    assert.deepEqual(
      rows.map(({ route, status, priceMicros, accountId }) => ({ route, status, priceMicros, accountId })),
      [{ route: "search", status: 200, priceMicros: 200, accountId: "acct_1" }],
    );
  });

  it("a keyless MCP caller spends the allowance", async () => {
    const { d, a } = deps({ wallets: true });
    const { c } = caller({ allowanceClient: "198.51.100.1" });
    assert.equal(await payFor(d, c, paid(7_000)), "done");
    assert.equal(a.used.get("search:ever"), 1);
  });

  it("unpaid calls get the 402 quote and nothing runs", async () => {
    const w = work(1_000);
    const noWallets = deps();
    await assert.rejects(payFor(noWallets.d, caller().c, paid(1_000, {}, w)), (err) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.code, "payment_required");
      assert.deepEqual(err.extra?.payWith, ["api_key"]);
      assert.equal(err.extra?.price?.micros, 1_000);
      assert.equal(err.headers?.["PAYMENT-REQUIRED"], undefined);
      return true;
    });
    const wallets = deps({ wallets: true });
    await assert.rejects(payFor(wallets.d, caller().c, paid(1_000, {}, w)), (err) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.code, "payment_required");
      assert.deepEqual(err.extra?.payWith, ["api_key", "x402"]);
      assert.equal(err.headers?.["PAYMENT-REQUIRED"], "quote:1000");
      return true;
    });
    await assert.rejects(
      payFor(
        wallets.d,
        caller({ paymentSignature: "sig:aa:1000" }).c,
        paid(1_000, { keyOnly: "crawl needs an API key" }, w),
      ),
      (err) => err instanceof ApiError && err.code === "payment_required" && err.headers === undefined,
    );
    assert.equal(w.ran.length, 0);
    assert.equal(noWallets.rows.length + wallets.rows.length, 0);
  });
});
