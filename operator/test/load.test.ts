import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  connectBus,
  ensureTaskQueue,
  freePort,
  type LocalNats,
  openWorkersBucket,
  putWorkerState,
  startLocalNats,
  TASK_SUBJECT,
} from "@browserfleet/bus";
import { jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { listenForDrain } from "../../apps/browser/src/drain.ts";
import { waitFor } from "../../test/helpers/wait-for.ts";
import { drainSubject, LoadSignals } from "../src/load.ts";

describe("load signals from NATS", { timeout: 60_000 }, () => {
  let nats: LocalNats;
  let dir: string;
  let nc: NatsConnection;
  let signals: LoadSignals;
  const seen: string[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "bf-op-load-"));
    nats = await startLocalNats({ dataDir: dir });
    nc = await connectBus({ servers: nats.url, name: "test" });
    signals = new LoadSignals(nats.url);
    await signals.start((what) => seen.push(what));
  });

  after(async () => {
    await signals?.close();
    await nc?.drain().catch(() => {});
    await nats?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("reads zero before anything was ever queued", async () => {
    const load = await signals.read();
    assert.equal(load.pending, 0);
    assert.equal(load.ackPending, 0);
  });

  it("sees the backlog and the workers' states, and is woken by both", async () => {
    await ensureTaskQueue(nc, { maxPending: 100, ackWaitMs: 30_000 });
    const js = jetstream(nc);
    for (let i = 0; i < 3; i++)
      await js.publish(TASK_SUBJECT, new TextEncoder().encode(`{"taskId":"t${i}"}`));
    const kv = await openWorkersBucket(nc);
    await putWorkerState(kv, {
      workerId: "pool-a-browser-1",
      slots: 4,
      busy: 1,
      sessions: 1,
      draining: false,
      updatedAt: Date.now(),
    });
    await nc.flush();
    const load = await signals.read();
    assert.equal(load.pending, 3);
    assert.deepEqual(
      load.workers.map((w) => [w.workerId, w.busy, w.sessions]),
      [["pool-a-browser-1", 1, 1]],
    );
    await waitFor(
      "a wake by the task and one by the worker state",
      () => seen.includes("task") && seen.includes("worker"),
      5_000,
      20,
    );
  });

  it("tells a worker to drain through the worker's own listener, once", async () => {
    let drains = 0;
    const sub = listenForDrain(nc, "pool-a-browser-1", async () => {
      drains++;
    });
    await nc.flush();
    assert.equal(await signals.drain("pool-a-browser-1"), true);
    assert.equal(await signals.drain("pool-a-browser-1"), true);
    assert.equal(drains, 1);
    assert.equal(await signals.drain("nobody-home", 300), false);
    assert.equal(drainSubject("x"), "fleet.workers.x.drain");
    sub.unsubscribe();
  });

  it("keeps trying when NATS is not there yet, and reads once it is", async () => {
    const port = await freePort();
    const late = new LoadSignals(`nats://127.0.0.1:${port}`);
    await late.start(() => {});
    let other: LocalNats | undefined;
    try {
      assert.equal(late.connected(), false);
      await assert.rejects(late.read(), /not connected to NATS/);
      other = await startLocalNats({ dataDir: join(dir, "late"), port });
      await waitFor("the late LoadSignals to connect", () => late.connected(), 10_000, 20);
      assert.equal((await late.read()).pending, 0);
    } finally {
      await late.close();
      await other?.stop();
    }
  });
});
