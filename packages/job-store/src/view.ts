import { type JobStatusResponse, WEBHOOK_EVENTS } from "@browserfleet/contracts";
import { type Db, schema } from "@browserfleet/db";
import { deliveriesOf, type StoredWebhook } from "@browserfleet/webhooks";
import { and, asc, desc, eq, gt, inArray, min, sql } from "drizzle-orm";
import { jobData, jobStream } from "./events.ts";
import type { JobKind, JobRow } from "./jobs.ts";
import { pageResult } from "./page-result.ts";

/** The events a job's webhook sends when it names none. */
const JOB_EVENTS = WEBHOOK_EVENTS.filter((e) => e.startsWith("job."));

const { jobs, jobPages } = schema;

export async function findJob(
  db: Db,
  accountId: string,
  kind: JobKind,
  jobId: string,
): Promise<JobRow | undefined> {
  const [job] = await db
    .select()
    .from(jobs)
    .where(and(eq(jobs.id, jobId), eq(jobs.accountId, accountId), eq(jobs.kind, kind)));
  return job;
}

/**
 * A job's status and the next results after `cursor` (a page id), in queue order. Results stop at the
 * first page that has not finished yet, so a poller that follows `next` sees every page exactly once,
 * in order, even though pages finish out of order.
 */
export async function jobView(
  db: Db,
  job: JobRow,
  opts: { limit: number; cursor?: number },
): Promise<JobStatusResponse> {
  const [open] = await db
    .select({ first: min(jobPages.id) })
    .from(jobPages)
    .where(and(eq(jobPages.jobId, job.id), inArray(jobPages.status, ["queued", "dispatched"])));
  const firstOpen = open?.first ?? undefined;
  const rows = await db
    .select()
    .from(jobPages)
    .where(
      and(
        eq(jobPages.jobId, job.id),
        gt(jobPages.id, opts.cursor ?? 0),
        inArray(jobPages.status, ["completed", "failed"]),
      ),
    )
    .orderBy(asc(jobPages.id))
    .limit(opts.limit + 1);
  const ready = firstOpen === undefined ? rows : rows.filter((r) => r.id < firstOpen);
  const page = ready.slice(0, opts.limit);
  const last = page.at(-1)?.id ?? opts.cursor;
  const active = job.status === "queued" || job.status === "running";
  const more = ready.length > opts.limit || active;
  const webhook = job.webhook as StoredWebhook | null;
  return {
    success: true,
    ...jobData(job),
    createdAt: job.createdAt.toISOString(),
    finishedAt: job.finishedAt?.toISOString() ?? null,
    expiresAt: job.expiresAt.toISOString(),
    ...(webhook ? { webhook: await deliveriesOf(db, jobStream(job.id), webhook, JOB_EVENTS) } : {}),
    data: page.map((p) => pageResult(p, job.kind)),
    next: more ? String(last ?? 0) : null,
  };
}

/** An account's jobs, newest first, `limit` at a time before the (createdAt, id) of the previous page. */
export async function accountJobs(
  db: Db,
  accountId: string,
  opts: { limit: number; before?: { createdAt: Date; id: string } },
): Promise<{ jobs: JobRow[]; next?: { createdAt: Date; id: string } }> {
  const b = opts.before;
  const rows = await db
    .select()
    .from(jobs)
    .where(
      and(
        eq(jobs.accountId, accountId),
        b
          ? sql`(${jobs.createdAt}, ${jobs.id}) < (${b.createdAt.toISOString()}::timestamptz, ${b.id})`
          : undefined,
      ),
    )
    .orderBy(desc(jobs.createdAt), desc(jobs.id))
    .limit(opts.limit + 1);
  const page = rows.slice(0, opts.limit);
  const last = page.at(-1);
  return {
    jobs: page,
    ...(rows.length > opts.limit && last ? { next: { createdAt: last.createdAt, id: last.id } } : {}),
  };
}
