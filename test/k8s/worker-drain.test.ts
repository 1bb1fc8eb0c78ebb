/**
 * The drain hook of the real browser worker (Chromium, NATS): the operator's drain request, as sent before
 * a scale-down, makes the worker stop pulling tasks, publish `draining` and fail its readiness probe.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type BrowserWorker, findChromium, startBrowserWorker } from "@browserfleet/browser";
import {
  connectBus,
  type LocalNats,
  listWorkers,
  openWorkersBucket,
  startLocalNats,
  TASK_STREAM,
  TASK_SUBJECT,
  WORKER_CONSUMER,
} from "@browserfleet/bus";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { LoadSignals } from "../../operator/src/load.ts";
import { waitFor } from "../helpers/kube.ts";

let noChromium: string | undefined;
try {
  if (!findChromium()) noChromium = "Chromium is not installed";
} catch (err) {
  noChromium = (err as Error).message;
}

describe("browser worker drain hook", { skip: noChromium, timeout: 120_000 }, () => {
  let dir: string;
  let nats: LocalNats;
  let nc: NatsConnection;
  let worker: BrowserWorker;
  let signals: LoadSignals;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "bf-drain-"));
    nats = await startLocalNats({ dataDir: dir });
    worker = await startBrowserWorker({
      natsUrl: nats.url,
      slots: 2,
      ackWaitMs: 30_000,
      queueMax: 100,
      workerId: "pool-browser-7d9f-x2k4q",
      metricsPort: 0,
    });
    nc = await connectBus({ servers: nats.url, name: "drain-test" });
    signals = new LoadSignals(nats.url);
    await signals.start(() => {});
  });

  after(async () => {
    await signals?.close();
    await worker?.stop();
    await nc?.close();
    await nats?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("uses the pod name as its worker id and stops pulling when the operator asks", async () => {
    const healthz = worker.metricsUrl!.replace("/metrics", "/healthz");
    assert.equal((await fetch(healthz)).status, 200);
    const kv = await openWorkersBucket(nc);
    const before = await listWorkers(nc, kv);
    assert.deepEqual(
      before.map((w) => [w.workerId, w.draining]),
      [["pool-browser-7d9f-x2k4q", false]],
    );

    assert.equal(await signals.drain("pool-browser-7d9f-x2k4q"), true);
    const states = await waitFor("the worker to publish draining", async () => {
      const ws = await listWorkers(nc, kv);
      return ws[0]?.draining ? ws : undefined;
    });
    assert.equal(states[0]!.busy, 0);
    assert.equal((await fetch(healthz)).status, 503, "readiness fails while draining");

    // Its pull requests run out and are not renewed: a new task stays in the queue.
    const jsm = await jetstreamManager(nc);
    await waitFor(
      "no pull request left",
      async () => (await jsm.consumers.info(TASK_STREAM, WORKER_CONSUMER)).num_waiting === 0,
      15_000,
    );
    await jetstream(nc).publish(
      TASK_SUBJECT,
      new TextEncoder().encode('{"taskId":"after-drain","kind":"scrape"}'),
    );
    const info = await jsm.consumers.info(TASK_STREAM, WORKER_CONSUMER);
    assert.equal(info.num_pending, 1);
    assert.equal(info.num_ack_pending, 0);
  });
});
