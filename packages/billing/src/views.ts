import { type Db, schema } from "@browserfleet/db";
import { and, desc, eq, gte, lt, sql } from "drizzle-orm";

const { holds, ledgerEntries, usage, sessions } = schema;

/** Calls and spend per route and UTC day, newest day first. */
export async function usageByDay(db: Db, accountId: string, days: number) {
  const since = new Date(Date.now() - days * 86_400_000);
  const day = sql<string>`to_char(${usage.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`;
  const rows = await db
    .select({
      day,
      route: usage.route,
      calls: sql<number>`count(*)::int`,
      failed: sql<number>`(count(*) filter (where ${usage.status} >= 400))::int`,
      spentMicros: sql<number>`coalesce(sum(${usage.priceMicros}), 0)::bigint`,
    })
    .from(usage)
    .where(and(eq(usage.accountId, accountId), gte(usage.createdAt, since)))
    .groupBy(day, usage.route)
    .orderBy(desc(day), usage.route);
  return rows.map((r) => ({ ...r, spentMicros: Number(r.spentMicros) }));
}

/** The ledger, newest first, paginated by an opaque cursor (the last id seen). */
export async function transactions(db: Db, accountId: string, opts: { limit: number; before?: number }) {
  const rows = await db
    .select()
    .from(ledgerEntries)
    .where(
      and(
        eq(ledgerEntries.accountId, accountId),
        opts.before !== undefined ? lt(ledgerEntries.id, opts.before) : undefined,
      ),
    )
    .orderBy(desc(ledgerEntries.id))
    .limit(opts.limit + 1);
  const page = rows.slice(0, opts.limit);
  const last = page.at(-1);
  return { entries: page, next: rows.length > opts.limit && last ? last.id : undefined };
}

/** Sessions, newest first; the cursor is the last (openedAt, id) seen, so rows of the same instant are not skipped. */
export async function accountSessions(
  db: Db,
  accountId: string,
  opts: { limit: number; before?: { openedAt: Date; id: string } },
) {
  const b = opts.before;
  const rows = await db
    .select({
      session: sessions,
      // What is still held for the idle tail: nothing once its hold is closed.
      heldMicros:
        sql<number>`coalesce(case when ${holds.status} = 'open' then ${holds.amountMicros} - ${holds.capturedMicros} - ${holds.refundedMicros} end, 0)`.mapWith(
          Number,
        ),
    })
    .from(sessions)
    .leftJoin(holds, eq(holds.id, sessions.tailHoldId))
    .where(
      and(
        eq(sessions.accountId, accountId),
        b
          ? sql`(${sessions.openedAt}, ${sessions.id}) < (${b.openedAt.toISOString()}::timestamptz, ${b.id})`
          : undefined,
      ),
    )
    .orderBy(desc(sessions.openedAt), desc(sessions.id))
    .limit(opts.limit + 1);
  const page = rows.slice(0, opts.limit).map((r) => ({ ...r.session, heldMicros: r.heldMicros }));
  const last = page.at(-1);
  return {
    sessions: page,
    next: rows.length > opts.limit && last ? { openedAt: last.openedAt, id: last.id } : undefined,
  };
}
