import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { schema } from "@browserfleet/db";
import { eq, sql } from "drizzle-orm";
import { startTestPostgres, type TestPostgres } from "../../../test/helpers/postgres.ts";
import { waitFor } from "../../../test/helpers/wait-for.ts";
import {
  BalanceLeases,
  captureFromHold,
  claimWalletPayment,
  createAccount,
  findKey,
  getAccount,
  issueKey,
  keepUnsettledWalletPayment,
  pendingWalletClaims,
  placeHold,
  reapExpiredHolds,
  recordWalletSettlement,
  releaseWalletPayment,
  revokeKey,
  settleHold,
  settleHoldWith,
  type Tx,
  topUp,
  transactions,
} from "../src/index.ts";

let pg: TestPostgres;
before(async () => {
  pg = await startTestPostgres();
});
after(async () => {
  await pg?.stop();
});

const db = () => pg.database.db;

async function ledgerSum(accountId: string) {
  const [row] = await db()
    .select({
      amount: sql<string>`coalesce(sum(${schema.ledgerEntries.amountMicros}), 0)`,
      held: sql<string>`coalesce(sum(${schema.ledgerEntries.heldMicros}), 0)`,
    })
    .from(schema.ledgerEntries)
    .where(eq(schema.ledgerEntries.accountId, accountId));
  return { amount: Number(row?.amount), held: Number(row?.held) };
}

/**
 * Every 3,000-micro hold of an account that started with 50,000 is closed with all of it either
 * captured or refunded, and the balance and the ledger agree with what was captured (the balance left).
 */
async function assertEverySettledOnce(accountId: string) {
  const holds = await pg.database
    .sql`select id, captured_micros, refunded_micros, status from holds where account_id = ${accountId}`;
  let captured = 0;
  for (const h of holds) {
    assert.equal(h.status, "closed");
    assert.equal(Number(h.captured_micros) + Number(h.refunded_micros), 3_000);
    captured += Number(h.captured_micros);
  }
  const left = (await getAccount(db(), accountId))?.balanceMicros;
  assert.equal(left, 50_000 - captured);
  assert.deepEqual(await ledgerSum(accountId), { amount: left, held: 0 });
  return { holds, left: left ?? 0 };
}

test("a key is shown once and only its hash is stored; revoked keys are told apart from unknown ones", async () => {
  const { accountId } = await createAccount(db(), { name: "keys" });
  const issued = await issueKey(db(), accountId, "ci");
  assert.match(issued.key, /^bf_live_[0-9A-Za-z]{32}$/);
  const stored = await pg.database.sql`select * from api_keys where id = ${issued.keyId}`;
  assert.equal(JSON.stringify(stored).includes(issued.key), false, "the key must not be stored");
  assert.deepEqual(await findKey(db(), issued.key), {
    status: "ok",
    keyId: issued.keyId,
    accountId,
    prefix: issued.prefix,
  });
  // Another last character (a fixed "x" was the same key whenever the key ended in x).
  const other = issued.key.endsWith("x") ? "y" : "x";
  assert.equal((await findKey(db(), `${issued.key.slice(0, -1)}${other}`)).status, "unknown");
  assert.equal(await revokeKey(db(), issued.keyId), true);
  assert.equal(await revokeKey(db(), issued.keyId), false);
  assert.equal((await findKey(db(), issued.key)).status, "revoked");
});

test("hold, capture part, refund the rest: the balance and the ledger agree", async () => {
  const { accountId } = await createAccount(db(), { balanceMicros: 10_000 });
  const hold = await placeHold(db(), { accountId, micros: 3_000, route: "scrape", ttlMs: 60_000 });
  assert.ok(hold.ok);
  assert.equal(hold.balanceMicros, 7_000);
  const s = await settleHold(db(), hold.holdId, 2_000);
  assert.deepEqual(s, { capturedMicros: 2_000, refundedMicros: 1_000 });
  assert.equal(await settleHold(db(), hold.holdId, 3_000), undefined, "a second settle changes nothing");
  assert.equal((await getAccount(db(), accountId))?.balanceMicros, 8_000);
  assert.deepEqual(await ledgerSum(accountId), { amount: 8_000, held: 0 });
  const kinds = (await transactions(db(), accountId, { limit: 10 })).entries.map((e) => e.kind);
  assert.deepEqual(kinds, ["refund", "capture", "hold", "topup"]);
});

test("a failed call is refunded in full, and a capture never exceeds its hold", async () => {
  const { accountId } = await createAccount(db(), { balanceMicros: 5_000 });
  const h1 = await placeHold(db(), { accountId, micros: 5_000, route: "scrape", ttlMs: 60_000 });
  assert.ok(h1.ok);
  await settleHold(db(), h1.holdId, 0);
  assert.equal((await getAccount(db(), accountId))?.balanceMicros, 5_000);
  const h2 = await placeHold(db(), { accountId, micros: 1_000, route: "crawl", ttlMs: 60_000 });
  assert.ok(h2.ok);
  assert.equal(await captureFromHold(db(), h2.holdId, 600), 600);
  assert.equal(await captureFromHold(db(), h2.holdId, 600), 400, "only what is left of the hold");
  assert.deepEqual(await settleHold(db(), h2.holdId, 0), { capturedMicros: 1_000, refundedMicros: 0 });
  assert.equal((await getAccount(db(), accountId))?.balanceMicros, 4_000);
});

test("200 concurrent holds on a balance that covers 37 of them: exactly 37 succeed, never below zero", async () => {
  const { accountId } = await createAccount(db(), { balanceMicros: 37_000 + 500 });
  const results = await Promise.all(
    Array.from({ length: 200 }, () =>
      placeHold(db(), { accountId, micros: 1_000, route: "scrape", ttlMs: 60_000 }),
    ),
  );
  const won = results.filter((r) => r.ok);
  assert.equal(won.length, 37);
  await Promise.all(won.map((r) => r.ok && settleHold(db(), r.holdId, 1_000)));
  assert.equal((await getAccount(db(), accountId))?.balanceMicros, 500);
  assert.deepEqual(await ledgerSum(accountId), { amount: 500, held: 0 });
});

test("balance leases: 150 concurrent final charges on one replica get exactly what the balance covers, one ledger row each", async () => {
  const { accountId } = await createAccount(db(), { balanceMicros: 30_000 });
  const leases = new BalanceLeases(db(), { leaseMicros: 4_000, leaseMs: 60_000, flushMs: 20 });
  // 1000 or 200 micros, shuffled: no call is refused while the balance still covers it.
  const prices = Array.from({ length: 150 }, (_, i) => (i % 3 === 0 ? 1_000 : 200));
  const results = await Promise.all(
    prices.map((micros, i) => leases.charge({ accountId, micros, route: "scrape", requestId: `r${i}` })),
  );
  const granted = prices.filter((_, i) => results[i]?.ok).reduce((a, b) => a + b, 0);
  for (const [i, r] of results.entries())
    if (!r.ok) assert.ok(r.balanceMicros < (prices[i] as number), "refused while the balance covered it");
  await leases.close();
  const left = (await getAccount(db(), accountId))?.balanceMicros ?? -1;
  assert.equal(left, 30_000 - granted);
  assert.ok(left < 200, `${left} micros left unspent`);
  assert.deepEqual(await ledgerSum(accountId), { amount: left, held: 0 });
  const rows = await pg.database
    .sql`select count(*)::int as n from ledger_entries where account_id = ${accountId} and kind = 'capture'`;
  assert.equal(rows[0]?.n, results.filter((r) => r.ok).length);
  const captures = await pg.database.sql<{ request_id: string; route: string; held: string }[]>`
    select request_id, route, held_micros::text as held from ledger_entries
    where account_id = ${accountId} and kind = 'capture'`;
  assert.deepEqual(
    captures.map((c) => `${c.route} ${c.request_id} ${c.held}`).sort(),
    prices
      .map((micros, i) => (results[i]?.ok ? `scrape r${i} ${-micros}` : undefined))
      .filter((row) => row !== undefined)
      .sort(),
    "each charged call is its own row: its route, its request id and what it cost",
  );
});

test("balance leases on two replicas never overspend, and a refunded call is not charged", async () => {
  const { accountId } = await createAccount(db(), { balanceMicros: 20_000 });
  const opts = { leaseMicros: 5_000, leaseMs: 50, flushMs: 10 };
  const replicas = [new BalanceLeases(db(), opts), new BalanceLeases(db(), opts)];
  const results = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      (replicas[i % 2] as BalanceLeases).charge({
        accountId,
        micros: 200,
        route: "scrape",
        requestId: `r${i}`,
      }),
    ),
  );
  const ok = results.filter((r) => r.ok).length;
  assert.ok(ok <= 100);
  const first = results[0];
  if (first?.ok) await first.refund();
  await Promise.all(replicas.map((r) => r.close()));
  const left = (await getAccount(db(), accountId))?.balanceMicros ?? -1;
  assert.equal(left, 20_000 - (ok - (first?.ok ? 1 : 0)) * 200);
  assert.deepEqual(await ledgerSum(accountId), { amount: left, held: 0 });
});

const bump = (counter: string, by: number) => (tx: Tx) =>
  tx.execute(
    sql`update ${schema.accounts} set balance_micros = balance_micros + ${by} where id = ${counter}`,
  );
const holdOf = async (accountId: string) =>
  pg.database
    .sql`select status, captured_micros from holds where account_id = ${accountId} and route = 'lease'`;

test("lease reservations settle at what came out: one row per charged call, writes alongside in its batch, a release writes nothing", async () => {
  const { accountId } = await createAccount(db(), { balanceMicros: 100_000 });
  const { accountId: counter } = await createAccount(db(), { balanceMicros: 0 });
  const leases = new BalanceLeases(db(), { leaseMicros: 20_000, leaseMs: 60_000, flushMs: 10_000 });
  const reserve = async (requestId: string) => {
    const r = await leases.reserve({ accountId, micros: 3_000, route: "act", requestId });
    assert.ok(r.ok);
    return r.reservation;
  };
  const [a, b, c, d] = await Promise.all(["a", "b", "c", "d"].map(reserve));
  a?.settle(1_000, bump(counter, 1));
  b?.settle(0, bump(counter, 10));
  c?.release();
  d?.settle(9_000, bump(counter, 100));
  d?.settle(3_000);
  c?.settle(3_000);
  await leases.flush(accountId);
  const rows = await pg.database.sql`
    select request_id, -held_micros as micros from ledger_entries
    where account_id = ${accountId} and kind = 'capture' order by request_id`;
  assert.deepEqual(
    rows.map((r) => [r.request_id, Number(r.micros)]),
    [
      ["a", 1_000],
      ["d", 3_000],
    ],
    "a settles at what came out, never past its quote; b charged nothing; c released; each settles once",
  );
  assert.equal(
    (await getAccount(db(), counter))?.balanceMicros,
    111,
    "every settled call's write, once each",
  );
  await leases.close();
  assert.equal((await getAccount(db(), accountId))?.balanceMicros, 100_000 - 4_000);
  assert.deepEqual(await ledgerSum(accountId), { amount: 96_000, held: 0 });
});

test("a lease past its time with a reservation in flight is retired, not given back, until that reservation settles", async () => {
  const { accountId } = await createAccount(db(), { balanceMicros: 100_000 });
  const leases = new BalanceLeases(db(), { leaseMicros: 10_000, leaseMs: 30, flushMs: 10 });
  const r = await leases.reserve({ accountId, micros: 3_000, route: "act", requestId: "slow" });
  assert.ok(r.ok);
  // Retiring a lease gives back at once what its running calls did not set aside.
  const held = async () => {
    const [row] = await pg.database.sql`
      select amount_micros - captured_micros - refunded_micros as held from holds where account_id = ${accountId}`;
    return Number(row?.held);
  };
  await waitFor("the lease past its time to be retired", async () => (await held()) === 3_000, 5_000, 10);
  const [open] = await holdOf(accountId);
  assert.equal(open?.status, "open", "still open with its call in flight");
  assert.equal(await held(), 3_000, "holding only what the running call set aside");
  // Calls that come meanwhile take a new lease.
  assert.ok((await leases.charge({ accountId, micros: 500, route: "scrape", requestId: "x" })).ok);
  r.reservation.settle(2_000);
  await waitFor(
    "both leases' holds to close",
    async () => (await holdOf(accountId)).every((h) => h.status !== "open"),
    5_000,
    10,
  );
  await leases.close();
  const holds = await holdOf(accountId);
  assert.deepEqual(holds.map((h) => [h.status, Number(h.captured_micros)]).sort(), [
    ["closed", 2_000],
    ["closed", 500],
  ]);
  assert.equal((await getAccount(db(), accountId))?.balanceMicros, 100_000 - 2_500);
  assert.deepEqual(await ledgerSum(accountId), { amount: 97_500, held: 0 });
});

test("a busy key never waits for the database: the next lease is taken while the low one still serves", async () => {
  const { accountId } = await createAccount(db(), { balanceMicros: 1_000_000 });
  const leases = new BalanceLeases(db(), { leaseMicros: 10_000, leaseMs: 60_000, flushMs: 60_000 });
  const charge = (i: number) =>
    leases.charge({ accountId, micros: 500, route: "scrape", requestId: `r${i}` });
  // 16 calls of a 20-call lease leave less than a quarter: the next one is taken then, in the background.
  for (let i = 0; i < 16; i++) assert.ok((await charge(i)).ok);
  await waitFor("the next lease", async () => (await holdOf(accountId)).length === 2, 5_000, 10);
  // With the account's row locked, a call that needed a lease now would wait until it is unlocked.
  let unlock = () => {};
  const unlocked = new Promise<void>((r) => (unlock = r));
  let locked = () => {};
  const isLocked = new Promise<void>((r) => (locked = r));
  const lock = pg.database.sql.begin(async (tx) => {
    await tx`select 1 from accounts where id = ${accountId} for update`;
    locked();
    await unlocked;
  });
  await isLocked;
  const calls = Promise.all(Array.from({ length: 15 }, (_, i) => charge(100 + i)));
  const served = await Promise.race([
    calls.then((rs) => rs.every((r) => r.ok)),
    new Promise((r) => setTimeout(() => r("the calls waited for the locked account row"), 5_000).unref()),
  ]);
  unlock();
  await lock;
  assert.equal(served, true);
  await leases.close();
  assert.equal((await getAccount(db(), accountId))?.balanceMicros, 1_000_000 - 31 * 500);
  assert.deepEqual(await ledgerSum(accountId), { amount: 1_000_000 - 31 * 500, held: 0 });
  assert.ok((await holdOf(accountId)).every((h) => h.status === "closed"));
});

test("a lease's hold outlives its longest reservation; a reservation settled after shutdown is not charged", async () => {
  const { accountId } = await createAccount(db(), { balanceMicros: 100_000 });
  const leases = new BalanceLeases(db(), {
    leaseMicros: 10_000,
    leaseMs: 5_000,
    flushMs: 10_000,
    maxReservationMs: 135_000,
  });
  const r = await leases.reserve({ accountId, micros: 3_000, route: "act", requestId: "late" });
  assert.ok(r.ok);
  const [hold] = await pg.database.sql`
    select extract(epoch from expires_at - created_at)::int as ttl from holds
    where account_id = ${accountId} and route = 'lease'`;
  assert.ok(Number(hold?.ttl) >= 5 + 135, `the reaper would take the hold after ${hold?.ttl} s`);
  await leases.close();
  r.reservation.settle(3_000);
  await leases.flush(accountId);
  assert.equal((await getAccount(db(), accountId))?.balanceMicros, 100_000);
  assert.deepEqual(await ledgerSum(accountId), { amount: 100_000, held: 0 });
});

test("a retired lease gives back at once what no running call set aside, and the rest when they settle", async () => {
  const { accountId } = await createAccount(db(), { balanceMicros: 3_000 });
  const leases = new BalanceLeases(db(), { leaseMicros: 10_000, leaseMs: 60_000, flushMs: 10 });
  // Takes 1,000 + half the 2,000 beyond it.
  const first = await leases.reserve({ accountId, micros: 1_000, route: "act", requestId: "first" });
  assert.ok(first.ok);
  // Does not fit what is left of that lease, nor the 1,000 outside it: the first lease is retired, its
  // unreserved 1,000 given back, and a new lease covers the call.
  const second = await leases.reserve({ accountId, micros: 2_000, route: "act", requestId: "second" });
  assert.ok(second.ok, "the balance covers both calls, as two ledger holds would");
  second.reservation.settle(2_000);
  first.reservation.settle(500);
  await leases.flush(accountId);
  const third = await leases.reserve({ accountId, micros: 1_000, route: "act", requestId: "third" });
  assert.deepEqual(third, { ok: false, balanceMicros: 500 });
  await leases.close();
  assert.equal((await getAccount(db(), accountId))?.balanceMicros, 500);
  assert.deepEqual(await ledgerSum(accountId), { amount: 500, held: 0 });
  const holds = await pg.database.sql`select status from holds where account_id = ${accountId}`;
  assert.ok(holds.every((h) => h.status === "closed"));
});

test("a refund gives back its own call, never another of the same request id and price", async () => {
  const { accountId } = await createAccount(db(), { balanceMicros: 10_000 });
  const leases = new BalanceLeases(db(), { leaseMicros: 5_000, leaseMs: 60_000, flushMs: 60_000 });
  const call = { accountId, micros: 300, route: "scrape", requestId: "same" };
  const a = await leases.charge(call);
  const b = await leases.charge(call);
  assert.ok(a.ok && b.ok);
  await a.refund();
  await a.refund();
  await leases.flush(accountId);
  // Written already: the ledger gives it back.
  await b.refund();
  await leases.close();
  assert.equal((await getAccount(db(), accountId))?.balanceMicros, 10_000);
  assert.deepEqual(await ledgerSum(accountId), { amount: 10_000, held: 0 });
});

test("a hold settled by several callers at once (a retry, the reaper, page captures racing) settles once, exactly", async () => {
  const { accountId } = await createAccount(db(), { balanceMicros: 50_000 });
  const settles: Array<Promise<unknown>> = [];
  for (let i = 0; i < 10; i++) {
    const hold = await placeHold(db(), { accountId, micros: 3_000, route: "act", ttlMs: 60_000 });
    assert.ok(hold.ok);
    // Two captures of 500 race three settles asking 2_000, 1_000 and 0: one settle wins, on what the
    // captures that came before it left.
    settles.push(
      captureFromHold(db(), hold.holdId, 500),
      settleHold(db(), hold.holdId, 2_000),
      settleHold(db(), hold.holdId, 1_000),
      captureFromHold(db(), hold.holdId, 500),
      settleHold(db(), hold.holdId, 0, "the call failed"),
    );
  }
  await Promise.all(settles);
  const { holds } = await assertEverySettledOnce(accountId);
  const entries = await pg.database.sql`
    select hold_id, count(*) filter (where kind = 'refund')::int as refunds,
      coalesce(-sum(held_micros) filter (where kind = 'capture'), 0)::int as captured
    from ledger_entries where account_id = ${accountId} group by hold_id`;
  assert.equal(entries.filter((x) => x.hold_id !== null).length, 10);
  for (const e of entries.filter((x) => x.hold_id !== null)) {
    assert.ok(e.refunds <= 1, "a hold is refunded at most once");
    const h = holds.find((x) => x.id === e.hold_id);
    assert.equal(e.captured, Number(h?.captured_micros), "the capture rows add up to what the hold captured");
  }
});

// A write that rides on a settlement: here, a count kept in another account's balance.
const tally = settleHoldWith<{ tally: string; by: number }>(sql`
  update ${schema.accounts} set balance_micros = balance_micros + ${sql.placeholder("by")}::bigint
  where id = ${sql.placeholder("tally")}`);

test("a settlement with a write alongside: settled racing as settleHold is, the write made by every call, and a failing write leaves the hold open with nothing written", async () => {
  const { accountId } = await createAccount(db(), { balanceMicros: 50_000 });
  const { accountId: counter } = await createAccount(db(), { balanceMicros: 1 });
  const holdIds: string[] = [];
  const settles: Array<Promise<unknown>> = [];
  for (let i = 0; i < 10; i++) {
    const hold = await placeHold(db(), { accountId, micros: 3_000, route: "act", ttlMs: 60_000 });
    assert.ok(hold.ok);
    holdIds.push(hold.holdId);
    // Three settles with the write race a plain settle and the reaper's: one settles, each writes.
    settles.push(
      tally(db(), hold.holdId, 2_000, { tally: counter, by: 1 }),
      settleHold(db(), hold.holdId, 1_000),
      tally(db(), hold.holdId, 500, { tally: counter, by: 1 }),
      settleHold(db(), hold.holdId, 0, "expired: the call did not finish"),
      tally(db(), hold.holdId, 3_000, { tally: counter, by: 1 }),
    );
  }
  const settled = await Promise.all(settles);
  assert.equal(settled.filter((s) => s !== undefined).length, 10, "each hold settles once");
  assert.equal((await getAccount(db(), counter))?.balanceMicros, 1 + 30, "every call made its write");
  const { left } = await assertEverySettledOnce(accountId);

  // The write fails (it would take the counter below zero): the settlement is not made either.
  const hold = await placeHold(db(), { accountId, micros: 3_000, route: "act", ttlMs: 60_000 });
  assert.ok(hold.ok);
  await assert.rejects(tally(db(), hold.holdId, 1_000, { tally: counter, by: -1_000 }));
  const [open] = await pg.database
    .sql`select captured_micros, refunded_micros, status from holds where id = ${hold.holdId}`;
  assert.deepEqual(
    [open?.status, Number(open?.captured_micros), Number(open?.refunded_micros)],
    ["open", 0, 0],
  );
  assert.equal((await getAccount(db(), accountId))?.balanceMicros, left - 3_000);
  assert.deepEqual(await ledgerSum(accountId), { amount: left - 3_000, held: 3_000 });
  // Settled again with a write that holds, it captures what ran and refunds the rest.
  assert.deepEqual(await tally(db(), hold.holdId, 1_000, { tally: counter, by: 1 }), {
    capturedMicros: 1_000,
    refundedMicros: 2_000,
  });
  assert.deepEqual(await ledgerSum(accountId), { amount: left - 1_000, held: 0 });
});

test("a refused hold writes nothing and names the balance", async () => {
  const { accountId } = await createAccount(db(), { balanceMicros: 900 });
  const hold = await placeHold(db(), { accountId, micros: 1_000, route: "act", ttlMs: 60_000 });
  assert.deepEqual(hold, { ok: false, balanceMicros: 900 });
  const rows = await pg.database.sql`select count(*)::int as n from holds where account_id = ${accountId}`;
  assert.equal(rows[0]?.n, 0);
  assert.deepEqual(await ledgerSum(accountId), { amount: 900, held: 0 });
});

test("the reaper refunds holds whose call died, and only those", async () => {
  const { accountId } = await createAccount(db(), { balanceMicros: 10_000 });
  const dead = await placeHold(db(), { accountId, micros: 4_000, route: "scrape", ttlMs: 1 });
  const live = await placeHold(db(), { accountId, micros: 1_000, route: "scrape", ttlMs: 60_000 });
  assert.ok(dead.ok && live.ok);
  // The reaper is asked as of a second from now: the 1 ms hold has expired by then, the 60 s one not.
  assert.ok((await reapExpiredHolds(db(), new Date(Date.now() + 1_000))) >= 1);
  assert.equal((await getAccount(db(), accountId))?.balanceMicros, 9_000);
  assert.equal(
    await settleHold(db(), dead.holdId, 4_000),
    undefined,
    "a late capture of a reaped hold is ignored",
  );
});

test("top-ups must be positive", async () => {
  const { accountId } = await createAccount(db());
  await assert.rejects(topUp(db(), accountId, 0), /positive/);
  assert.equal(await topUp(db(), accountId, 2_500_000), 2_500_000);
});

test("a wallet payment nonce can be claimed once; a released claim can be claimed again, a settled one never", async () => {
  const claim = {
    network: "eip155:8453",
    asset: "0xabc",
    nonce: "0x01",
    payer: "0xp",
    amountMicros: 1_000,
    route: "scrape",
    scheme: "exact" as const,
    validBefore: new Date(Date.now() + 300_000),
  };
  const first = await claimWalletPayment(db(), claim);
  assert.ok(first);
  assert.equal(await claimWalletPayment(db(), claim), undefined);
  await releaseWalletPayment(db(), first);
  const again = await claimWalletPayment(db(), claim);
  assert.ok(again);
  assert.equal(await recordWalletSettlement(db(), again, "0xtx"), true);
  assert.equal(await recordWalletSettlement(db(), again, "0xtx"), false, "recorded once");
  await releaseWalletPayment(db(), again);
  assert.equal(await claimWalletPayment(db(), claim), undefined);
  const rows = await pg.database
    .sql`select * from ledger_entries where kind = 'wallet_payment' and reference = '0xtx'`;
  assert.equal(rows.length, 1);
  assert.equal(Number(rows[0]?.amount_micros), 1_000);
});

test("a claim left pending is listed for the sweep with its scheme, validBefore and broadcast transaction; recorded from the chain, its ledger row says so", async () => {
  const validBefore = new Date(Math.floor(Date.now() / 1000) * 1000 + 300_000);
  const id = await claimWalletPayment(db(), {
    network: "eip155:8453",
    asset: "0xabc",
    nonce: "0x02",
    payer: "0xp",
    amountMicros: 2_000,
    route: "scrape",
    scheme: "upto",
    validBefore,
  });
  assert.ok(id);
  await keepUnsettledWalletPayment(db(), id, "0xbroadcast");
  assert.equal(
    (await pendingWalletClaims(db(), 60_000)).length,
    0,
    "a claim younger than the age is not stale",
  );
  const [stale] = (await pendingWalletClaims(db(), -1_000)).filter((c) => c.id === id);
  assert.equal(stale?.scheme, "upto");
  assert.equal(stale?.validBefore?.getTime(), validBefore.getTime());
  assert.equal(stale?.transaction, "0xbroadcast");
  assert.equal(stale?.amountMicros, 2_000);

  assert.equal(await recordWalletSettlement(db(), id, "0xlanded", 1_500, { recovered: true }), true);
  assert.equal((await pendingWalletClaims(db(), -1_000)).filter((c) => c.id === id).length, 0);
  const rows = await pg.database
    .sql`select amount_micros, note from ledger_entries where kind = 'wallet_payment' and reference = '0xlanded'`;
  assert.deepEqual(
    rows.map((r) => [Number(r.amount_micros), r.note]),
    [[1_500, "nonce 0x02 (recovered from the chain)"]],
  );
});

test("a busy key's leases grow with its rate: far fewer holds than fixed-size leases, and still exact", async () => {
  const holdsFor = async (maxLeaseMicros: number) => {
    const { accountId } = await createAccount(db(), { balanceMicros: 10_000_000 });
    const leases = new BalanceLeases(db(), {
      leaseMicros: 5_000,
      maxLeaseMicros,
      leaseMs: 60_000,
      flushMs: 20,
    });
    // 1,500 calls of 400 micros, 50 at a time: 600,000 micros.
    for (let i = 0; i < 30; i++) {
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, j) =>
          leases.charge({ accountId, micros: 400, route: "scrape", requestId: `r${i}-${j}` }),
        ),
      );
      assert.ok(results.every((r) => r.ok));
    }
    await leases.close();
    assert.equal((await getAccount(db(), accountId))?.balanceMicros, 10_000_000 - 600_000);
    assert.deepEqual(await ledgerSum(accountId), { amount: 9_400_000, held: 0 });
    return (await holdOf(accountId)).length;
  };
  const fixed = await holdsFor(5_000);
  const growing = await holdsFor(1_000_000);
  // Fixed: one hold per 12 calls or so (about 120); growing: 5,000 then 20,000, 80,000, 320,000, ...
  assert.ok(fixed >= 100, `${fixed} fixed-size leases`);
  assert.ok(growing <= 10, `${growing} growing leases`);
});
