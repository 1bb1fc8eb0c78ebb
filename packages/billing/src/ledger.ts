import { type Db, preparedSql, schema } from "@browserfleet/db";
import { and, eq, lt, type SQL, sql } from "drizzle-orm";
import { newId } from "./ids.ts";

const { accounts, holds, ledgerEntries } = schema;
const p = sql.placeholder;

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
  if (!h.take) return placeHoldOnce(db, h);
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

/** A hold of exactly `micros`: what placing it needs. */
type ExactHold = { accountId: string; micros: number; route: string; requestId?: string; ttlMs: number };

/**
 * A hold of exactly `micros` in one statement (one round trip, atomic as any statement is): the
 * balance is taken only where it covers the hold, and the hold and its ledger row are written from
 * that update's result, so with no balance nothing at all is written. Concurrent holds on one account
 * queue on its row, each deciding on the balance the one before left.
 */
async function placeHoldOnce(db: Db, h: ExactHold): Promise<HoldResult & { heldMicros?: number }> {
  const holdId = newId("hold");
  const [row] = await holdOnce(db, holdValues(holdId, h));
  return holdResultOf(holdId, h.micros, row);
}

const holdValues = (holdId: string, h: ExactHold) => ({
  holdId,
  accountId: h.accountId,
  micros: h.micros,
  route: h.route,
  requestId: h.requestId ?? null,
  expiresAt: new Date(Date.now() + h.ttlMs).toISOString(),
});

function holdResultOf(
  holdId: string,
  micros: number,
  row: { after: string | null; before: string | null } | undefined,
): HoldResult & { heldMicros?: number } {
  if (row?.after == null) return { ok: false, balanceMicros: Number(row?.before ?? 0) };
  return { ok: true, holdId, balanceMicros: Number(row.after), heldMicros: micros };
}

type HoldValues = ReturnType<typeof holdValues>;

const holdOnce = preparedSql<{ after: string | null; before: string | null }, HoldValues>(sql`
    with taken as (
      update ${accounts} set balance_micros = balance_micros - ${p("micros")}::bigint
      where id = ${p("accountId")} and balance_micros >= ${p("micros")}::bigint
      returning balance_micros
    ), hold as (
      insert into ${holds} (id, account_id, route, request_id, amount_micros, expires_at)
      select ${p("holdId")}, ${p("accountId")}, ${p("route")}, ${p("requestId")}::text, ${p("micros")}::bigint, ${p("expiresAt")}::timestamptz
      from taken
    ), entry as (
      insert into ${ledgerEntries}
        (account_id, kind, amount_micros, held_micros, balance_after_micros, hold_id, route, request_id)
      select ${p("accountId")}, 'hold', -${p("micros")}::bigint, ${p("micros")}::bigint, balance_micros, ${p("holdId")}, ${p("route")}, ${p("requestId")}::text
      from taken
    )
    select (select balance_micros from taken)::text as after,
      (select balance_micros from ${accounts} where id = ${p("accountId")})::text as before`);

/**
 * Charge many calls of a balance lease in one transaction, one ledger row per call that charged something,
 * and make `writes` (the calls' records elsewhere) in the same transaction. The calls were answered, so they
 * are charged either way: captured from the lease's hold while it is open and covers them, else (the reaper
 * closed it while the database was away) as an `adjustment` of the balance itself. Returns which.
 */
export async function captureMany(
  db: Db,
  lease: { holdId: string; accountId: string },
  calls: readonly LeaseCharge[],
  writes: readonly ((tx: Tx) => Promise<unknown>)[] = [],
): Promise<"captured" | "from balance"> {
  const charged = calls.filter((c) => c.micros > 0);
  if (charged.length === 0 && writes.length === 0) return "captured";
  try {
    return await db.transaction(async (tx) => {
      const hold = await lockOpenHold(tx, lease.holdId);
      if (!hold) {
        await chargeBalanceIn(tx, lease, charged, AFTER_CLOSE);
        for (const write of writes) await write(tx);
        return "from balance";
      }
      if (charged.length > 0) {
        const total = await insertCharges(tx, hold.accountId, lease.holdId, charged, "capture");
        if (hold.amountMicros - hold.capturedMicros - hold.refundedMicros < total) throw new TooSmall();
        await tx
          .update(holds)
          .set({ capturedMicros: sql`${holds.capturedMicros} + ${total}` })
          .where(eq(holds.id, lease.holdId));
      }
      for (const write of writes) await write(tx);
      return "captured";
    });
  } catch (err) {
    if (!(err instanceof TooSmall)) throw err;
    return db.transaction(async (tx) => {
      await chargeBalanceIn(tx, lease, charged, "charged from a balance lease whose hold could not cover it");
      for (const write of writes) await write(tx);
      return "from balance" as const;
    });
  }
}

const AFTER_CLOSE = "charged from a balance lease whose hold had closed before its calls were written";

/** Charge calls from the balance itself, as `adjustment` rows (their lease's hold is gone); returns the sum. */
async function chargeBalanceIn(
  tx: Tx,
  lease: { holdId: string; accountId: string },
  charged: readonly LeaseCharge[],
  note: string,
): Promise<number> {
  if (charged.length === 0) return 0;
  const total = await insertCharges(tx, lease.accountId, lease.holdId, charged, "adjustment", note);
  if (total > 0)
    await tx
      .update(accounts)
      .set({ balanceMicros: sql`${accounts.balanceMicros} - ${total}` })
      .where(eq(accounts.id, lease.accountId));
  return total;
}

/** Rolls back a capture whose hold cannot cover it. */
class TooSmall extends Error {}

/** A call charged from a balance lease: `chargeId` makes writing it twice a no-op. */
export interface LeaseCharge {
  micros: number;
  route: string;
  requestId?: string;
  chargeId?: string;
}

/**
 * One ledger row per call, as a column per array (drizzle's multi-row insert builds seven parameters per row
 * on the api's event loop, a share of every cached scrape's CPU at a few hundred calls a second). A call whose
 * `chargeId` is already in the ledger is skipped. Returns the sum of the rows written: a `capture` from the
 * hold, or an `adjustment` of the balance itself.
 */
async function insertCharges(
  tx: Tx,
  accountId: string,
  holdId: string,
  charged: readonly LeaseCharge[],
  kind: "capture" | "adjustment",
  note: string | null = null,
): Promise<number> {
  const rows = await tx.execute<{ micros: string }>(sql`
    insert into ${ledgerEntries} (account_id, kind, amount_micros, held_micros, hold_id, route, request_id, charge_id, note)
    select ${accountId}, ${kind}, ${kind === "capture" ? sql`0` : sql`-held`}, ${kind === "capture" ? sql`-held` : sql`0`},
      ${holdId}, route, request_id, charge_id,
      ${note}
    from unnest(${sql.param(charged.map((c) => c.micros))}::bigint[],
      ${sql.param(charged.map((c) => c.route))}::text[],
      ${sql.param(charged.map((c) => c.requestId ?? null))}::text[],
      ${sql.param(charged.map((c) => c.chargeId ?? null))}::text[]) as calls(held, route, request_id, charge_id)
    on conflict (charge_id) where charge_id is not null do nothing
    returning abs(amount_micros + held_micros)::text as micros`);
  return rows.reduce((sum, r) => sum + Number(r.micros), 0);
}

/**
 * A stopped replica's balance lease, from its journal: charge the calls it answered that the ledger does not
 * have yet (from the hold while it is open, else from the balance), then close the hold, giving back what no
 * answered call used. Returns what was charged now.
 */
export async function replayLease(
  db: Db,
  lease: { holdId: string; accountId: string; charges: readonly LeaseCharge[] },
): Promise<number> {
  const charged = lease.charges.filter((c) => c.micros > 0 && c.chargeId);
  return db.transaction(async (tx) => {
    const [hold] = await tx.select().from(holds).where(eq(holds.id, lease.holdId)).for("update");
    const open = hold?.status === "open" ? hold : undefined;
    let total = 0;
    if (open && charged.length > 0) {
      total = await insertCharges(tx, open.accountId, open.id, charged, "capture");
      await tx
        .update(holds)
        .set({ capturedMicros: sql`${holds.capturedMicros} + ${total}` })
        .where(eq(holds.id, open.id));
      open.capturedMicros += total;
    } else {
      total = await chargeBalanceIn(tx, lease, charged, `${AFTER_CLOSE}: from the stopped replica's journal`);
    }
    if (open) await closeIn(tx, open, "balance lease of a replica that stopped");
    return total;
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
  await refundIn(tx, hold, rest, note);
  await tx
    .update(holds)
    .set({ status: "closed", refundedMicros: sql`${holds.refundedMicros} + ${rest}`, closedAt: new Date() })
    .where(eq(holds.id, hold.id));
  return { capturedMicros: hold.capturedMicros, refundedMicros: hold.refundedMicros + rest };
}

/** Put `micros` of a hold back in its account's balance, with its ledger row (the hold's own row is the caller's). */
async function refundIn(tx: Tx, hold: typeof holds.$inferSelect, micros: number, note?: string) {
  if (micros <= 0) return;
  const [row] = await tx
    .update(accounts)
    .set({ balanceMicros: sql`${accounts.balanceMicros} + ${micros}` })
    .where(eq(accounts.id, hold.accountId))
    .returning({ balance: accounts.balanceMicros });
  await tx.insert(ledgerEntries).values({
    accountId: hold.accountId,
    kind: "refund",
    amountMicros: micros,
    heldMicros: -micros,
    balanceAfterMicros: row?.balance ?? null,
    holdId: hold.id,
    route: hold.route,
    requestId: hold.requestId,
    note: note ?? null,
  });
}

/**
 * Give back part of an open hold, which stays open for the rest (a balance lease that takes no more calls
 * while some are still running: what none of them set aside). Returns what was given back.
 */
export async function releaseFromHold(
  db: Db,
  holdId: string,
  micros: number,
  note?: string,
): Promise<number> {
  if (micros <= 0) return 0;
  return db.transaction(async (tx) => {
    const hold = await lockOpenHold(tx, holdId);
    if (!hold) return 0;
    const take = Math.min(micros, hold.amountMicros - hold.capturedMicros - hold.refundedMicros);
    if (take <= 0) return 0;
    await refundIn(tx, hold, take, note);
    await tx
      .update(holds)
      .set({ refundedMicros: sql`${holds.refundedMicros} + ${take}` })
      .where(eq(holds.id, hold.id));
    return take;
  });
}

export interface Settlement {
  capturedMicros: number;
  refundedMicros: number;
}

/**
 * End a call: capture what ran (never more than the hold) and refund the rest. Settling a hold twice
 * (a retry after a lost reply, or the reaper racing the call) changes nothing the second time.
 *
 * One statement (one round trip): the open hold is locked, what it captures and refunds is worked out
 * from it as it stands then, and the hold, the balance and the ledger rows (capture first, then refund)
 * are written together or not at all. A hold that is closed already (or closing under another call,
 * which this waits for) is not found open, and nothing is written.
 */
export async function settleHold(
  db: Db,
  holdId: string,
  capturedMicros: number,
  note?: string,
): Promise<Settlement | undefined> {
  const [row] = await settleOnce(db, { holdId, capturedMicros, note: note ?? null });
  return toSettlement(row);
}

const toSettlement = (row: { captured: string; refunded: string } | undefined): Settlement | undefined =>
  row ? { capturedMicros: Number(row.captured), refundedMicros: Number(row.refunded) } : undefined;

const settlement = <V extends Record<string, unknown>>(alongside?: SQL) =>
  preparedSql<
    { captured: string; refunded: string },
    { holdId: string; capturedMicros: number; note: string | null } & V
  >(sql`
    with open_hold as (
      select id, account_id, route, request_id, amount_micros - captured_micros - refunded_micros as room
      from ${holds} where id = ${p("holdId")} and status = 'open'
      for update
    ), split as (
      select *, least(greatest(${p("capturedMicros")}::bigint, 0), room) as take,
        room - least(greatest(${p("capturedMicros")}::bigint, 0), room) as rest
      from open_hold
    ), closed as (
      update ${holds} set captured_micros = captured_micros + split.take,
        refunded_micros = refunded_micros + split.rest, status = 'closed', closed_at = now()
      from split where ${holds}.id = split.id
      returning ${holds}.captured_micros, ${holds}.refunded_micros
    ), credit as (
      update ${accounts} set balance_micros = balance_micros + split.rest
      from split where ${accounts}.id = split.account_id and split.rest > 0
      returning ${accounts}.balance_micros
    ), entries as (
      insert into ${ledgerEntries}
        (account_id, kind, amount_micros, held_micros, balance_after_micros, hold_id, route, request_id, note)
      select account_id, kind, amount, held, after, id, route, request_id, note from (
        select account_id, 'capture' as kind, 0::bigint as amount, -take as held, null::bigint as after,
          id, route, request_id, null::text as note, 1 as step
        from split where take > 0
        union all
        select account_id, 'refund', rest, -rest, (select balance_micros from credit),
          id, route, request_id, ${p("note")}::text, 2
        from split where rest > 0
      ) e order by step
    )${alongside ? sql`, alongside as (${alongside})` : sql``}
    select captured_micros::text as captured, refunded_micros::text as refunded from closed`);

const settleOnce = settlement();

/**
 * `settleHold` and one more write (`alongside`, an insert, update or delete whose values are
 * `sql.placeholder`s) in the same statement, so in one round trip and one transaction: the write is
 * made whether or not the hold was still open, and a failure writes neither. Built once, at load.
 */
export function settleHoldWith<V extends Record<string, unknown>>(alongside: SQL) {
  const statement = settlement<V>(alongside);
  return async (
    db: Db,
    holdId: string,
    capturedMicros: number,
    values: V,
  ): Promise<Settlement | undefined> => {
    const [row] = await statement(db, { holdId, capturedMicros, note: null, ...values });
    return toSettlement(row);
  };
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
