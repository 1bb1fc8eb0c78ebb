/**
 * A jobs program killed between claiming a page and publishing its task leaves the page claimed with no
 * task anywhere. The next jobs program sends such tasks again at start, under the same task id, so a
 * task the stream already has (queued, or run and acked) is not queued a second time.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createAccount } from "@browserfleet/billing";
import {
  connectBus,
  decodeJson,
  encodeJson,
  ensureTaskQueue,
  type LocalNats,
  startLocalNats,
  TASK_STREAM,
  TASK_SUBJECT,
  WORKER_CONSUMER,
} from "@browserfleet/bus";
import { loadConfig } from "@browserfleet/config";
import type { PageTask } from "@browserfleet/contracts";
import { schema } from "@browserfleet/db";
import { claimPage, createJob } from "@browserfleet/job-store";
import { jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { asc, eq } from "drizzle-orm";
import { startTestPostgres, type TestPostgres } from "../../../test/helpers/postgres.ts";
import { Dispatcher } from "../src/dispatcher.ts";
import { createJobsMetrics } from "../src/metrics.ts";

let pg: TestPostgres;
let nats: LocalNats;
let nc: NatsConnection;
let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "fleet-resend-"));
  [pg, nats] = await Promise.all([startTestPostgres(), startLocalNats({ dataDir: join(dir, "nats") })]);
  nc = await connectBus({ servers: nats.url, name: "resend-test" });
  await ensureTaskQueue(nc, { maxPending: 1000, ackWaitMs: 30_000 });
});
after(async () => {
  await nc?.close();
  await nats?.stop();
  await pg?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Every task now waiting in the stream, taken off it (acked), in order. */
async function drainTasks(): Promise<PageTask[]> {
  const consumer = await jetstream(nc).consumers.get(TASK_STREAM, WORKER_CONSUMER);
  const tasks: PageTask[] = [];
  for (;;) {
    const msg = await consumer.next({ expires: 1000 });
    if (!msg) return tasks;
    tasks.push(decodeJson<PageTask>(msg.data));
    msg.ack();
  }
}

test("pages claimed before a crash: the unsent task is queued again, a sent or finished one is not", async () => {
  const db = pg.database.db;
  const config = loadConfig({});
  const urls = ["https://resend.test/unsent", "https://resend.test/queued", "https://resend.test/done"];
  const { accountId } = await createAccount(db, { balanceMicros: 1_000_000 });
  await createJob(db, {
    id: "job_resend",
    kind: "batch",
    accountId,
    request: { urls, formats: ["markdown"] },
    holdId: "hold_resend",
    pageMicros: 1000,
    pageLimit: urls.length,
    pages: urls.map((url) => ({ url, urlKey: url, depth: 0 })),
    deadlineAt: new Date(Date.now() + 3_600_000),
    expiresAt: new Date(Date.now() + 7_200_000),
  });
  const pages = await db
    .select()
    .from(schema.jobPages)
    .where(eq(schema.jobPages.jobId, "job_resend"))
    .orderBy(asc(schema.jobPages.id));
  const [unsent, queued, done] = pages.map((p) => p.id);
  const js = jetstream(nc);
  const publish = (pageId: number | undefined, taskId: string) =>
    js.publish(TASK_SUBJECT, encodeJson({ kind: "page", taskId, pageId }), { msgID: taskId });

  // The crash: all three claimed; only two tasks reached the stream, and one of those already ran.
  for (const [pageId, taskId] of [
    [unsent, "task-unsent"],
    [queued, "task-queued"],
    [done, "task-done"],
  ] as const)
    assert.ok(await claimPage(db, pageId as number, taskId));
  await publish(done, "task-done");
  assert.deepEqual(
    (await drainTasks()).map((t) => t.taskId),
    ["task-done"],
    "a worker ran and acked the finished page's task",
  );
  await publish(queued, "task-queued");

  const dispatcher = new Dispatcher({
    config,
    db: pg.database,
    nc,
    metrics: createJobsMetrics(),
    log: () => {},
    failPage: async () => {},
    cachedPage: async () => {},
  });
  assert.equal(await dispatcher.resendClaimed(), 1, "only the task that never reached the stream is sent");

  const tasks = await drainTasks();
  assert.deepEqual(
    tasks.map((t) => t.taskId),
    ["task-queued", "task-unsent"],
    "the queued task is there once, the unsent one now too, the finished one not again",
  );
  const resent = tasks[1] as PageTask;
  assert.equal(resent.pageId, unsent);
  assert.equal(resent.jobId, "job_resend");
  assert.equal(resent.request.url, urls[0]);
  assert.ok(resent.deadline > Date.now(), "it keeps the deadline its claim gave it");

  assert.equal(await dispatcher.resendClaimed(), 0, "a second start sends nothing more");
  assert.deepEqual(await drainTasks(), []);
});

test("with NATS down a round gives up after one page's wait and leaves every page queued; back up, the next round sends them all", async () => {
  const db = pg.database.db;
  // Five hosts: one round may start them all (at most CRAWL_HOST_CONCURRENCY per host).
  const urls = [1, 2, 3, 4, 5].map((i) => `https://down${i}.test/`);
  const { accountId } = await createAccount(db, { balanceMicros: 1_000_000 });
  await createJob(db, {
    id: "job_bus_down",
    kind: "batch",
    accountId,
    request: { urls, formats: ["markdown"] },
    holdId: "hold_bus_down",
    pageMicros: 1000,
    pageLimit: urls.length,
    pages: urls.map((url) => ({ url, urlKey: url, depth: 0 })),
    deadlineAt: new Date(Date.now() + 3_600_000),
    expiresAt: new Date(Date.now() + 7_200_000),
  });
  const logged: string[] = [];
  const dispatcher = new Dispatcher({
    config: loadConfig({}),
    db: pg.database,
    nc,
    metrics: createJobsMetrics(),
    log: (m) => logged.push(m),
    failPage: async () => {},
    cachedPage: async () => {},
  });
  const statuses = async () =>
    (
      await db
        .select({ status: schema.jobPages.status })
        .from(schema.jobPages)
        .where(eq(schema.jobPages.jobId, "job_bus_down"))
    ).map((p) => p.status);

  await nats.stop();
  assert.equal(await dispatcher.round(), 0);
  assert.equal(logged.filter((m) => m.startsWith("could not queue")).length, 1, logged.join("\n"));
  assert.deepEqual(await statuses(), ["queued", "queued", "queued", "queued", "queued"]);

  nats = await startLocalNats({ dataDir: join(dir, "nats"), port: nats.port });
  assert.equal(await dispatcher.round(), 5);
  assert.deepEqual((await statuses()).sort(), Array(5).fill("dispatched"));
  assert.deepEqual((await drainTasks()).map((t) => t.request.url).sort(), urls, "each page's task once");
});
