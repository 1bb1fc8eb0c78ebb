import type { JobEventData, JobPageEventData, WebhookEventType } from "@browserfleet/contracts";
import type { Db } from "@browserfleet/db";
import { usd } from "@browserfleet/pricing";
import { enqueueEvent, type StoredWebhook } from "@browserfleet/webhooks";
import type { JobPageRow, JobRow } from "./jobs.ts";
import { pageResult } from "./page-result.ts";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** A job's events go out in order, one at a time: one stream per job. */
export const jobStream = (jobId: string) => `job:${jobId}`;

/** A page result larger than this (as JSON) is sent as a link to it: a receiver need not take megabytes. */
export const PAGE_EVENT_MAX_BYTES = 256 * 1024;

/** What every event of a job, and its status, say of it. */
export function jobData(job: JobRow): JobEventData {
  return {
    jobId: job.id,
    kind: job.kind,
    status: job.status,
    total: job.total,
    completed: job.completed,
    failed: job.failed,
    charged: { usd: usd(job.chargedMicros), micros: job.chargedMicros },
    error: (job.error as JobEventData["error"]) ?? null,
  };
}

/** Queue one of the job's events in the transaction that made it (nothing when the job has no webhook). */
export async function emitJobEvent(
  tx: Tx,
  job: JobRow,
  type: Exclude<WebhookEventType, "job.page">,
): Promise<void> {
  const webhook = job.webhook as StoredWebhook | null;
  if (!webhook) return;
  await enqueueEvent(tx, {
    accountId: job.accountId,
    stream: jobStream(job.id),
    webhook,
    type,
    data: jobData(job),
  });
}

/** Queue a finished page's event: its result as the job's status shows it, or past PAGE_EVENT_MAX_BYTES a link. */
export async function emitPageEvent(tx: Tx, job: JobRow, page: JobPageRow): Promise<void> {
  const webhook = job.webhook as StoredWebhook | null;
  if (!webhook) return;
  const whole = pageResult(page, job.kind);
  const fits = Buffer.byteLength(JSON.stringify(whole)) <= PAGE_EVENT_MAX_BYTES;
  const { data: _d, errors: _e, metadata: _m, ...brief } = whole;
  const shown: JobPageEventData["page"] = fits
    ? whole
    : { ...brief, resultUrl: `${webhook.statusUrl}?cursor=${page.id - 1}&limit=1` };
  await enqueueEvent(tx, {
    accountId: job.accountId,
    stream: jobStream(job.id),
    webhook,
    type: "job.page",
    data: { ...jobData(job), page: shown },
  });
}
