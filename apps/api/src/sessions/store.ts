import type { SessionEnded } from "@browserfleet/contracts";
import { type Db, schema } from "@browserfleet/db";
import { and, eq, lt, sql } from "drizzle-orm";

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
  });
}

export async function findSession(db: Db, id: string): Promise<SessionRow | undefined> {
  const [row] = await db.select().from(sessions).where(eq(sessions.id, id));
  return row;
}

/**
 * Take the minutes an act bills: only one of two concurrent acts gets them, so no minute is charged
 * twice. Returns false when another act already billed them.
 */
export async function claimMinutes(db: Db, id: string, from: number, to: number): Promise<boolean> {
  const rows = await db
    .update(sessions)
    .set({ billedMinutes: to })
    .where(and(eq(sessions.id, id), eq(sessions.billedMinutes, from)))
    .returning({ id: sessions.id });
  return rows.length === 1;
}

export async function recordAct(
  db: Db,
  id: string,
  a: { actions: number; chargedMicros: number; expiresAt: Date },
): Promise<void> {
  await db
    .update(sessions)
    .set({
      actions: sql`${sessions.actions} + ${a.actions}`,
      chargedMicros: sql`${sessions.chargedMicros} + ${a.chargedMicros}`,
      lastActiveAt: new Date(),
      expiresAt: a.expiresAt,
    })
    .where(eq(sessions.id, id));
}

const REASONS: Record<SessionEnded["reason"], { status: SessionStatus; text: string }> = {
  closed: { status: "closed", text: "closed by the caller" },
  idle: { status: "expired", text: "idle timeout" },
  max_lifetime: { status: "expired", text: "maximum lifetime reached" },
  browser_lost: { status: "lost", text: "the browser holding it is gone" },
  worker_stopping: { status: "lost", text: "the browser worker shut down" },
};

export const describeReason = (reason: SessionEnded["reason"]) => REASONS[reason];

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
  const [changed] = await db
    .update(sessions)
    .set({ status: r.status, closeReason: r.text, closedAt: at })
    .where(and(eq(sessions.id, id), eq(sessions.status, "open")))
    .returning();
  if (changed) return { row: changed, changed: true };
  const row = await findSession(db, id);
  return row && { row, changed: false };
}

/** Sessions still marked open well after their expiry (their end event was missed) are expired. */
export async function expireOverdueSessions(db: Db, graceMs: number): Promise<number> {
  const rows = await db
    .update(sessions)
    .set({ status: "expired", closeReason: "expired", closedAt: sql`${sessions.expiresAt}` })
    .where(and(eq(sessions.status, "open"), lt(sessions.expiresAt, new Date(Date.now() - graceMs))))
    .returning({ id: sessions.id });
  return rows.length;
}
