import { captureFromHoldIn, closeHoldIn, settleHoldWith } from "@browserfleet/billing";
import type { SessionClosedEventData, SessionEnded, WebhookSpec } from "@browserfleet/contracts";
import { type Db, preparedSql, schema } from "@browserfleet/db";
import { sessionMinuteMicros, sessionMinutesDue } from "@browserfleet/pricing";
import { enqueueEvent } from "@browserfleet/webhooks";
import { and, eq, lt, sql } from "drizzle-orm";
import type { Alongside } from "../billing/way-of-paying.ts";
import { billedUntil } from "./tail-rules.ts";

const { sessions } = schema;

export type SessionRow = typeof sessions.$inferSelect;
export type SessionStatus = SessionRow["status"];

/** Who opened a session: exactly one of these is set. */
export type SessionOwner = { accountId: string } | { payer: string } | { client: string };

export async function insertSession(
  db: Db,
  s: {
    id: string;
    owner: SessionOwner;
    workerId: string;
    url: string | null;
    openedAt: Date;
    expiresAt: Date;
    chargedMicros: number;
    /** A key-paid session's hold for its idle tail. */
    tailHoldId?: string;
    /** The profile it opened with, whether it saves it, and the version it loaded (null: none yet). */
    profile?: { name: string; save: boolean; version: number | null };
    /** Where its session.closed event goes (a key-paid session's only). */
    webhook?: WebhookSpec;
    /** Its live view's mode, unless off. */
    liveView?: "view" | "interactive";
    /** A recorded session's: when its recording is deleted. */
    recordingExpiresAt?: Date;
  },
): Promise<void> {
  await db.insert(sessions).values({
    id: s.id,
    accountId: "accountId" in s.owner ? s.owner.accountId : null,
    payer: "payer" in s.owner ? s.owner.payer.toLowerCase() : null,
    client: "client" in s.owner ? s.owner.client : null,
    workerId: s.workerId,
    url: s.url,
    status: "open",
    openedAt: s.openedAt,
    lastActiveAt: s.openedAt,
    expiresAt: s.expiresAt,
    chargedMicros: s.chargedMicros,
    tailHoldId: s.tailHoldId ?? null,
    profileName: s.profile?.name ?? null,
    profileSave: s.profile?.save ?? false,
    profileVersion: s.profile?.version ?? null,
    webhook: s.webhook ?? null,
    liveView: s.liveView ?? null,
    recordingExpiresAt: s.recordingExpiresAt ?? null,
  });
}

/** The session now knows this version of its profile (it saved it): a later save over it is its own. */
export async function sessionSavedProfile(db: Db, id: string, version: number): Promise<void> {
  await db.update(sessions).set({ profileVersion: version }).where(eq(sessions.id, id));
}

/**
 * The read every act makes, built once per database: drizzle builds a query anew for each call, which
 * costs more than the query itself on a busy api (0.67 against 0.15 ms of CPU).
 */
const prepareFindSession = (db: Db) =>
  db
    .select()
    .from(sessions)
    .where(eq(sessions.id, sql.placeholder("id")))
    .prepare("find_session");
const findSessionQueries = new WeakMap<Db, ReturnType<typeof prepareFindSession>>();

export async function findSession(db: Db, id: string): Promise<SessionRow | undefined> {
  let query = findSessionQueries.get(db);
  if (!query) {
    query = prepareFindSession(db);
    findSessionQueries.set(db, query);
  }
  const [row] = await query.execute({ id });
  return row;
}

/**
 * Take the minutes an act bills: only one of two concurrent acts gets them, so no minute is charged
 * twice. Returns false when another act already billed them, or the session has ended (its end bills
 * its minutes).
 */
export async function claimMinutes(db: Db, id: string, from: number, to: number): Promise<boolean> {
  const rows = await db
    .update(sessions)
    .set({ billedMinutes: to })
    .where(and(eq(sessions.id, id), eq(sessions.billedMinutes, from), eq(sessions.status, "open")))
    .returning({ id: sessions.id });
  return rows.length === 1;
}

/** Give back minutes an act claimed but did not charge (it failed): the next act or the session's end bills them. */
export async function unclaimMinutes(db: Db, id: string, from: number, to: number): Promise<void> {
  await db
    .update(sessions)
    .set({ billedMinutes: from })
    .where(and(eq(sessions.id, id), eq(sessions.billedMinutes, to)));
}

/**
 * Charge an ended key-paid session the minutes after its last billing point from its tail hold, and give
 * back the rest of the hold. Once: the hold is forgotten in the same transaction.
 */
export async function chargeSessionTail(db: Db, id: string): Promise<SessionRow | undefined> {
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(sessions).where(eq(sessions.id, id)).for("update");
    if (!row || row.status === "open" || !row.tailHoldId) return row;
    const minutes = sessionMinutesDue(row.openedAt, row.billedMinutes, billedUntil(row));
    const taken =
      minutes > 0
        ? await captureFromHoldIn(
            tx,
            row.tailHoldId,
            minutes * sessionMinuteMicros(row.recordingExpiresAt !== null),
          )
        : 0;
    await closeHoldIn(tx, row.tailHoldId, "the session ended; its unused idle minutes go back");
    const [after] = await tx
      .update(sessions)
      .set({
        billedMinutes: row.billedMinutes + minutes,
        chargedMicros: row.chargedMicros + taken,
        tailHoldId: null,
      })
      .where(eq(sessions.id, id))
      .returning();
    return after;
  });
}

const p = sql.placeholder;

/** What an act writes on its session: its actions and charge counted, its last activity and expiry. */
type ActRecord = { id: string; actions: number; chargedMicros: number; now: string; expiresAt: string };

// Written as SQL: drizzle's update builder costs twice its query's CPU, on every act.
const recordActSql = sql`
    update ${sessions} set
      actions = actions + ${p("actions")}::int,
      charged_micros = charged_micros + ${p("chargedMicros")}::bigint,
      last_active_at = ${p("now")}::timestamptz,
      expires_at = ${p("expiresAt")}::timestamptz
    where id = ${p("id")}`;
const recordActOnce = preparedSql<never, ActRecord>(recordActSql);
const settleWithAct = settleHoldWith<ActRecord>(recordActSql);

/**
 * An act's record on its session, to write with its charge: on its own, in the statement that settles
 * a key's hold (one statement fewer per act), or in a balance lease's batch, where acts written together
 * may be in any order (so the times only move forward).
 */
export function actRecord(
  db: Db,
  id: string,
  a: { actions: number; chargedMicros: number; expiresAt: Date },
): Alongside {
  const values: ActRecord = {
    id,
    actions: a.actions,
    chargedMicros: a.chargedMicros,
    now: new Date().toISOString(),
    expiresAt: a.expiresAt.toISOString(),
  };
  return {
    write: async () => {
      await recordActOnce(db, values);
    },
    settle: (holdId, capturedMicros) => settleWithAct(db, holdId, capturedMicros, values),
    within: (tx) =>
      tx.execute(sql`
        update ${sessions} set
          actions = actions + ${values.actions}::int,
          charged_micros = charged_micros + ${values.chargedMicros}::bigint,
          last_active_at = greatest(last_active_at, ${values.now}::timestamptz),
          expires_at = greatest(expires_at, ${values.expiresAt}::timestamptz)
        where id = ${id}`),
  };
}

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** Queue the session's session.closed event with the change that ended it (nothing without a webhook). */
async function emitSessionClosed(tx: Tx, row: SessionRow): Promise<void> {
  const webhook = row.webhook as WebhookSpec | null;
  if (!webhook || !row.accountId) return;
  await enqueueEvent(tx, {
    accountId: row.accountId,
    stream: `session:${row.id}`,
    webhook,
    type: "session.closed",
    data: {
      sessionId: row.id,
      // The row as the update that ended it returned it.
      status: row.status as Exclude<SessionStatus, "open">,
      reason: row.closeReason ?? row.status,
      openedAt: row.openedAt.toISOString(),
      closedAt: (row.closedAt ?? new Date()).toISOString(),
      actions: row.actions,
    } satisfies Omit<SessionClosedEventData, "metadata">,
  });
}

const REASONS: Record<SessionEnded["reason"], { status: SessionStatus; text: string }> = {
  closed: { status: "closed", text: "closed by the caller" },
  idle: { status: "expired", text: "idle timeout" },
  max_lifetime: { status: "expired", text: "maximum lifetime reached" },
  browser_lost: { status: "lost", text: "the browser holding it is gone" },
  worker_stopping: { status: "lost", text: "the browser worker shut down" },
};

/**
 * Mark an open session ended (the first writer wins). Returns the row as it stands afterwards, and
 * whether this call ended it.
 */
export async function endSession(
  db: Db,
  id: string,
  reason: SessionEnded["reason"],
  at = new Date(),
): Promise<{ row: SessionRow; changed: boolean } | undefined> {
  const r = REASONS[reason];
  const changed = await db.transaction(async (tx) => {
    const [row] = await tx
      .update(sessions)
      .set({ status: r.status, closeReason: r.text, closedAt: at })
      .where(and(eq(sessions.id, id), eq(sessions.status, "open")))
      .returning();
    if (row) await emitSessionClosed(tx, row);
    return row;
  });
  // Charged here whoever ended it, so an answer given after the end shows the charge (another replica
  // may be charging it right now: this waits for it). One that fails now is charged by chargeEndedTails.
  const charged = await chargeSessionTail(db, id).catch(() => undefined);
  if (changed) return { row: charged ?? changed, changed: true };
  const row = charged ?? (await findSession(db, id));
  return row && { row, changed: false };
}

/** Ended sessions whose idle tail is not charged yet (their end was recorded, the charge failed). */
export async function chargeEndedTails(db: Db): Promise<number> {
  const rows = await db
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(sql`${sessions.status} <> 'open'`, sql`${sessions.tailHoldId} is not null`))
    .limit(100);
  for (const { id } of rows) await chargeSessionTail(db, id);
  return rows.length;
}

/** Sessions still marked open well after their expiry (their end event was missed) are expired. */
export async function expireOverdueSessions(db: Db, graceMs: number): Promise<number> {
  const rows = await db.transaction(async (tx) => {
    const ended = await tx
      .update(sessions)
      .set({ status: "expired", closeReason: "expired", closedAt: sql`${sessions.expiresAt}` })
      .where(and(eq(sessions.status, "open"), lt(sessions.expiresAt, new Date(Date.now() - graceMs))))
      .returning();
    for (const row of ended) await emitSessionClosed(tx, row);
    return ended;
  });
  for (const { id } of rows) await chargeSessionTail(db, id);
  return rows.length;
}
