import { captureFromHoldIn } from "@browserfleet/billing";
import {
  cleanStoredJson,
  cleanStoredText,
  type PageResult,
  type ScrapeResponse,
} from "@browserfleet/contracts";
import { type Db, schema } from "@browserfleet/db";
import { and, eq, getTableColumns, inArray, sql } from "drizzle-orm";
import { emitJobEvent, emitPageEvent } from "./events.ts";
import { endJobIn, isActive, type JobPageRow, type JobRow, lockJob, type NewPage } from "./jobs.ts";

const { jobs, jobPages } = schema;

/** A page row without its result: the result was just written, and sending it back costs a copy. */
export type RecordedPage = Omit<JobPageRow, "result">;
const { result: _result, ...recordedPageColumns } = getTableColumns(jobPages);

export interface RecordOptions {
  /** What a page's result costs (its formats that came out at the page price); 0 when nothing came out. */
  chargeOf(result: ScrapeResponse): number;
  /** Crawl: the pages to take in from a finished page's links, in order (already filtered and normalized). */
  discover?(job: JobRow, page: RecordedPage, links: string[]): NewPage[];
  retentionMs: number;
}

export interface Recorded {
  /** False for a duplicate (redelivered result) or a page of a job that already ended. */
  recorded: boolean;
  job?: JobRow;
  page?: RecordedPage;
  chargedMicros?: number;
  discovered?: number;
  /** The job ended with this result. */
  ended?: JobRow["status"];
}

/**
 * Record one page result, exactly once: the page's row, its charge from the job's hold, the job's
 * counters, the pages it leads to, and the job's end all commit in one transaction under the job's
 * row lock. A result for a page that is already finished (a redelivery) changes nothing.
 */
export async function recordPageResult(db: Db, r: PageResult, opts: RecordOptions): Promise<Recorded> {
  return db.transaction(async (tx) => {
    const job = await lockJob(tx, r.jobId);
    if (!job || !isActive(job.status)) return { recorded: false, job };
    const ok = r.reply.ok && r.reply.result.success;
    const charge = r.reply.ok && ok ? opts.chargeOf(r.reply.result) : 0;
    const now = new Date();
    // A page's text may hold what jsonb cannot (a NUL): cleaned, or the write would fail on every redelivery.
    const stored = r.reply.ok ? cleanStoredJson(r.reply.result) : null;
    const [page] = await tx
      .update(jobPages)
      .set({
        status: ok ? "completed" : "failed",
        result: stored,
        error: r.reply.ok
          ? ok
            ? null
            : { code: "no_format", message: "no requested format came out of this page (see errors)" }
          : { code: r.reply.error.code, message: cleanStoredText(r.reply.error.message) },
        // What it should cost; corrected below in the rare case the hold has less left.
        chargedMicros: charge,
        finishedAt: now,
      })
      .where(
        and(
          eq(jobPages.id, r.pageId),
          eq(jobPages.jobId, r.jobId),
          inArray(jobPages.status, ["queued", "dispatched"]),
        ),
      )
      .returning(recordedPageColumns);
    if (!page) return { recorded: false, job };
    if (!job.startedAt) await emitJobEvent(tx, { ...job, status: "running", startedAt: now }, "job.started");
    const taken = charge > 0 ? await captureFromHoldIn(tx, job.holdId, charge) : 0;
    if (taken !== charge) {
      await tx.update(jobPages).set({ chargedMicros: taken }).where(eq(jobPages.id, page.id));
      page.chargedMicros = taken;
    }

    let discovered = 0;
    if (ok && r.links?.length && opts.discover && job.total < job.pageLimit) {
      discovered = await takeIn(tx, job, opts.discover(job, page, r.links));
    }
    const [counts] = await tx
      .update(jobs)
      .set({
        status: "running",
        startedAt: job.startedAt ?? now,
        completed: sql`${jobs.completed} + ${ok ? 1 : 0}`,
        failed: sql`${jobs.failed} + ${ok ? 0 : 1}`,
        chargedMicros: sql`${jobs.chargedMicros} + ${taken}`,
        total: sql`${jobs.total} + ${discovered}`,
      })
      .where(eq(jobs.id, job.id))
      // Whether the job still has pages to run, in the same statement: it sees this transaction's writes.
      .returning({ ...getTableColumns(jobs), open: openPages });
    const { open, ...fresh } = counts as JobRow & { open: boolean };
    await emitPageEvent(tx, fresh, { ...page, result: stored });
    let ended: JobRow["status"] | undefined;
    if (!open) {
      ended = fresh.completed > 0 ? "completed" : "failed";
      await endJobIn(
        tx,
        fresh,
        ended,
        opts.retentionMs,
        ended === "failed" ? { code: "no_page", message: "no page of the job could be scraped" } : undefined,
      );
    }
    return { recorded: true, job: fresh, page, chargedMicros: taken, discovered, ended };
  });
}

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** Insert new pages up to the job's limit, skipping URLs the job already has. Returns how many. */
async function takeIn(tx: Tx, job: JobRow, candidates: NewPage[]): Promise<number> {
  const room = job.pageLimit - job.total;
  if (room <= 0 || candidates.length === 0) return 0;
  const unique = new Map<string, NewPage>();
  for (const c of candidates) if (!unique.has(c.urlKey)) unique.set(c.urlKey, c);
  const known = await tx
    .select({ urlKey: jobPages.urlKey })
    .from(jobPages)
    .where(and(eq(jobPages.jobId, job.id), inArray(jobPages.urlKey, [...unique.keys()])));
  for (const k of known) unique.delete(k.urlKey);
  const fresh = [...unique.values()].slice(0, room);
  if (fresh.length === 0) return 0;
  const inserted = await tx
    .insert(jobPages)
    .values(fresh.map((p) => ({ jobId: job.id, ...p })))
    .onConflictDoNothing()
    .returning({ id: jobPages.id });
  return inserted.length;
}

/**
 * True while the job has a page queued or dispatched: a column for the RETURNING of an update of
 * jobs, written out qualified (drizzle leaves column names bare there, and both tables have an id).
 */
const openPages = sql<boolean>`exists (select 1 from job_pages p where p.job_id = jobs.id and p.status in ('queued', 'dispatched'))`;
