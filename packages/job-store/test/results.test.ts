import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { accountBalance, createAccount, placeHold } from "@browserfleet/billing";
import type { PageResult, ScrapeResponse } from "@browserfleet/contracts";
import { schema } from "@browserfleet/db";
import { eq } from "drizzle-orm";
import { startTestPostgres, type TestPostgres } from "../../../test/helpers/postgres.ts";
import { createJob, recordPageResult } from "../src/index.ts";

let pg: TestPostgres;
before(async () => {
  pg = await startTestPostgres();
});
after(async () => {
  await pg?.stop();
});
const db = () => pg.database.db;

const PAGE = 1_000;
const okResult = (url: string): ScrapeResponse => ({
  success: true,
  data: { markdown: `# ${url}` },
  errors: {},
  metadata: { url, formats: ["markdown"], renders: 1, browserMsUsed: 1, ms: 0 },
});

/** A batch job over `urls` whose hold has `heldMicros` (the api holds pages × price; tests may hold less). */
async function batchJob(urls: string[], heldMicros: number) {
  const { accountId } = await createAccount(db(), { balanceMicros: 100_000 });
  const hold = await placeHold(db(), { accountId, micros: heldMicros, route: "batch", ttlMs: 600_000 });
  assert.ok(hold.ok);
  const id = `job_${Math.random().toString(36).slice(2)}`;
  await createJob(db(), {
    id,
    kind: "batch",
    accountId,
    request: { urls, formats: ["markdown"] },
    holdId: hold.holdId,
    pageMicros: PAGE,
    pageLimit: urls.length,
    pages: urls.map((url) => ({ url, urlKey: url, depth: 0 })),
    deadlineAt: new Date(Date.now() + 600_000),
    expiresAt: new Date(Date.now() + 3_600_000),
  });
  const pages = await db()
    .select()
    .from(schema.jobPages)
    .where(eq(schema.jobPages.jobId, id))
    .orderBy(schema.jobPages.id);
  return { id, accountId, pages };
}

const record = (r: PageResult) =>
  recordPageResult(db(), r, {
    chargeOf: (res) => (res.success ? PAGE : 0),
    retentionMs: 60_000,
  });

test("each page is charged what it cost, the job ends with its last page, and a redelivered result changes nothing", async () => {
  const urls = ["https://a.test/1", "https://a.test/2"];
  const { id, accountId, pages } = await batchJob(urls, 2 * PAGE);
  const [p1, p2] = pages as [(typeof pages)[0], (typeof pages)[0]];

  const first = await record({
    jobId: id,
    pageId: p1.id,
    taskId: "t1",
    reply: { ok: true, result: okResult(p1.url) },
  });
  assert.equal(first.recorded, true);
  assert.equal(first.page?.chargedMicros, PAGE);
  assert.equal(first.job?.completed, 1);
  assert.equal(first.ended, undefined, "a page is still queued: the job goes on");

  const again = await record({
    jobId: id,
    pageId: p1.id,
    taskId: "t1",
    reply: { ok: true, result: okResult(p1.url) },
  });
  assert.equal(again.recorded, false);

  const last = await record({
    jobId: id,
    pageId: p2.id,
    taskId: "t2",
    reply: { ok: false, error: { code: "upstream_failed", message: "refused" } },
  });
  assert.equal(last.recorded, true);
  assert.equal(last.page?.chargedMicros, 0, "a failed page costs nothing");
  assert.equal(last.ended, "completed");
  assert.equal(last.job?.chargedMicros, PAGE);

  const [job] = await db().select().from(schema.jobs).where(eq(schema.jobs.id, id));
  assert.equal(job?.status, "completed");
  assert.equal(job?.chargedMicros, PAGE);
  // Charged once, the rest of the hold refunded at the end.
  assert.equal((await accountBalance(db(), accountId))?.balanceMicros, 100_000 - PAGE);
});

test("a page whose hold has less left than its price is charged what the hold had, on its row and the job's", async () => {
  const urls = ["https://b.test/1", "https://b.test/2"];
  // Room for one and a half pages.
  const { id, pages } = await batchJob(urls, 1_500);
  const [p1, p2] = pages as [(typeof pages)[0], (typeof pages)[0]];
  await record({ jobId: id, pageId: p1.id, taskId: "t1", reply: { ok: true, result: okResult(p1.url) } });
  const short = await record({
    jobId: id,
    pageId: p2.id,
    taskId: "t2",
    reply: { ok: true, result: okResult(p2.url) },
  });
  assert.equal(short.page?.chargedMicros, 500);
  const [row] = await db().select().from(schema.jobPages).where(eq(schema.jobPages.id, p2.id));
  assert.equal(row?.chargedMicros, 500, "the page's row says what was taken, not the price");
  assert.equal(short.job?.chargedMicros, 1_500);
  assert.equal(short.ended, "completed");
});

test("a page whose text holds a NUL or a lone surrogate is recorded, cleaned, not retried forever", async () => {
  const urls = ["https://a.test/nul"];
  const { id, pages } = await batchJob(urls, PAGE);
  const result = okResult(urls[0]!);
  result.data.markdown = "before\u0000after \ud800 end";
  result.metadata.title = "a\u0000title";
  const recorded = await record({
    jobId: id,
    pageId: pages[0]!.id,
    taskId: "t1",
    reply: { ok: true, result },
  });
  assert.equal(recorded.recorded, true);
  const [row] = await db().select().from(schema.jobPages).where(eq(schema.jobPages.id, pages[0]!.id));
  const stored = row?.result as ScrapeResponse;
  assert.equal(stored.data.markdown, "before\ufffdafter \ufffd end");
  assert.equal(stored.metadata.title, "a\ufffdtitle");
});
