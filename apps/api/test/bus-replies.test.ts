import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  connectBus,
  ensureTaskQueue,
  type LocalNats,
  type SlotLoops,
  startLocalNats,
  startSlotLoops,
} from "@browserfleet/bus";
import { type ScrapeTask, scrapeRequest, sessionActReply } from "@browserfleet/contracts";
import type { NatsConnection } from "@nats-io/transport-node";
import { readReply } from "../src/bus-replies.ts";
import type { ApiContext } from "../src/context.ts";
import { ApiError } from "../src/errors.ts";
import { createApiMetrics } from "../src/metrics.ts";
import { sendBrowserTask } from "../src/operations/shared.ts";

const newMetrics = () =>
  createApiMetrics({
    backlog: async () => ({ pending: 0, ackPending: 0 }),
    slots: () => ({ total: 0, busy: 0, workers: 0, sessions: 0 }),
  });

async function malformedCount(metrics: ReturnType<typeof newMetrics>, kind: string): Promise<number> {
  const { values } = await metrics.malformedMessages.get();
  return values.find((v) => v.labels.kind === kind)?.value ?? 0;
}

const bytes = (v: unknown) => new TextEncoder().encode(typeof v === "string" ? v : JSON.stringify(v));

describe("a reply the api cannot read", () => {
  it("on a session subject: a 500 internal that names the fields at fault, counted by kind", async () => {
    const metrics = newMetrics();
    const ok = { ok: false, error: { code: "session_lost", message: "gone" } };
    assert.deepEqual(readReply(metrics, sessionActReply, "act", "act", bytes(ok)), ok);
    for (const data of [bytes({ ok: true, result: { success: true } }), bytes("<html>")]) {
      assert.throws(
        () => readReply(metrics, sessionActReply, "act", "act", data),
        (err) =>
          err instanceof ApiError &&
          err.status === 500 &&
          err.code === "internal" &&
          /^a browser worker answered the act with a reply this api cannot read \(/.test(err.message),
      );
    }
    assert.equal(await malformedCount(metrics, "act"), 2);
  });

  describe("to a task on the queue (a real nats-server, a worker of another version)", () => {
    let nats: LocalNats;
    let dir: string;
    let nc: NatsConnection;
    let loops: SlotLoops;
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), "fleet-replies-"));
      nats = await startLocalNats({ dataDir: dir });
      nc = await connectBus({ servers: nats.url, name: "test" });
      await ensureTaskQueue(nc, { maxPending: 10, ackWaitMs: 5000 });
      // Answers every scrape with a result that has no metadata.
      loops = startSlotLoops<unknown, unknown>(nc, {
        slots: 1,
        ackWaitMs: 5000,
        maxPayload: 1 << 20,
        tooLarge: () => ({}),
        admit: (data) => ({ task: JSON.parse(new TextDecoder().decode(data)) }),
        handle: async () => ({ ok: true, result: { success: true, data: { markdown: "# x" }, errors: {} } }),
      });
    });
    after(async () => {
      await loops.drain();
      await nc.close();
      await nats.stop();
      await rm(dir, { recursive: true, force: true });
    });

    it("is a 500 internal of the interface's error shape, counted by kind, never a crash", async () => {
      const metrics = newMetrics();
      const ctx = { nc, metrics, workers: { anyAlive: async () => true } } as unknown as ApiContext;
      const task: ScrapeTask = {
        kind: "scrape",
        taskId: "s-1",
        requestId: "r",
        deadline: Date.now() + 5000,
        request: scrapeRequest.parse({ url: "https://example.com/" }),
      };
      await assert.rejects(sendBrowserTask(ctx, task, 5000, "scrape"), (err) => {
        assert.ok(err instanceof ApiError);
        assert.equal(err.status, 500);
        assert.equal(err.code, "internal");
        assert.equal(
          err.message,
          "a browser worker answered the scrape with a reply this api cannot read (malformed scrape reply: result.metadata: Invalid input: expected object, received undefined); nothing was charged; try again",
        );
        return true;
      });
      assert.equal(await malformedCount(metrics, "scrape"), 1);
    });
  });
});
