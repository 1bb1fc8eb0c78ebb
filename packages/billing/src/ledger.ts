import { type Db, schema } from "@browserfleet/db";
import { and, eq, gte, lt, sql } from "drizzle-orm";
import { newId } from "./ids.ts";

const { accounts, holds, ledgerEntries } = schema;

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

export type HoldResult =
  | { ok: true; holdId: string; balanceMicros: number }
  | { ok: false; balanceMicros: number };

/**
 * Reserve `micros` of an account's balance for one call. The conditional update makes it atomic: under
 * any number of concurrent calls on one account the balance never goes below zero.
 */
export async function placeHold(
  db: Db,
  h: { accountId: string; micros: number; route: string; requestId?: string; ttlMs: number },
): Promise<HoldResult> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(accounts)
      .set({ balanceMicros: sql`${accounts.balanceMicros} - ${h.micros}` })
      .where(and(eq(accounts.id, h.accountId), gte(accounts.balanceMicros, h.micros)))
      .returning({ balance: accounts.balanceMicros });
    if (!row) {
      const [acct] = await tx
        .select({ balance: accounts.balanceMicros })
        .from(accounts)
        .where(eq(accounts.id, h.accountId));
      return { ok: false as const, balanceMicros: acct?.balance ?? 0 };
    }
    const holdId = newId("hold");
    await tx.insert(holds).values({
      id: holdId,
      accountId: h.accountId,
      route: h.route,
      requestId: h.requestId ?? null,
      amountMicros: h.micros,
      expiresAt: new Date(Date.now() + h.ttlMs),
    });
    await tx.insert(ledgerEntries).values({
      accountId: h.accountId,
      kind: "hold",
      amountMicros: -h.micros,
      heldMicros: h.micros,
      balanceAfterMicros: row.balance,
      holdId,
      route: h.route,
      requestId: h.requestId ?? null,
    });
    return { ok: true as const, holdId, balanceMicros: row.balance };
  });
}

async function lockOpenHold(tx: Tx, holdId: string) {
  const [hold] = await tx.select().from(holds).where(eq(holds.id, holdId)).for("update");
  return hold && hold.status === "open" ? hold : undefined;
}

async function captureIn(tx: Tx, hold: typeof holds.$inferSelect, micros: number) {
  const room = hold.amountMicros - hold.capturedMicros - hold.refundedMicros;
  const take = Math.max(0, Math.min(micros, room));
  if (take === 0) return 0;
  await tx
    .update(holds)
    .set({ capturedMicros: sql`${holds.capturedMicros} + ${take}` })
    .where(eq(holds.id, hold.id));
  await tx.insert(ledgerEntries).values({
    accountId: hold.accountId,
    kind: "capture",
    amountMicros: 0,
    heldMicros: -take,
    holdId: hold.id,
    route: hold.route,
    requestId: hold.requestId,
  });
  hold.capturedMicros += take;
  return take;
}

async function closeIn(tx: Tx, hold: typeof holds.$inferSelect, note?: string) {
  const rest = hold.amountMicros - hold.capturedMicros - hold.refundedMicros;
  let balance: number | undefined;
  if (rest > 0) {
    const [row] = await tx
      .update(accounts)
      .set({ balanceMicros: sql`${accounts.balanceMicros} + ${rest}` })
      .where(eq(accounts.id, hold.accountId))
      .returning({ balance: accounts.balanceMicros });
    balance = row?.balance;
    await tx.insert(ledgerEntries).values({
      accountId: hold.accountId,
      kind: "refund",
      amountMicros: rest,
      heldMicros: -rest,
      balanceAfterMicros: balance ?? null,
      holdId: hold.id,
      route: hold.route,
      requestId: hold.requestId,
      note: note ?? null,
    });
  }
  await tx
    .update(holds)
    .set({ status: "closed", refundedMicros: sql`${holds.refundedMicros} + ${rest}`, closedAt: new Date() })
    .where(eq(holds.id, hold.id));
  return { capturedMicros: hold.capturedMicros, refundedMicros: hold.refundedMicros + rest };
}

export interface Settlement {
  capturedMicros: number;
  refundedMicros: number;
}

/**
 * End a call: capture what ran (never more than the hold) and refund the rest. Settling a hold twice
 * (a retry after a lost reply, or the reaper racing the call) changes nothing the second time.
 */
export async function settleHold(db: Db, holdId: string, capturedMicros: number, note?: string) {
  return db.transaction(async (tx): Promise<Settlement | undefined> => {
    const hold = await lockOpenHold(tx, holdId);
    if (!hold) return undefined;
    await captureIn(tx, hold, capturedMicros);
    return closeIn(tx, hold, note);
  });
}

/** Capture part of a hold that stays open (a batch or crawl charging page by page). Returns what was taken. */
export async function captureFromHold(db: Db, holdId: string, micros: number): Promise<number> {
  return db.transaction(async (tx) => {
    const hold = await lockOpenHold(tx, holdId);
    return hold ? captureIn(tx, hold, micros) : 0;
  });
}

/** Refund every open hold whose call outlived its deadline (the process holding it died). */
export async function reapExpiredHolds(db: Db, now = new Date()): Promise<number> {
  const expired = await db
    .select({ id: holds.id })
    .from(holds)
    .where(and(eq(holds.status, "open"), lt(holds.expiresAt, now)))
    .limit(1000);
  let n = 0;
  for (const { id } of expired) {
    const done = await db.transaction(async (tx) => {
      const hold = await lockOpenHold(tx, id);
      return hold ? closeIn(tx, hold, "expired: the call did not finish") : undefined;
    });
    if (done) n++;
  }
  return n;
}

/**
 * Charge a price known to be final before the work (a call served wholly from cache): the debit and its
 * ledger row in one statement, so the account row is locked for one round trip instead of a hold's two
 * transactions. Returns the new balance, or undefined when the balance does not cover it.
 */
export async function chargeNow(
  db: Db,
  c: { accountId: string; micros: number; route: string; requestId?: string },
): Promise<{ ok: true; balanceMicros: number } | { ok: false; balanceMicros: number }> {
  const rows = await db.execute<{ balance: string }>(sql`
    with debit as (
      update ${accounts} set balance_micros = balance_micros - ${c.micros}
      where id = ${c.accountId} and balance_micros >= ${c.micros}
      returning balance_micros
    )
    insert into ${ledgerEntries} (account_id, kind, amount_micros, held_micros, balance_after_micros, route, request_id)
    select ${c.accountId}, 'capture', ${-c.micros}, 0, balance_micros, ${c.route}, ${c.requestId ?? null} from debit
    returning balance_after_micros as balance`);
  const row = rows[0];
  if (row) return { ok: true, balanceMicros: Number(row.balance) };
  const [acct] = await db
    .select({ balance: accounts.balanceMicros })
    .from(accounts)
    .where(eq(accounts.id, c.accountId));
  return { ok: false, balanceMicros: acct?.balance ?? 0 };
}

/** Give back a charge whose work failed after all. */
export async function refundCharge(
  db: Db,
  c: { accountId: string; micros: number; route: string; requestId?: string },
): Promise<void> {
  await db.execute(sql`
    with credit as (
      update ${accounts} set balance_micros = balance_micros + ${c.micros}
      where id = ${c.accountId}
      returning balance_micros
    )
    insert into ${ledgerEntries} (account_id, kind, amount_micros, held_micros, balance_after_micros, route, request_id, note)
    select ${c.accountId}, 'refund', ${c.micros}, 0, balance_micros, ${c.route}, ${c.requestId ?? null}, 'the call failed' from credit`);
}
