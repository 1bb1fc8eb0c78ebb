import { type Db, schema } from "@browserfleet/db";
import { and, eq, lt, sql } from "drizzle-orm";
import { newId } from "./ids.ts";

const { accounts, holds, ledgerEntries } = schema;

export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

export type HoldResult =
  | { ok: true; holdId: string; balanceMicros: number }
  | { ok: false; balanceMicros: number };

/**
 * Reserve `micros` of an account's balance for one call (or, with `take`, that share of the balance,
 * but at least `micros`: a balance lease). The row is locked for the decision, so under any number of
 * concurrent calls on one account the balance never goes below zero.
 */
export async function placeHold(
  db: Db,
  h: {
    accountId: string;
    micros: number;
    take?: (balanceMicros: number) => number;
    route: string;
    requestId?: string;
    ttlMs: number;
  },
): Promise<HoldResult & { heldMicros?: number }> {
  return db.transaction(async (tx) => {
    const [acct] = await tx
      .select({ balance: accounts.balanceMicros })
      .from(accounts)
      .where(eq(accounts.id, h.accountId))
      .for("update");
    const balance = acct?.balance ?? 0;
    if (balance < h.micros) return { ok: false as const, balanceMicros: balance };
    const take = Math.min(balance, Math.max(h.micros, h.take?.(balance) ?? h.micros));
    const [row] = await tx
      .update(accounts)
      .set({ balanceMicros: sql`${accounts.balanceMicros} - ${take}` })
      .where(eq(accounts.id, h.accountId))
      .returning({ balance: accounts.balanceMicros });
    const after = row?.balance ?? balance - take;
    const holdId = newId("hold");
    await tx.insert(holds).values({
      id: holdId,
      accountId: h.accountId,
      route: h.route,
      requestId: h.requestId ?? null,
      amountMicros: take,
      expiresAt: new Date(Date.now() + h.ttlMs),
    });
    await tx.insert(ledgerEntries).values({
      accountId: h.accountId,
      kind: "hold",
      amountMicros: -take,
      heldMicros: take,
      balanceAfterMicros: after,
      holdId,
      route: h.route,
      requestId: h.requestId ?? null,
    });
    return { ok: true as const, holdId, balanceMicros: after, heldMicros: take };
  });
}

/**
 * Capture many calls from one open hold (a balance lease) in one transaction, one ledger row per call.
 * Returns false when the hold is no longer open or too small (nothing is captured then).
 */
export async function captureMany(
  db: Db,
  holdId: string,
  calls: readonly { micros: number; route: string; requestId?: string }[],
): Promise<boolean> {
  if (calls.length === 0) return true;
  const total = calls.reduce((sum, c) => sum + c.micros, 0);
  return db.transaction(async (tx) => {
    const hold = await lockOpenHold(tx, holdId);
    if (!hold || hold.amountMicros - hold.capturedMicros - hold.refundedMicros < total) return false;
    await tx
      .update(holds)
      .set({ capturedMicros: sql`${holds.capturedMicros} + ${total}` })
      .where(eq(holds.id, holdId));
    await tx.insert(ledgerEntries).values(
      calls.map((c) => ({
        accountId: hold.accountId,
        kind: "capture" as const,
        amountMicros: 0,
        heldMicros: -c.micros,
        holdId,
        route: c.route,
        requestId: c.requestId ?? null,
      })),
    );
    return true;
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

/**
 * `captureFromHold` inside the caller's transaction, so a job page's result and its charge commit
 * together (a redelivered result then finds the page done and charges nothing).
 */
export async function captureFromHoldIn(tx: Tx, holdId: string, micros: number): Promise<number> {
  const hold = await lockOpenHold(tx, holdId);
  return hold ? captureIn(tx, hold, micros) : 0;
}

/** Refund what is left of a hold inside the caller's transaction (a job that ended or was cancelled). */
export async function closeHoldIn(tx: Tx, holdId: string, note?: string): Promise<Settlement | undefined> {
  const hold = await lockOpenHold(tx, holdId);
  return hold ? closeIn(tx, hold, note) : undefined;
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
