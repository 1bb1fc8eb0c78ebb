import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  connectBus,
  ensureTaskQueue,
  type LocalNats,
  queueTask,
  REPLY_HEADER,
  runTask,
  type SlotLoops,
  startLocalNats,
  startSlotLoops,
  TASK_SUBJECT,
  taskBacklog,
} from "@browserfleet/bus";
import type { BrowserTask } from "@browserfleet/contracts";
import { jetstream } from "@nats-io/jetstream";
import { createInbox, headers, type NatsConnection } from "@nats-io/transport-node";
import { createBrowserMetrics } from "../src/metrics.ts";
import {
  type AnyReply,
  admitTasks,
  dispatchTask,
  readTask,
  type TaskHandlers,
} from "../src/tasks/dispatch.ts";

const bytes = (v: unknown) => new TextEncoder().encode(typeof v === "string" ? v : JSON.stringify(v));
const envelope = () => ({ taskId: `t-${Math.random()}`, requestId: "r", deadline: Date.now() + 10_000 });

async function refusedCount(metrics: ReturnType<typeof createBrowserMetrics>, kind: string, reason: string) {
  const { values } = await metrics.tasksRefused.get();
  return values.find((v) => v.labels.kind === kind && v.labels.reason === reason)?.value ?? 0;
}

describe("a task the worker cannot read", () => {
  it("is refused with an error reply that says why, and is never run", () => {
    const notJson = readTask(bytes("{kind:"));
    assert.ok("refused" in notJson);
    assert.equal(notJson.refusal?.reason, "not_json");
    assert.deepEqual(!notJson.refused.ok && notJson.refused.error.code, "internal");
    assert.match(!notJson.refused.ok ? notJson.refused.error.message : "", /not JSON/);

    const unknown = readTask(bytes({ kind: "screencast", ...envelope() }));
    assert.ok("refused" in unknown);
    assert.deepEqual(unknown.refusal, {
      kind: "other",
      reason: "unknown_kind",
      value: unknown.refusal?.value,
    });
    assert.deepEqual(unknown.refused, {
      ok: false,
      error: {
        code: "unavailable",
        message:
          "this browser worker cannot run screencast tasks (it runs scrape, session_open, page, map, fetch)",
        status: 503,
      },
    });

    const malformed = readTask(bytes({ kind: "map", ...envelope(), request: { url: "https://e.com/" } }));
    assert.ok("refused" in malformed);
    assert.equal(malformed.refusal?.kind, "map");
    assert.equal(malformed.refusal?.reason, "malformed");
    assert.deepEqual(malformed.refused, {
      ok: false,
      error: {
        code: "internal",
        message:
          "the browser worker refused a malformed map task: userAgent: Invalid input: expected string, received undefined",
        status: 500,
      },
    });

    const ok = readTask(
      bytes({ kind: "map", ...envelope(), request: { url: "https://e.com/" }, userAgent: "b" }),
    );
    assert.ok("task" in ok);
    assert.equal(ok.task.kind, "map");
  });

  it("is counted by kind and reason; a refused page task is answered on the results stream", async () => {
    const metrics = createBrowserMetrics();
    const pages: unknown[] = [];
    const admit = admitTasks(metrics, async (value, reply) => {
      pages.push({ value, reply });
    });
    await admit(bytes("not json"));
    await admit(bytes({ kind: "screencast" }));
    await admit(bytes({ kind: "screencast" }));
    const page = { kind: "page", ...envelope(), jobId: "job_1", pageId: 3 };
    await admit(bytes(page));
    assert.equal(await refusedCount(metrics, "other", "not_json"), 1);
    assert.equal(await refusedCount(metrics, "other", "unknown_kind"), 2);
    assert.equal(await refusedCount(metrics, "page", "malformed"), 1);
    assert.equal(pages.length, 1);
    assert.deepEqual((pages[0] as { value: unknown }).value, page);
  });
});

describe("a slot loop on a real nats-server, fed messages it cannot read", () => {
  let nats: LocalNats;
  let dir: string;
  let nc: NatsConnection;
  let loops: SlotLoops;
  const metrics = createBrowserMetrics();
  const ran: string[] = [];
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "fleet-refusal-"));
    nats = await startLocalNats({ dataDir: dir });
    nc = await connectBus({ servers: nats.url, name: "test" });
    await ensureTaskQueue(nc, { maxPending: 10, ackWaitMs: 5000 });
    const answer = (task: BrowserTask): Promise<AnyReply> => {
      ran.push(task.kind);
      return Promise.resolve({
        ok: true,
        status: 200,
        body: "ok",
        finalUrl: "https://e.com/",
        truncated: false,
      });
    };
    const handlers: TaskHandlers = {
      scrape: answer,
      session_open: answer,
      page: answer,
      map: answer,
      fetch: answer,
    };
    loops = startSlotLoops<BrowserTask, AnyReply>(nc, {
      slots: 1,
      ackWaitMs: 5000,
      maxPayload: 1 << 20,
      tooLarge: () => ({ ok: false, error: { code: "result_too_large", message: "", status: 502 } }),
      admit: admitTasks(metrics, async () => {}),
      handle: (task) => dispatchTask(handlers, task),
    });
  });
  after(async () => {
    await loops.drain();
    await nc.close();
    await nats.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const raw = (task: { taskId: string }) =>
    queueTask<AnyReply>(nc, task, 5000, {}, (d) => JSON.parse(new TextDecoder().decode(d)) as AnyReply);

  it("answers each with an error at once, counts it, runs nothing, and goes on taking tasks", async () => {
    const unknown = await raw({ kind: "screencast", ...envelope() } as { taskId: string });
    assert.equal(!unknown.ok && unknown.error.code, "unavailable");

    const malformed = await raw({ kind: "scrape", ...envelope() } as { taskId: string });
    assert.equal(!malformed.ok && malformed.error.code, "internal");
    assert.match(!malformed.ok ? malformed.error.message : "", /malformed scrape task: request: /);

    // Not JSON at all, published by hand with a reply inbox.
    const inbox = createInbox();
    const got = new Promise<AnyReply>((resolve) => {
      const sub = nc.subscribe(inbox, {
        callback: (_e, m) => {
          sub.unsubscribe();
          resolve(JSON.parse(new TextDecoder().decode(m.data)));
        },
      });
    });
    const h = headers();
    h.set(REPLY_HEADER, inbox);
    await jetstream(nc).publish(TASK_SUBJECT, bytes("\u0000garbage"), { headers: h, msgID: "garbage-1" });
    const garbage = await got;
    assert.equal(!garbage.ok && garbage.error.code, "internal");

    assert.deepEqual(ran, []);
    const fine = await runTask(
      nc,
      { kind: "fetch", ...envelope(), url: "https://e.com/robots.txt", maxBytes: 100, userAgent: "b" },
      5000,
    );
    assert.deepEqual(fine, {
      ok: true,
      status: 200,
      body: "ok",
      finalUrl: "https://e.com/",
      truncated: false,
    });
    assert.deepEqual(ran, ["fetch"]);

    assert.equal(await refusedCount(metrics, "other", "unknown_kind"), 1);
    assert.equal(await refusedCount(metrics, "scrape", "malformed"), 1);
    assert.equal(await refusedCount(metrics, "other", "not_json"), 1);
    // Refused messages were terminated, not left to be redelivered.
    assert.deepEqual(await taskBacklog(nc), { pending: 0, ackPending: 0 });
  });
});
