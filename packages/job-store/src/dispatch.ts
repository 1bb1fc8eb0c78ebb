import { cleanStoredText } from "@browserfleet/contracts";
import { type Db, schema } from "@browserfleet/db";
import { and, asc, eq, gte, inArray, lt, sql } from "drizzle-orm";
import { emitJobEvent } from "./events.ts";
import type { JobPageRow, JobRow } from "./jobs.ts";

const { jobs, jobPages } = schema;

/** Jobs that still have work, oldest first, with the pages each has in flight. */
export async function activeJobs(db: Db, limit = 200): Promise<JobRow[]> {
  return db
    .select()
    .from(jobs)
    .where(inArray(jobs.status, ["queued", "running"]))
    .orderBy(asc(jobs.createdAt))
    .limit(limit);
}

export async function inFlightPages(
  db: Db,
  jobIds: string[],
): Promise<Pick<JobPageRow, "jobId" | "url" | "dispatchedAt">[]> {
  if (jobIds.length === 0) return [];
  return db
    .select({ jobId: jobPages.jobId, url: jobPages.url, dispatchedAt: jobPages.dispatchedAt })
    .from(jobPages)
    .where(and(inArray(jobPages.jobId, jobIds), eq(jobPages.status, "dispatched")));
}

/** The next queued pages of a job, shallowest first, then in discovery order. */
export async function queuedPages(db: Db, jobId: string, limit: number): Promise<JobPageRow[]> {
  return db
    .select()
    .from(jobPages)
    .where(and(eq(jobPages.jobId, jobId), eq(jobPages.status, "queued")))
    .orderBy(asc(jobPages.depth), asc(jobPages.id))
    .limit(limit);
}

/**
 * Claim one queued page for a task. The conditional update makes the claim exclusive, so two jobs
 * replicas never dispatch the same page at once. Returns false when someone else took it first.
 */
export async function claimPage(db: Db, pageId: number, taskId: string): Promise<boolean> {
  const rows = await db
    .update(jobPages)
    .set({ status: "dispatched", taskId, attempts: sql`${jobPages.attempts} + 1`, dispatchedAt: new Date() })
    .where(and(eq(jobPages.id, pageId), eq(jobPages.status, "queued")))
    .returning({ id: jobPages.id });
  return rows.length > 0;
}

/** Give a claimed page back to the queue (its task could not be published). */
export async function unclaimPage(db: Db, pageId: number, taskId: string): Promise<void> {
  await db
    .update(jobPages)
    .set({ status: "queued", taskId: null, attempts: sql`greatest(${jobPages.attempts} - 1, 0)` })
    .where(and(eq(jobPages.id, pageId), eq(jobPages.taskId, taskId), eq(jobPages.status, "dispatched")));
}

/**
 * Pages dispatched at or after `since` that have no result yet, with the task id each was claimed for:
 * after a crash, the ones whose task may never have been published.
 */
export async function claimedPagesSince(
  db: Db,
  since: Date,
): Promise<Pick<JobPageRow, "id" | "jobId" | "url" | "taskId" | "dispatchedAt">[]> {
  return db
    .select({
      id: jobPages.id,
      jobId: jobPages.jobId,
      url: jobPages.url,
      taskId: jobPages.taskId,
      dispatchedAt: jobPages.dispatchedAt,
    })
    .from(jobPages)
    .where(and(eq(jobPages.status, "dispatched"), gte(jobPages.dispatchedAt, since)));
}

/** Pages dispatched before `before` that never got a result: lost tasks. */
export async function stalePages(db: Db, before: Date, limit = 500): Promise<JobPageRow[]> {
  return db
    .select()
    .from(jobPages)
    .where(and(eq(jobPages.status, "dispatched"), lt(jobPages.dispatchedAt, before)))
    .limit(limit);
}

export async function requeuePage(db: Db, pageId: number, taskId: string | null): Promise<boolean> {
  const rows = await db
    .update(jobPages)
    .set({ status: "queued", taskId: null })
    .where(
      and(
        eq(jobPages.id, pageId),
        eq(jobPages.status, "dispatched"),
        taskId === null ? sql`${jobPages.taskId} is null` : eq(jobPages.taskId, taskId),
      ),
    )
    .returning({ id: jobPages.id });
  return rows.length > 0;
}

/** A queued job's first page went out: it is running, and its job.started event is queued with it. */
/** The URL a page of a job was queued with. */
export async function pageUrlOf(db: Db, pageId: number): Promise<string | undefined> {
  const [row] = await db.select({ url: jobPages.url }).from(jobPages).where(eq(jobPages.id, pageId));
  return row?.url;
}

export async function markJobRunning(db: Db, jobId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const [job] = await tx
      .update(jobs)
      .set({ status: "running", startedAt: sql`coalesce(${jobs.startedAt}, now())` })
      .where(and(eq(jobs.id, jobId), eq(jobs.status, "queued")))
      .returning();
    if (job) await emitJobEvent(tx, job, "job.started");
  });
}

export async function setRobots(db: Db, jobId: string, robotsTxt: string): Promise<void> {
  await db
    .update(jobs)
    .set({ robotsTxt: cleanStoredText(robotsTxt) })
    .where(eq(jobs.id, jobId));
}

/** Counts of jobs by status, for metrics. */
export async function jobsByStatus(db: Db): Promise<Record<string, number>> {
  const rows = await db
    .select({ status: jobs.status, n: sql<number>`count(*)::int` })
    .from(jobs)
    .groupBy(jobs.status);
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}
