/**
 * Nothing is lost when a process dies: the jobs program and a browser worker run as child processes so
 * they can be killed -9 mid-crawl; the api and NATS are restarted mid-crawl too. Each crawl has a webhook,
 * whose receiver must get every event once (after dedupe by webhook-id), in order, verified.
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type RunningApi, startApi } from "@browserfleet/api";
import { createAccount, issueKey } from "@browserfleet/billing";
import { type LocalNats, startLocalNats } from "@browserfleet/bus";
import { type Config, loadConfig } from "@browserfleet/config";
import { schema } from "@browserfleet/db";
import { eq, sql } from "drizzle-orm";
import { type FixtureSite, startFixtureSite } from "../fixture-site/server.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";
import { killHard, spawnProgram } from "../helpers/programs.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";

// biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the route answered
type Json = any;

const ALLOW = "127.0.0.1/32";
/** Short, so a task held by a killed worker comes back quickly; every process must agree on it. */
const ACK_WAIT = "4000";
let dir: string;
let site: FixtureSite;
let nats: LocalNats;
let pg: TestPostgres;
let config: Config;
let api: RunningApi;
let jobs: ChildProcess | undefined;
let worker: ChildProcess | undefined;

const env = () => ({
  NATS_URL: nats.url,
  DATABASE_URL: pg.url,
  FLEET_ALLOW_PRIVATE: ALLOW,
  TASK_ACK_WAIT_MS: ACK_WAIT,
  JOBS_METRICS_PORT: "0",
  BROWSER_METRICS_PORT: "0",
  BROWSER_SLOTS: "3",
  // One sealing key (kept there) for the api and every jobs program: the webhook secret opens in each.
  DATA_DIR: join(dir, "data"),
  // A delivery a killed jobs program held is taken again after twice this (plus 5 s).
  WEBHOOK_TIMEOUT_MS: "2000",
  WEBHOOK_RETRY_BASE_MS: "200",
});
const spawnJobs = async () => {
  jobs = await spawnProgram("apps/jobs/src/main.ts", env(), /jobs program running/);
};
const spawnWorker = async () => {
  worker = await spawnProgram("apps/browser/src/main.ts", env(), /browser worker .* slots/);
};

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "fleet-durable-"));
  site = await startFixtureSite();
  [nats, pg] = await Promise.all([startLocalNats({ dataDir: join(dir, "nats") }), startTestPostgres()]);
  config = loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    FLEET_ALLOW_PRIVATE: ALLOW,
    TASK_ACK_WAIT_MS: ACK_WAIT,
    DATA_DIR: join(dir, "data"),
  });
  api = await startApi({ ...config, NATS_URL: nats.url, DATABASE_URL: pg.url });
  await Promise.all([spawnJobs(), spawnWorker()]);
});

const receivers: Receiver[] = [];
after(async () => {
  for (const r of receivers) await r.close();
  for (const c of [jobs, worker]) if (c) await killHard(c);
  await api?.close();
  await nats?.stop();
  await pg?.stop();
  await site?.close();
  await rm(dir, { recursive: true, force: true });
});

async function newKey(micros: number) {
  const { accountId } = await createAccount(pg.database.db, { balanceMicros: micros });
  const { key } = await issueKey(pg.database.db, accountId, "durable");
  return { key, accountId };
}

async function call(
  method: string,
  path: string,
  key: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const res = await fetch(api.url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json() };
}

/** The job's status once `done` holds for it (a call that fails, while a program restarts, is asked again). */
function waitForJob(
  path: string,
  key: string,
  done: (b: Json) => boolean,
  timeoutMs = 120_000,
): Promise<Json> {
  return waitFor(
    `the job at ${path} to reach the awaited state`,
    async () => {
      const r = await call("GET", `${path}?limit=200`, key);
      assert.ok(r.status === 200 && done(r.body), `last: ${JSON.stringify(r.body).slice(0, 400)}`);
      return r.body;
    },
    timeoutMs,
    100,
  );
}
const ended = (b: Json) => !["queued", "running"].includes(b.status);

/** Every result of a job, following next until the end. */
async function allResults(path: string, key: string): Promise<Json[]> {
  const out: Json[] = [];
  let cursor = "";
  for (;;) {
    const r = await call("GET", `${path}?limit=37${cursor ? `&cursor=${cursor}` : ""}`, key);
    out.push(...r.body.data);
    if (r.body.next === null) return out;
    cursor = r.body.next;
  }
}

/** A receiver holding the account's webhook secret. */
async function receiverFor(key: string): Promise<Receiver> {
  const secret = (await call("GET", "/web/v1/account/webhook-secret", key)).body.secret;
  const r = await startReceiver([secret]);
  receivers.push(r);
  return r;
}

/** Every event of the job came once after dedupe, verified, in order: started, each page, completed. */
async function assertEveryEvent(receiver: Receiver, pages: number) {
  const events = await waitFor(
    "the job.completed event",
    async () => {
      const e = receiver.events();
      assert.equal(e.at(-1)?.type, "job.completed", `${e.length} events so far`);
      return e;
    },
    60_000,
    100,
  );
  assert.equal(events[0]?.type, "job.started");
  const pageEvents = events.filter((e) => e.type === "job.page");
  assert.equal(pageEvents.length, pages, "one job.page per page");
  assert.equal(new Set(pageEvents.map((e) => e.data.page.url)).size, pages);
  assert.deepEqual(
    pageEvents.map((e) => e.data.completed + e.data.failed),
    pageEvents.map((_, i) => i + 1),
    "in the order the pages were recorded",
  );
  assert.equal(events.length, pages + 2);
  assert.ok(
    events.every((e) => e.verifiedBy.length === 1),
    "each verifies with the account's secret",
  );
}

async function assertChargedOncePerPage(
  jobId: string,
  accountId: string,
  pages: number,
  startMicros: number,
) {
  const db = pg.database.db;
  const [job] = await db.select().from(schema.jobs).where(eq(schema.jobs.id, jobId));
  const [captured] = await db
    .select({ n: sql<number>`count(*)::int`, micros: sql<number>`coalesce(sum(-held_micros), 0)::int` })
    .from(schema.ledgerEntries)
    .where(sql`${schema.ledgerEntries.holdId} = ${job?.holdId} and kind = 'capture'`);
  assert.equal(captured?.n, pages, "one capture per page");
  assert.equal(captured?.micros, pages * 1_000);
  const [acct] = await db.select().from(schema.accounts).where(eq(schema.accounts.id, accountId));
  assert.equal(acct?.balanceMicros, startMicros - pages * 1_000, "the rest of the hold came back");
}

test("kill -9 of the jobs program and a browser worker mid-crawl: the crawl completes, every page once, charged once", async () => {
  const { key, accountId } = await newKey(1_000_000);
  const receiver = await receiverFor(key);
  const start = await call("POST", "/web/v1/crawl", key, {
    url: `${site.url}/crawl/gen/0?ms=150`,
    limit: 100,
    maxDepth: 2,
    webhook: { url: receiver.url },
  });
  assert.equal(start.status, 200, JSON.stringify(start.body));
  await waitForJob(start.body.url, key, (b) => b.completed >= 15);
  await Promise.all([killHard(jobs as ChildProcess), killHard(worker as ChildProcess)]);
  const frozen = (await call("GET", start.body.url, key)).body;
  assert.equal(frozen.status, "running", "the api still answers while they are down");
  // An outage of half a second (real time, not a condition): nothing is waited for here.
  await new Promise((res) => setTimeout(res, 500));
  await Promise.all([spawnJobs(), spawnWorker()]);
  const done = await waitForJob(start.body.url, key, ended);
  assert.equal(done.status, "completed");
  assert.equal(done.total, 100);
  assert.equal(done.completed, 100);
  const results = await allResults(start.body.url, key);
  assert.equal(results.length, 100);
  assert.equal(new Set(results.map((r) => r.url)).size, 100, "every page appears exactly once");
  await assertChargedOncePerPage(start.body.jobId, accountId, 100, 1_000_000);
  await assertEveryEvent(receiver, 100);
});

test("restarting the api mid-crawl: status is still served, by the new api", async () => {
  const { key } = await newKey(1_000_000);
  const receiver = await receiverFor(key);
  const start = await call("POST", "/web/v1/crawl", key, {
    url: `${site.url}/crawl/gen/0?ms=100`,
    limit: 30,
    webhook: { url: receiver.url },
  });
  await waitForJob(start.body.url, key, (b) => b.completed >= 3);
  await api.close();
  api = await startApi({ ...config, NATS_URL: nats.url, DATABASE_URL: pg.url });
  const mid = await call("GET", start.body.url, key);
  assert.equal(mid.status, 200);
  const done = await waitForJob(start.body.url, key, ended);
  assert.equal(done.status, "completed");
  assert.equal(done.completed, 30);
  await assertEveryEvent(receiver, 30);
});

test("restarting NATS mid-crawl: the job resumes and completes, pages once", async () => {
  const { key, accountId } = await newKey(1_000_000);
  const receiver = await receiverFor(key);
  const start = await call("POST", "/web/v1/crawl", key, {
    url: `${site.url}/crawl/gen/0?ms=150`,
    limit: 40,
    webhook: { url: receiver.url },
  });
  await waitForJob(start.body.url, key, (b) => b.completed >= 5);
  await nats.stop();
  // An outage of half a second (real time, not a condition): nothing is waited for here.
  await new Promise((res) => setTimeout(res, 500));
  nats = await startLocalNats({ dataDir: join(dir, "nats"), port: nats.port });
  const done = await waitForJob(start.body.url, key, ended);
  assert.equal(done.status, "completed");
  assert.equal(done.completed, 40);
  const results = await allResults(start.body.url, key);
  assert.equal(new Set(results.map((r) => r.url)).size, 40);
  await assertChargedOncePerPage(start.body.jobId, accountId, 40, 1_000_000);
  await assertEveryEvent(receiver, 40);
});

test("fairness: a small batch started behind a large crawl finishes long before it", async () => {
  const { key } = await newKey(1_000_000);
  const crawl = await call("POST", "/web/v1/crawl", key, {
    url: `${site.url}/crawl/gen/0?ms=300`,
    limit: 80,
    maxDepth: 2,
  });
  await waitForJob(crawl.body.url, key, (b) => b.status === "running");
  const batch = await call("POST", "/web/v1/scrape/batch", key, {
    urls: [`${site.url}/article`, `${site.url}/page2`, `${site.url}/links`],
  });
  const small = await waitForJob(batch.body.url, key, ended);
  assert.equal(small.status, "completed");
  const big = (await call("GET", crawl.body.url, key)).body;
  assert.equal(big.status, "running", `the crawl had ${big.completed} of 80 pages when the batch ended`);
  assert.ok(big.completed < 60);
  await call("DELETE", crawl.body.url, key);
});
