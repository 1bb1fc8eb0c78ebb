/**
 * The work streams on a real three-server NATS cluster (NATS_STREAM_REPLICAS=3): every stream and the
 * workers bucket keep three copies, and when the server leading the task stream is killed with kill -9,
 * no task is lost, none acked before comes back, and new tasks are taken by the two servers left.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { waitFor } from "../../../test/helpers/wait-for.ts";
import {
  connectBus,
  ensureResultsStream,
  ensureTaskQueue,
  type LocalNatsCluster,
  openWorkersBucket,
  RESULTS_STREAM,
  startLocalNatsCluster,
  TASK_STREAM,
  TASK_SUBJECT,
  WORKER_CONSUMER,
  WORKERS_BUCKET,
} from "../src/index.ts";

describe("the work streams on a three-server NATS cluster", () => {
  let cluster: LocalNatsCluster;
  let dir: string;
  let nc: NatsConnection;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "fleet-cluster-"));
    cluster = await startLocalNatsCluster({ dataDir: dir, size: 3 });
    nc = await connectBus({ servers: cluster.url, name: "test" });
  });
  after(async () => {
    await nc?.close();
    await cluster?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const streamInfo = async (name: string) => (await jetstreamManager(nc)).streams.info(name);
  const encode = (s: string) => new TextEncoder().encode(s);

  /** Publishes a task, again while the stream has no leader; its id keeps a retry from queueing it twice. */
  async function publish(id: string): Promise<void> {
    const js = jetstream(nc);
    await waitFor(`task ${id} accepted`, async () => {
      await js.publish(TASK_SUBJECT, encode(id), { msgID: id, timeout: 2_000 });
      return true;
    });
  }

  /** Takes up to `n` tasks and acks each; their ids. */
  async function take(n: number): Promise<string[]> {
    const out: string[] = [];
    // A fetch that fails (no leader for the stream or its consumer yet) is tried again.
    await waitFor(`${n} tasks taken (${out.length} so far)`, async () => {
      const consumer = await jetstream(nc).consumers.get(TASK_STREAM, WORKER_CONSUMER);
      const batch = await consumer.fetch({ max_messages: n - out.length, expires: 1_000 });
      for await (const m of batch) {
        await m.ackAck();
        out.push(new TextDecoder().decode(m.data));
      }
      return out.length >= n;
    });
    return out;
  }

  it("keeps every stream and the workers bucket on all three servers", async () => {
    await ensureTaskQueue(nc, { maxPending: 100, ackWaitMs: 5_000, replicas: 3 });
    await ensureResultsStream(nc, { ackWaitMs: 5_000, replicas: 3 });
    await openWorkersBucket(nc, 3);
    for (const name of [TASK_STREAM, RESULTS_STREAM, `KV_${WORKERS_BUCKET}`]) {
      const info = await streamInfo(name);
      assert.equal(info.config.num_replicas, 3, name);
      assert.equal(info.cluster?.replicas?.length, 2, `${name}: a leader and two followers`);
    }
    const consumer = await (await jetstreamManager(nc)).consumers.info(TASK_STREAM, WORKER_CONSUMER);
    assert.equal(consumer.cluster?.replicas?.length, 2, "the workers' consumer is kept on three servers too");
  });

  it("loses no task and runs none twice when the task stream's leader is killed", async () => {
    const before = Array.from({ length: 10 }, (_, i) => `task-a${i}`);
    for (const id of before) await publish(id);
    const done = await take(4);
    assert.deepEqual(done, before.slice(0, 4));

    const leader = (await streamInfo(TASK_STREAM)).cluster?.leader;
    const index = cluster.servers.findIndex((_, i) => `n${i}` === leader);
    assert.ok(index >= 0, `the leader (${leader}) is one of ours`);
    cluster.servers[index]?.kill();

    const during = Array.from({ length: 10 }, (_, i) => `task-b${i}`);
    for (const id of during) await publish(id);
    // A JetStream API request may time out while the cluster settles: asked again.
    const newLeader = await waitFor(
      "the stream's info",
      async () => (await streamInfo(TASK_STREAM)).cluster?.leader,
    );
    assert.notEqual(newLeader, leader, "another server leads the stream");

    const rest = await take(16);
    assert.deepEqual(rest.sort(), [...before.slice(4), ...during].sort(), "each task not yet done, once");
    const again = await waitFor("a last fetch", async () => {
      const consumer = await jetstream(nc).consumers.get(TASK_STREAM, WORKER_CONSUMER);
      const ids: string[] = [];
      for await (const m of await consumer.fetch({ max_messages: 10, expires: 1_000 }))
        ids.push(new TextDecoder().decode(m.data));
      return ids;
    });
    assert.deepEqual(again, [], "no task comes again");

    // The killed server comes back on its data and catches up: three current copies again.
    await cluster.restart(index);
    await waitFor("the restarted server current again", async () => {
      const info = await streamInfo(TASK_STREAM);
      return info.cluster?.replicas?.length === 2 && info.cluster.replicas.every((r) => r.current);
    });
  });
});
