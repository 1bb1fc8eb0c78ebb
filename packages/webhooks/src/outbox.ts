import { randomBytes } from "node:crypto";
import {
  WEBHOOK_VERSION,
  type WebhookDeliveries,
  type WebhookEventType,
  type WebhookSpec,
} from "@browserfleet/contracts";
import { type Db, schema } from "@browserfleet/db";
import { and, desc, eq, lt, ne, sql } from "drizzle-orm";
import type { AttemptOutcome, NextStep } from "./retry.ts";

const { webhookEvents, webhookAttempts } = schema;
type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
export type EventRow = typeof webhookEvents.$inferSelect;

const GONE = "the receiver answered 410 Gone to an earlier event";

/** A webhook as a job keeps it: the caller's spec and where the job's status is read. */
export type StoredWebhook = WebhookSpec & { statusUrl: string };

/** Whether the webhook asked for this event (every event when it named none). */
export const wants = (webhook: WebhookSpec, type: WebhookEventType) =>
  !webhook.events || webhook.events.includes(type);

/**
 * Add an event to the outbox, in the transaction that made it: it is delivered if and only if that
 * transaction commits. Nothing when the webhook did not ask for this event; recorded as stopped, never
 * sent, when the receiver already answered 410 Gone to an event of the stream.
 */
export async function enqueueEvent(
  tx: Tx | Db,
  e: {
    accountId: string;
    stream: string;
    webhook: WebhookSpec;
    type: WebhookEventType;
    data: Record<string, unknown>;
    at?: Date;
  },
): Promise<void> {
  if (!wants(e.webhook, e.type)) return;
  const at = e.at ?? new Date();
  const data = e.webhook.metadata ? { ...e.data, metadata: e.webhook.metadata } : e.data;
  const [gone] = await tx
    .select({ id: webhookEvents.id })
    .from(webhookEvents)
    .where(
      and(
        eq(webhookEvents.stream, e.stream),
        eq(webhookEvents.url, e.webhook.url),
        eq(webhookEvents.status, "stopped"),
      ),
    )
    .limit(1);
  await tx.insert(webhookEvents).values({
    msgId: `msg_${randomBytes(16).toString("base64url")}`,
    accountId: e.accountId,
    stream: e.stream,
    type: e.type,
    url: e.webhook.url,
    headers: e.webhook.headers ?? null,
    body: JSON.stringify({ type: e.type, version: WEBHOOK_VERSION, timestamp: at.toISOString(), data }),
    createdAt: at,
    nextAttemptAt: at,
    ...(gone ? { status: "stopped" as const, lastError: GONE } : {}),
  });
}

/**
 * Take up to `limit` events that are due, each the oldest pending one of its stream (so a stream's events go
 * out in order, one at a time), and hold them for `holdMs`: another deliverer takes them only once that
 * passes (this one died mid-delivery). SKIP LOCKED lets several deliverers claim side by side. An event
 * whose receiver answered 410 to an earlier one of its stream is not taken (stopGoneEvents stops it).
 * One statement: it runs before every delivery.
 */
export async function claimDue(db: Db, limit: number, holdMs: number): Promise<EventRow[]> {
  const rows = await db
    .update(webhookEvents)
    .set({ lockedUntil: sql`now() + ${`${holdMs} milliseconds`}::interval` })
    .where(
      sql`${webhookEvents.id} in (
        select c.id from webhook_events c
        where c.status = 'pending' and c.next_attempt_at <= now()
          and (c.locked_until is null or c.locked_until < now())
          and not exists (
            select 1 from webhook_events p where p.stream = c.stream and p.id < c.id and p.status = 'pending'
          )
          and not exists (
            select 1 from webhook_events s where s.stream = c.stream and s.url = c.url and s.status = 'stopped'
          )
        order by c.id
        limit ${limit}
        for update skip locked
      )`,
    )
    .returning();
  return rows.sort((a, b) => a.id - b.id);
}

/**
 * Stop the pending events of streams whose receiver answered 410 (one made while the 410 was being
 * recorded saw no stop yet). Returns how many.
 */
export async function stopGoneEvents(db: Db): Promise<number> {
  const rows = await db.execute(sql`
    update webhook_events c set status = 'stopped', last_error = ${GONE}
    where c.status = 'pending'
      and exists (
        select 1 from webhook_events s where s.stream = c.stream and s.url = c.url and s.status = 'stopped'
      )
    returning c.id`);
  return (rows as unknown as unknown[]).length;
}

/** When a pending event is due next (its retry time), or undefined when none is pending. */
export async function nextDue(db: Db): Promise<Date | undefined> {
  const [row] = await db
    .select({ at: sql<Date | null>`min(${webhookEvents.nextAttemptAt})` })
    .from(webhookEvents)
    .where(eq(webhookEvents.status, "pending"));
  const at = row?.at;
  return at ? new Date(at) : undefined;
}

const describe = (o: AttemptOutcome) => (o.kind === "answered" ? null : o.error);

/**
 * Record an attempt and what follows it. A 410 stops the event and every later pending one of its stream
 * sent to the same URL.
 */
export async function recordAttempt(
  db: Db,
  event: EventRow,
  outcome: AttemptOutcome,
  next: NextStep,
  at = new Date(),
): Promise<void> {
  const status = outcome.kind === "answered" ? outcome.status : null;
  const error = next.kind === "failed" ? next.why : describe(outcome);
  // Times as text: the driver is set to hand dates through as drizzle's columns write them, not to write a Date.
  const when = at.toISOString();
  const state =
    next.kind === "delivered"
      ? sql`status = 'delivered', delivered_at = ${when}::timestamptz`
      : next.kind === "retry"
        ? sql`next_attempt_at = ${next.at.toISOString()}::timestamptz`
        : sql`status = ${next.kind}`;
  // The attempt and the event's new state in one statement: it runs after every delivery.
  await db.execute(sql`
    with attempt as (
      insert into webhook_attempts (event_id, at, status, error, ms)
      values (${event.id}, ${when}::timestamptz, ${status}, ${describe(outcome)}, ${Math.round(outcome.ms)})
    )
    update webhook_events set
      attempts = attempts + 1, last_status = ${status}, last_error = ${error}, last_attempt_at = ${when}::timestamptz,
      locked_until = null, ${state}
    where id = ${event.id}`);
  if (next.kind === "stopped") await stopGoneEvents(db);
}

/** How a stream's deliveries stand: counts by state and the last attempt. */
export async function deliveriesOf(
  db: Db,
  stream: string,
  webhook: WebhookSpec,
  allEvents: readonly WebhookEventType[],
): Promise<WebhookDeliveries> {
  const counts = await db
    .select({ status: webhookEvents.status, n: sql<number>`count(*)::int` })
    .from(webhookEvents)
    .where(eq(webhookEvents.stream, stream))
    .groupBy(webhookEvents.status);
  const n = (s: string) => counts.find((c) => c.status === s)?.n ?? 0;
  const [last] = await db
    .select({
      at: webhookAttempts.at,
      status: webhookAttempts.status,
      error: webhookAttempts.error,
      type: webhookEvents.type,
    })
    .from(webhookAttempts)
    .innerJoin(webhookEvents, eq(webhookAttempts.eventId, webhookEvents.id))
    .where(eq(webhookEvents.stream, stream))
    .orderBy(desc(webhookAttempts.id))
    .limit(1);
  return {
    url: webhook.url,
    events: [...(webhook.events ?? allEvents)],
    delivered: n("delivered"),
    pending: n("pending"),
    failed: n("failed"),
    stopped: n("stopped"),
    lastAttempt: last
      ? {
          at: last.at.toISOString(),
          event: last.type as WebhookEventType,
          status: last.status,
          error: last.error,
        }
      : null,
  };
}

/** Counts of events by state, for metrics. */
export async function eventsByStatus(db: Db): Promise<Record<string, number>> {
  const rows = await db
    .select({ status: webhookEvents.status, n: sql<number>`count(*)::int` })
    .from(webhookEvents)
    .groupBy(webhookEvents.status);
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/** Delete events that are done (delivered, failed, stopped) and older than `before`. */
export async function deleteDoneEvents(db: Db, before: Date): Promise<number> {
  const gone = await db
    .delete(webhookEvents)
    // Through the column (lt), so the Date is written as the column writes it: a Date put into raw sql
    // reaches the driver as an object, which drizzle's postgres-js setup cannot send.
    .where(and(ne(webhookEvents.status, "pending"), lt(webhookEvents.createdAt, before)))
    .returning({ id: webhookEvents.id });
  return gone.length;
}
