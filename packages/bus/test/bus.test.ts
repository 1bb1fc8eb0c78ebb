import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { NatsConnection } from "@nats-io/transport-node";
import { waitFor } from "../../../test/helpers/wait-for.ts";
import {
  connectBus,
  ensureTaskQueue,
  type LocalNats,
  listWorkers,
  openWorkersBucket,
  putWorkerState,
  QueueFullError,
  queueTask,
  startLocalNats,
  startSlotLoops,
  TaskTimeoutError,
  taskBacklog,
} from "../src/index.ts";

interface Echo {
  taskId: string;
  value: number;
  deadline?: number;
}

describe("task queue on a real nats-server", () => {
  let nats: LocalNats;
  let dir: string;
  let nc: NatsConnection;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "fleet-bus-"));
    nats = await startLocalNats({ dataDir: dir });
    nc = await connectBus({ servers: nats.url, name: "test" });
    await ensureTaskQueue(nc, { maxPending: 5, ackWaitMs: 5000 });
  });
  after(async () => {
    await nc.close();
    await nats.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** A generic task through the queue, its reply read as it is. */
  const echo = <R>(task: Echo, timeoutMs: number) =>
    queueTask<R>(nc, task, timeoutMs, {}, (data) => JSON.parse(new TextDecoder().decode(data)) as R);

  const common = {
    admit: (data: Uint8Array) => ({ task: JSON.parse(new TextDecoder().decode(data)) as Echo }),
    ackWaitMs: 5000,
    maxPayload: 1 << 20,
    tooLarge: (): never => {
      throw new Error("too large");
    },
  };

  it("delivers a task to a worker and its reply to the waiting caller", async () => {
    const loops = startSlotLoops<Echo, { doubled: number }>(nc, {
      ...common,
      slots: 1,
      handle: async (t) => ({ doubled: t.value * 2 }),
    });
    const reply = await echo<{ doubled: number }>({ taskId: "t1", value: 21 }, 5000);
    assert.deepEqual(reply, { doubled: 42 });
    await loops.drain();
  });

  it("never runs more tasks at once than the worker has slots", async () => {
    let running = 0;
    let peak = 0;
    const loops = startSlotLoops<Echo, number>(nc, {
      ...common,
      slots: 2,
      handle: async (t) => {
        running++;
        peak = Math.max(peak, running);
        // The task's own work (100 ms of it), so that tasks overlap if the loops let them; not a wait.
        await new Promise((r) => setTimeout(r, 100));
        running--;
        return t.value;
      },
    });
    const replies = await Promise.all(
      [1, 2, 3, 4, 5].map((v) => echo<number>({ taskId: `p${v}`, value: v }, 10_000)),
    );
    assert.deepEqual(replies, [1, 2, 3, 4, 5]);
    assert.equal(peak, 2);
    await loops.drain();
  });

  it("refuses new tasks when the queue is full, and times out a task nobody takes", async () => {
    const waits = [1, 2, 3, 4, 5].map((v) =>
      echo<number>({ taskId: `full${v}`, value: v }, 300).catch((e) => e),
    );
    await waitFor(
      "the five tasks to be queued",
      async () => (await taskBacklog(nc)).pending === 5,
      5_000,
      10,
    );
    await assert.rejects(echo<number>({ taskId: "full6", value: 6 }, 300), QueueFullError);
    const results = await Promise.all(waits);
    for (const r of results) assert.ok(r instanceof TaskTimeoutError);
    assert.equal((await taskBacklog(nc)).pending, 5);
    // A worker drops tasks whose deadline passed instead of doing work nobody waits for.
    const handled: number[] = [];
    const expired: number[] = [];
    const loops = startSlotLoops<Echo, number>(nc, {
      ...common,
      slots: 1,
      deadlineOf: (t) => t.deadline ?? 0,
      onExpired: (t) => expired.push(t.value),
      handle: async (t) => {
        handled.push(t.value);
        return t.value;
      },
    });
    await waitFor("the worker to drop the five expired tasks", () => expired.length === 5, 10_000, 20);
    assert.deepEqual(handled, []);
    await loops.drain();
  });

  it("publishes worker state with a TTL", async () => {
    const kv = await openWorkersBucket(nc);
    await putWorkerState(kv, {
      workerId: "w1",
      slots: 4,
      busy: 1,
      sessions: 0,
      draining: false,
      updatedAt: Date.now(),
    });
    await putWorkerState(kv, {
      workerId: "w0",
      slots: 4,
      busy: 0,
      sessions: 0,
      draining: false,
      updatedAt: 0,
    });
    // A worker of another version, and an entry that is not JSON: neither is counted as capacity.
    await kv.put("w2", JSON.stringify({ workerId: "w2", slots: "four", updatedAt: Date.now() }));
    await kv.put("w3", "not json");
    const live = await listWorkers(nc, kv);
    assert.deepEqual(
      live.map((w) => w.workerId),
      ["w1"],
    );
  });
});
