import { closeHoldIn, type Tx } from "@browserfleet/billing";
import type { JobStatus } from "@browserfleet/contracts";
import { type Db, schema } from "@browserfleet/db";
import type { StoredWebhook } from "@browserfleet/webhooks";
import { and, eq, inArray, lt } from "drizzle-orm";
import { emitJobEvent } from "./events.ts";

const { jobs, jobPages } = schema;

export type JobRow = typeof jobs.$inferSelect;
export type JobPageRow = typeof jobPages.$inferSelect;
export type JobKind = JobRow["kind"];

export interface NewPage {
  url: string;
  urlKey: string;
  depth: number;
}

export interface NewJob {
  id: string;
  kind: JobKind;
  accountId: string;
  requestId?: string;
  request: unknown;
  holdId: string;
  pageMicros: number;
  pageLimit: number;
  /** Batch: every url in order; crawl: the start page. */
  pages: NewPage[];
  deadlineAt: Date;
  expiresAt: Date;
  /** Where the job's events go (the request's webhook and its status URL). */
  webhook?: StoredWebhook;
}

/** Insert a job and its first pages in one transaction. Pages with the same key are taken once. */
export async function createJob(db: Db, job: NewJob): Promise<JobRow> {
  return db.transaction(async (tx) => {
    const seen = new Set<string>();
    const pages = job.pages.filter((p) => !seen.has(p.urlKey) && seen.add(p.urlKey));
    const [row] = await tx
      .insert(jobs)
      .values({
        id: job.id,
        kind: job.kind,
        accountId: job.accountId,
        status: "queued",
        request: job.request,
        requestId: job.requestId ?? null,
        holdId: job.holdId,
        pageMicros: job.pageMicros,
        pageLimit: job.pageLimit,
        total: pages.length,
        deadlineAt: job.deadlineAt,
        expiresAt: job.expiresAt,
        webhook: job.webhook ?? null,
      })
      .returning();
    await tx.insert(jobPages).values(pages.map((p) => ({ jobId: job.id, ...p })));
    return row as JobRow;
  });
}

/** Lock a job row for a decision that must not race another replica (results, cancel, finish). */
export async function lockJob(tx: Tx, jobId: string): Promise<JobRow | undefined> {
  const [row] = await tx.select().from(jobs).where(eq(jobs.id, jobId)).for("update");
  return row;
}

export const isActive = (status: JobStatus) => status === "queued" || status === "running";

/**
 * End a job inside the caller's transaction: pages that have not finished are cancelled, the hold's
 * unused part goes back, and the results stay readable for `retentionMs`. Ending an ended job is a no-op.
 */
export async function endJobIn(
  tx: Tx,
  job: JobRow,
  status: Exclude<JobStatus, "queued" | "running">,
  retentionMs: number,
  error?: { code: string; message: string },
): Promise<boolean> {
  if (!isActive(job.status)) return false;
  const now = new Date();
  await tx
    .update(jobPages)
    .set({ status: "cancelled", finishedAt: now })
    .where(and(eq(jobPages.jobId, job.id), inArray(jobPages.status, ["queued", "dispatched"])));
  await tx
    .update(jobs)
    .set({
      status,
      finishedAt: now,
      expiresAt: new Date(now.getTime() + retentionMs),
      error: error ?? null,
    })
    .where(eq(jobs.id, job.id));
  await closeHoldIn(tx, job.holdId, `${job.kind} ${job.id} ${status}`);
  job.status = status;
  job.finishedAt = now;
  job.error = error ?? null;
  await emitJobEvent(tx, job, `job.${status}`);
  return true;
}

/** DELETE: cancel a job of this account. Undefined when there is no such job for this caller. */
export async function cancelJob(
  db: Db,
  accountId: string,
  kind: JobKind,
  jobId: string,
  retentionMs: number,
): Promise<JobRow | undefined> {
  return db.transaction(async (tx) => {
    const job = await lockJob(tx, jobId);
    if (!job || job.accountId !== accountId || job.kind !== kind) return undefined;
    await endJobIn(tx, job, "cancelled", retentionMs);
    const [fresh] = await tx.select().from(jobs).where(eq(jobs.id, jobId));
    return fresh;
  });
}

/** Delete jobs (and, by cascade, their pages) whose retention has passed. Returns how many. */
export async function deleteExpiredJobs(db: Db, now = new Date()): Promise<number> {
  const gone = await db
    .delete(jobs)
    .where(and(lt(jobs.expiresAt, now), inArray(jobs.status, ["completed", "failed", "cancelled"])))
    .returning({ id: jobs.id });
  return gone.length;
}
