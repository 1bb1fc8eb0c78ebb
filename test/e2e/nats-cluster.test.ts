/**
 * The stack on a three-server NATS cluster with its work streams at three replicas (NATS_STREAM_REPLICAS=3),
 * as the chart runs it: the server leading the task stream is killed with kill -9 while keyed callers
 * scrape, a caller runs sessions with acts and a crawl runs. The two servers left carry on: calls made after the kill are answered, the
 * crawl completes with every page once and charged once, and each account paid exactly what its answers
 * were charged. The error rate and p99 latency of the run are printed with the test.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type RunningApi, startApi } from "@browserfleet/api";
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
import { type JobsProgram, startJobs } from "@browserfleet/jobs";
import { jetstreamManager } from "@nats-io/jetstream";
import { type FixtureSite, startFixtureSite } from "../fixture-site/server.ts";
import { type PaidLoad, paidLoad, report, settleMixed } from "../helpers/paid-load.ts";
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
  let killedAt = 0;
  let killed = -1;
  // Keyed scrapes, a caller running sessions with acts, and a crawl of 40 pages started before the kill.
  const run = await load.underMixedLoad(
    api,
    accounts,
    async () => {
      const leader = (await streams())[0]?.cluster?.leader;
      killed = cluster.servers.findIndex((_, i) => `n${i}` === leader);
      assert.ok(killed >= 0, `the task stream's leader (${leader}) is one of the cluster's`);
      killedAt = performance.now();
      cluster.servers[killed]?.kill();
    },
    { sessionCallers: 1, crawlPages: 40 },
    8_000,
  );
  report(t, "NATS server kill -9 (of 3)", run.outcomes);
  const rendered = run.outcomes.filter((o) => o.kind === undefined && !o.cached && o.started > killedAt);
  assert.ok(
    rendered.some((o) => o.status === 200),
    "pages rendered after the kill are answered: the two servers left carry the work",
  );
  // An act is a request to the session's worker, not a stream message: when the killed server was the api's
  // own, an act in flight (or sent before the api reconnects to another) answers 503 unavailable at once,
  // nothing charged and the session kept (BusDrops). Every other call waits for the stream's new leader.
  assert.deepEqual(
    run.outcomes.filter((o) => o.code === "unavailable" && o.kind !== "act").map((o) => o.requestId),
    [],
    "no scrape, crawl or session open is refused as unavailable: the stream's new leader is waited for",
  );
  assert.ok(
    run.outcomes.some((o) => o.kind === "act" && o.status === 200 && o.started > killedAt),
    "sessions are acted on after the kill",
  );
  // The crawl completes with every page once, charged once; every session is closed and its minutes
  // charged. (Before the ledger check, which refunds every hold still open as if its time had run out.)
  const outcomes = await settleMixed(pg.database, api, run);

  // The load's api is closed so its balance leases are written and given back before the ledger is read.
  await api.close(10_000);
  await load.assertReconciled(run.accounts, outcomes, "NATS server kill -9");

  // The killed server comes back on its data and catches up.
  await cluster.restart(killed);
  await waitFor("three current copies of every stream again", async () =>
    (await streams()).every(
      (s) => s.cluster?.replicas?.every((r) => r.current) && s.cluster.replicas.length === 2,
    ),
  );
});
