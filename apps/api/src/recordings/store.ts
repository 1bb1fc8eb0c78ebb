import { type Db, schema } from "@browserfleet/db";
import { and, asc, eq, inArray, isNotNull, lt, sql } from "drizzle-orm";

const { recordingParts, sessions } = schema;

export type RecordingPart = typeof recordingParts.$inferSelect;

/** What the parts of one session's recording add up to. */
export interface RecordingSummary {
  sessionId: string;
  bytes: number;
  events: number;
  from: Date | null;
  to: Date | null;
}

/**
 * Notes a stored part under its session, unless the recording would pass `maxBytes`: then nothing is
 * noted, the session's recording is marked truncated, and "full" says so. A part noted before (a worker
 * sending it again after a lost reply) is kept once.
 */
export async function notePart(
  db: Db,
  part: Omit<RecordingPart, "savedAt">,
  maxBytes: number,
): Promise<"noted" | "full"> {
  return db.transaction(async (tx) => {
    // One part at a time per session: the sum below stays true while this one is added.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${part.sessionId}))`);
    const [sum] = await tx
      .select({ bytes: sql<number>`coalesce(sum(${recordingParts.bytes}), 0)`.mapWith(Number) })
      .from(recordingParts)
      .where(eq(recordingParts.sessionId, part.sessionId));
    if ((sum?.bytes ?? 0) + part.bytes > maxBytes) {
      await tx.update(sessions).set({ recordingTruncated: true }).where(eq(sessions.id, part.sessionId));
      return "full";
    }
    await tx.insert(recordingParts).values(part).onConflictDoNothing();
    return "noted";
  });
}

/** A session's parts in order. */
export async function partsOf(db: Db, sessionId: string): Promise<RecordingPart[]> {
  return db
    .select()
    .from(recordingParts)
    .where(eq(recordingParts.sessionId, sessionId))
    .orderBy(asc(recordingParts.seq));
}

/** The summary of each of these sessions' recordings (a session without parts is absent). */
export async function recordingSummaries(db: Db, ids: string[]): Promise<Map<string, RecordingSummary>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({
      sessionId: recordingParts.sessionId,
      bytes: sql<number>`sum(${recordingParts.bytes})`.mapWith(Number),
      events: sql<number>`sum(${recordingParts.events})`.mapWith(Number),
      from: sql<Date | null>`min(${recordingParts.fromAt})`.mapWith((v) => (v ? new Date(v) : null)),
      to: sql<Date | null>`max(${recordingParts.toAt})`.mapWith((v) => (v ? new Date(v) : null)),
    })
    .from(recordingParts)
    .where(inArray(recordingParts.sessionId, ids))
    .groupBy(recordingParts.sessionId);
  return new Map(rows.map((r) => [r.sessionId, r]));
}

/**
 * Forgets the parts of recordings past their retention (their files go with their hour folder, see
 * artifacts' sweep); the session keeps its recording_expires_at, so it shows as expired. How many went.
 */
export async function sweepRecordings(db: Db, now: Date): Promise<number> {
  const gone = await db.delete(recordingParts).where(
    inArray(
      recordingParts.sessionId,
      db
        .select({ id: sessions.id })
        .from(sessions)
        .where(and(isNotNull(sessions.recordingExpiresAt), lt(sessions.recordingExpiresAt, now))),
    ),
  );
  return gone.count;
}
