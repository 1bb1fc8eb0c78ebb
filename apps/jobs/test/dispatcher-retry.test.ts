/**
 * A page whose task was lost (dispatched long ago, never answered) goes back to the queue, also now
 * that rounds look for lost pages at most once a second instead of on every round.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createAccount } from "@browserfleet/billing";
import { loadConfig } from "@browserfleet/config";
import { schema } from "@browserfleet/db";
import { createJob } from "@browserfleet/job-store";
import type { NatsConnection } from "@nats-io/transport-node";
import { eq } from "drizzle-orm";
import { startTestPostgres, type TestPostgres } from "../../../test/helpers/postgres.ts";
import { Dispatcher, RETRY_LOST_EVERY_MS } from "../src/dispatcher.ts";
import { createJobsMetrics } from "../src/metrics.ts";

let pg: TestPostgres;
before(async () => {
  pg = await startTestPostgres();
});
after(async () => {
  await pg?.stop();
});

/** Mark the page as sent to a browser an hour ago that never answered. */
async function lose(pageId: number, taskId: string) {
  await pg.database.db
    .update(schema.jobPages)
    .set({ status: "dispatched", taskId, attempts: 1, dispatchedAt: new Date(Date.now() - 3_600_000) })
    .where(eq(schema.jobPages.id, pageId));
}

async function page(pageId: number) {
  const [row] = await pg.database.db.select().from(schema.jobPages).where(eq(schema.jobPages.id, pageId));
  return row;
}

test("a lost page is queued again, on the first round and on a later one", async () => {
  const db = pg.database.db;
  const config = loadConfig({ JOB_PAGE_TIMEOUT_MS: "1000", JOB_PAGE_ATTEMPTS: "3" });
  const url = "https://lost.test/a";
  const { accountId } = await createAccount(db, { balanceMicros: 1_000_000 });
  await createJob(db, {
    id: "job_lost",
    kind: "batch",
    accountId,
    request: { urls: [url], formats: ["markdown"] },
    holdId: "hold_lost",
    pageMicros: 1000,
    pageLimit: 1,
    pages: [{ url, urlKey: url, depth: 0 }],
    deadlineAt: new Date(Date.now() + 3_600_000),
    expiresAt: new Date(Date.now() + 7_200_000),
  });
  const [row] = await db.select().from(schema.jobPages).where(eq(schema.jobPages.jobId, "job_lost"));
  const pageId = row?.id as number;
  const failed: number[] = [];
  // The sweep's once-a-second limit reads this clock, which the test steps instead of waiting a second.
  let now = Date.now();
  const dispatcher = new Dispatcher({
    clock: () => now,
    config,
    db: pg.database,
    // No bus: the page, once queued again, cannot be sent, so it stays queued for the test to see.
    nc: {} as NatsConnection,
    metrics: createJobsMetrics(),
    log: () => {},
    failPage: async (_job, id) => {
      failed.push(id);
    },
    cachedPage: async () => {},
  });

  await lose(pageId, "task-1");
  await dispatcher.round();
  let state = await page(pageId);
  assert.equal(state?.status, "queued", "the lost page went back to the queue");
  assert.equal(state?.taskId, null);

  await lose(pageId, "task-2");
  now += RETRY_LOST_EVERY_MS - 1;
  await dispatcher.round();
  state = await page(pageId);
  assert.equal(state?.status, "dispatched", "a round within the second after a sweep does not look again");
  now += 1;
  await dispatcher.round();
  state = await page(pageId);
  assert.equal(state?.status, "queued", "a page lost after the first sweep is retried too");
  assert.deepEqual(failed, [], "it had attempts left, so it was not failed");
});
