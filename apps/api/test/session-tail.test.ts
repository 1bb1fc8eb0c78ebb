import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { accountBalance, createAccount, placeHold } from "@browserfleet/billing";
import { startTestPostgres, type TestPostgres } from "../../../test/helpers/postgres.ts";
import {
  chargeEndedTails,
  claimMinutes,
  endSession,
  expireOverdueSessions,
  findSession,
  insertSession,
  unclaimMinutes,
} from "../src/sessions/store.ts";
import { billedUntil } from "../src/sessions/tail-rules.ts";

const T0 = new Date("2026-11-22T12:00:00Z");
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

describe("billedUntil: until when an ended session's minutes are billed", () => {
  const base = { openedAt: T0, lastActiveAt: at(90), expiresAt: at(390) };
  it("a closed session until it closed", () => {
    assert.deepEqual(billedUntil({ ...base, status: "closed", closedAt: at(200) }), at(200));
  });
  it("never past when it would have expired by itself (an end recorded late)", () => {
    assert.deepEqual(billedUntil({ ...base, status: "expired", closedAt: at(900) }), at(390));
  });
  it("a lost session until its last act: its browser may have died any time after", () => {
    assert.deepEqual(billedUntil({ ...base, status: "lost", closedAt: at(900) }), at(90));
    assert.deepEqual(billedUntil({ ...base, lastActiveAt: null, status: "lost", closedAt: at(900) }), T0);
  });
});

let pg: TestPostgres;
before(async () => {
  pg = await startTestPostgres();
});
after(async () => {
  await pg?.stop();
});

const TAIL = 28_000;
let n = 0;

/** A key-paid session opened `ageSeconds` ago with its tail hold, as the open route leaves it. */
async function openedSession(ageSeconds: number, start = 1_000_000) {
  const db = pg.database.db;
  const { accountId } = await createAccount(db, { balanceMicros: start });
  const hold = await placeHold(db, { accountId, micros: TAIL, route: "session", ttlMs: 3_600_000 });
  assert.ok(hold.ok);
  const id = `ses_tailtest${String(++n).padStart(8, "0")}`;
  const openedAt = new Date(Date.now() - ageSeconds * 1000);
  await insertSession(db, {
    id,
    owner: { accountId },
    workerId: "w",
    url: null,
    openedAt,
    expiresAt: new Date(Date.now() + 300_000),
    chargedMicros: 5_000,
    tailHoldId: hold.holdId,
  });
  const balance = async () => (await accountBalance(db, accountId))?.balanceMicros;
  const ledgerSum = async () =>
    Number(
      (
        await pg.database.sql<{ s: string }[]>`
          select coalesce(sum(amount_micros), 0) as s from ledger_entries where account_id = ${accountId}`
      )[0]?.s,
    );
  return { id, accountId, balance, ledgerSum, start };
}

describe("a key-paid session's idle tail", () => {
  it("is charged when the session closes: the minutes after its last act, and the rest goes back", async () => {
    const s = await openedSession(150);
    assert.equal(await s.balance(), s.start - TAIL);
    const done = await endSession(pg.database.db, s.id, "closed");
    assert.equal(done?.changed, true);
    // 150 s open: minutes 2 and 3 were not billed yet
    assert.equal(done?.row.billedMinutes, 3);
    assert.equal(done?.row.chargedMicros, 5_000 + 8_000);
    assert.equal(done?.row.tailHoldId, null);
    assert.equal(await s.balance(), s.start - 8_000, "the open's own price is another hold, not here");
    assert.equal(await s.ledgerSum(), await s.balance(), "the ledger sums to the balance");
  });

  it("is charged once, however many times and from wherever the end is recorded", async () => {
    const s = await openedSession(130);
    await Promise.all([
      endSession(pg.database.db, s.id, "closed"),
      endSession(pg.database.db, s.id, "idle"),
      endSession(pg.database.db, s.id, "closed"),
    ]);
    await chargeEndedTails(pg.database.db);
    const row = await findSession(pg.database.db, s.id);
    assert.equal(row?.chargedMicros, 5_000 + 8_000);
    assert.equal(await s.balance(), s.start - 8_000);
  });

  it("minutes an act already billed are not billed again at the end", async () => {
    const s = await openedSession(150);
    assert.equal(await claimMinutes(pg.database.db, s.id, 1, 3), true);
    const done = await endSession(pg.database.db, s.id, "closed");
    assert.equal(done?.row.chargedMicros, 5_000);
    assert.equal(await s.balance(), s.start, "the whole tail hold went back");
  });

  it("minutes an act gave back (it failed) are billed at the end", async () => {
    const s = await openedSession(150);
    assert.equal(await claimMinutes(pg.database.db, s.id, 1, 3), true);
    await unclaimMinutes(pg.database.db, s.id, 1, 3);
    assert.equal((await findSession(pg.database.db, s.id))?.billedMinutes, 1);
    const done = await endSession(pg.database.db, s.id, "closed");
    assert.equal(done?.row.chargedMicros, 5_000 + 8_000);
  });

  it("a lost session pays no minute after its last act", async () => {
    const s = await openedSession(150);
    const done = await endSession(pg.database.db, s.id, "browser_lost");
    assert.equal(done?.row.status, "lost");
    assert.equal(done?.row.chargedMicros, 5_000);
    assert.equal(await s.balance(), s.start);
  });

  it("a session whose end event was missed is expired by the sweep and charged until it expired", async () => {
    const s = await openedSession(200);
    // it would have expired 100 s after it opened
    await pg.database
      .sql`update sessions set expires_at = opened_at + interval '100 seconds' where id = ${s.id}`;
    assert.ok((await expireOverdueSessions(pg.database.db, 60_000)) >= 1);
    const row = await findSession(pg.database.db, s.id);
    assert.equal(row?.status, "expired");
    assert.equal(row?.chargedMicros, 5_000 + 4_000, "minute 2 only: it was gone by 100 s");
    assert.equal(await s.balance(), s.start - 4_000);
  });
});
