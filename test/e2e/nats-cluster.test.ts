/**
 * The stack on a three-server NATS cluster with its work streams at three replicas (NATS_STREAM_REPLICAS=3),
 * as the chart runs it: the server leading the task stream is killed with kill -9 while keyed callers
 * scrape and a crawl runs. The two servers left carry on: calls made after the kill are answered, the
 * crawl completes with every page once and charged once, and each account paid exactly what its answers
 * were charged. The error rate and p99 latency of the run are printed with the test.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type RunningApi, startApi } from "@browserfleet/api";
import { createAccount, issueKey } from "@browserfleet/billing";
import { type BrowserWorker, startBrowserWorker } from "@browserfleet/browser";
import {
  connectBus,
  type LocalNatsCluster,
  RESULTS_STREAM,
  startLocalNatsCluster,
  TASK_STREAM,
  WORKERS_BUCKET,
} from "@browserfleet/bus";
import { loadConfig } from "@browserfleet/config";
import { schema } from "@browserfleet/db";
import { type JobsProgram, startJobs } from "@browserfleet/jobs";
import { jetstreamManager } from "@nats-io/jetstream";
import { sql } from "drizzle-orm";
import { type FixtureSite, startFixtureSite } from "../fixture-site/server.ts";
import { type PaidLoad, paidCall, paidLoad, report } from "../helpers/paid-load.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";
import { waitFor } from "../helpers/wait-for.ts";

const ALLOW = "127.0.0.1/32";
let dir: string;
let site: FixtureSite;
let cluster: LocalNatsCluster;
let pg: TestPostgres;
let api: RunningApi;
let worker: BrowserWorker;
let jobs: JobsProgram;
let load: PaidLoad;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "fleet-nats-cluster-"));
  site = await startFixtureSite();
  [cluster, pg] = await Promise.all([
    startLocalNatsCluster({ dataDir: join(dir, "nats"), size: 3 }),
    startTestPostgres(),
  ]);
  const config = loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    FLEET_ALLOW_PRIVATE: ALLOW,
    DATA_DIR: join(dir, "data"),
    NATS_STREAM_REPLICAS: "3",
    // A task held by a worker whose reply was cut comes back soon.
    TASK_ACK_WAIT_MS: "5000",
  });
  worker = await startBrowserWorker({
    natsUrl: cluster.url,
    slots: 3,
    ackWaitMs: config.TASK_ACK_WAIT_MS,
    queueMax: 200,
    allowPrivate: ALLOW,
    metricsPort: 0,
    streamReplicas: 3,
  });
  jobs = await startJobs({
    config,
    natsUrl: cluster.url,
    databaseUrl: pg.url,
    metricsPort: 0,
    log: () => {},
  });
  api = await startApi({ ...config, NATS_URL: cluster.url, DATABASE_URL: pg.url });
  load = paidLoad(pg.database, site.url);
});

after(async () => {
  await api?.close();
  await jobs?.stop();
  await worker?.stop();
  await cluster?.stop();
  await pg?.stop();
  await site?.close();
  await rm(dir, { recursive: true, force: true });
});

async function streams() {
  const nc = await connectBus({ servers: cluster.url, name: "test" });
  try {
    const jsm = await jetstreamManager(nc);
    return await Promise.all(
      [TASK_STREAM, RESULTS_STREAM, `KV_${WORKERS_BUCKET}`].map((name) => jsm.streams.info(name)),
    );
  } finally {
    await nc.close();
  }
}

test("the api, the jobs program and the worker keep their streams on all three servers", async () => {
  for (const info of await streams()) {
    assert.equal(info.config.num_replicas, 3, info.config.name);
    assert.equal(info.cluster?.replicas?.length, 2, `${info.config.name}: a leader and two followers`);
  }
});

test("the task stream's leader killed with kill -9 under paid load and mid-crawl: calls go on, the crawl completes with each page once, the ledger reconciles", async (t) => {
  const accounts = await load.newAccounts(3);
  const { accountId: crawler } = await createAccount(pg.database.db, { balanceMicros: 1_000_000 });
  const { key } = await issueKey(pg.database.db, crawler, "crawl");
  const crawl = await paidCall(api.url, { key, accountId: crawler }, "/web/v1/crawl", {
    url: `${site.url}/crawl/gen/0?ms=100`,
    limit: 40,
  });
  assert.equal(crawl.outcome.status, 200, JSON.stringify(crawl.body));

  let killedAt = 0;
  let killed = -1;
  const outcomes = await load.underLoad(
    api,
    accounts,
    async () => {
      const leader = (await streams())[0]?.cluster?.leader;
      killed = cluster.servers.findIndex((_, i) => `n${i}` === leader);
      assert.ok(killed >= 0, `the task stream's leader (${leader}) is one of the cluster's`);
      killedAt = performance.now();
      cluster.servers[killed]?.kill();
    },
    8_000,
  );
  report(t, "NATS server kill -9 (of 3)", outcomes);
  const rendered = outcomes.filter((o) => !o.cached && o.started > killedAt);
  assert.ok(
    rendered.some((o) => o.status === 200),
    "pages rendered after the kill are answered: the two servers left carry the work",
  );
  assert.deepEqual(
    outcomes.filter((o) => o.code === "unavailable").map((o) => o.requestId),
    [],
    "no call is refused as unavailable: the stream's new leader is waited for",
  );
  // The crawl, read from the database: every page once, each charged once. (Before the ledger check,
  // which refunds every hold still open as if its time had run out.)
  const done = await waitFor(
    "the crawl to complete",
    async () => {
      const [job] = await pg.database.db
        .select()
        .from(schema.jobs)
        .where(sql`${schema.jobs.id} = ${crawl.body.jobId}`);
      assert.equal(job?.status, "completed", `the crawl: ${JSON.stringify(job)}`);
      return job;
    },
    120_000,
  );
  const pages = await pg.database.db
    .select({ url: schema.jobPages.url })
    .from(schema.jobPages)
    .where(sql`${schema.jobPages.jobId} = ${crawl.body.jobId} and ${schema.jobPages.status} = 'completed'`);
  assert.equal(pages.length, 40);
  assert.equal(new Set(pages.map((p) => p.url)).size, 40, "every page once");
  const [captured] = await pg.database.db
    .select({ n: sql<number>`count(*)::int` })
    .from(schema.ledgerEntries)
    .where(sql`${schema.ledgerEntries.holdId} = ${done.holdId} and kind = 'capture'`);
  assert.equal(captured?.n, 40, "one capture per page");

  // The load's api is closed so its balance leases are written and given back before the ledger is read.
  await api.close(10_000);
  await load.assertReconciled(accounts, outcomes, "NATS server kill -9");

  // The killed server comes back on its data and catches up.
  await cluster.restart(killed);
  await waitFor("three current copies of every stream again", async () =>
    (await streams()).every(
      (s) => s.cluster?.replicas?.every((r) => r.current) && s.cluster.replicas.length === 2,
    ),
  );
});
