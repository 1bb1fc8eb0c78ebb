import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it, mock } from "node:test";
import { type Requeue, WorkQueue, type WorkQueueOptions } from "../src/work-queue.ts";

// The queue's pauses run on mocked timers: `advance(ms)` moves the clock and lets the processes run.
const settle = () => new Promise<void>((r) => setImmediate(r));
async function advance(ms: number): Promise<void> {
  mock.timers.tick(ms);
  for (let i = 0; i < 5; i++) await settle();
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** A queue that records every process call; `handle` decides what each call does. */
function recording(
  handle: (key: string, call: number) => Promise<Requeue | undefined> | Requeue | undefined = () => undefined,
  options: Omit<WorkQueueOptions<string>, "process"> = {},
) {
  const calls: string[] = [];
  const queue = new WorkQueue<string>({
    ...options,
    process: async (key) => {
      calls.push(key);
      return handle(key, calls.filter((k) => k === key).length);
    },
  });
  return { queue, calls };
}

describe("work queue", () => {
  beforeEach(() => mock.timers.enable({ apis: ["setTimeout", "Date"], now: 0 }));
  afterEach(() => mock.timers.reset());

  it("processes a key added many times before it runs once", async () => {
    const { queue, calls } = recording();
    queue.add("a");
    queue.add("a");
    queue.add("b", 10);
    queue.add("b");
    queue.add("a", 5);
    await advance(0);
    await advance(100);
    assert.deepEqual(calls.sort(), ["a", "b"]);
    await queue.stop();
  });

  it("keeps the earliest time a key was asked for", async () => {
    const { queue, calls } = recording();
    queue.add("a", 1000);
    queue.add("a", 100);
    queue.add("b", 100);
    queue.add("b", 1000);
    await advance(99);
    assert.deepEqual(calls, []);
    await advance(1);
    assert.deepEqual(calls.sort(), ["a", "b"]);
    await advance(2000);
    assert.deepEqual(calls, ["a", "b"], "the later requests were folded into the earlier ones");
    await queue.stop();
  });

  it("never processes one key twice at once, and runs it again after a change seen meanwhile", async () => {
    const gate = deferred();
    let running = 0;
    let most = 0;
    const { queue, calls } = recording(
      async (_key, call) => {
        running++;
        most = Math.max(most, running);
        if (call === 1) await gate.promise;
        running--;
        return undefined;
      },
      { settleMs: 50, concurrency: 2 },
    );
    queue.add("a");
    await advance(0);
    queue.add("a");
    queue.add("a");
    await advance(1000);
    assert.deepEqual(calls, ["a"], "the second run waits for the first");
    gate.resolve();
    await advance(0);
    await advance(49);
    assert.deepEqual(calls, ["a"], "the next run waits settleMs after the first ended");
    await advance(1);
    assert.deepEqual(calls, ["a", "a"], "the adds during the run became one more run");
    assert.equal(most, 1);
    await advance(1000);
    assert.equal(calls.length, 2);
    await queue.stop();
  });

  it("runs different keys side by side up to its concurrency, one key still one at a time", async () => {
    const gate = deferred();
    const { queue, calls } = recording(() => gate.promise.then(() => undefined), { concurrency: 2 });
    for (const k of ["a", "b", "c"]) queue.add(k);
    await advance(0);
    assert.deepEqual(calls, ["a", "b"], "c waits for a free worker");
    gate.resolve();
    await advance(0);
    assert.deepEqual(calls, ["a", "b", "c"]);
    await queue.stop();
  });

  it("retries a failing key with a pause that doubles up to its maximum, and forgets failures on success", async () => {
    const retries: number[] = [];
    const { queue, calls } = recording(
      (_key, call) => {
        if (call <= 4 || call === 6) throw new Error(`failure ${call}`);
        return undefined;
      },
      { backoff: { baseMs: 100, maxMs: 300 }, onError: (_key, _err, inMs) => retries.push(inMs) },
    );
    queue.add("a");
    await advance(0);
    assert.equal(calls.length, 1);
    await advance(99);
    assert.equal(calls.length, 1, "not retried before the first pause is over");
    await advance(1);
    assert.equal(calls.length, 2);
    await advance(200);
    assert.equal(calls.length, 3);
    await advance(300);
    assert.equal(calls.length, 4);
    await advance(300);
    assert.equal(calls.length, 5, "the pause stops growing at maxMs");
    assert.deepEqual(retries, [100, 200, 300, 300]);
    await advance(10_000);
    assert.equal(calls.length, 5, "a success is not retried");
    queue.add("a");
    await advance(0);
    assert.equal(calls.length, 6);
    assert.deepEqual(retries, [100, 200, 300, 300, 100], "the success reset the pause");
    await queue.stop();
  });

  it("treats a process that throws at once like one that rejects", async () => {
    const errors: unknown[] = [];
    const queue = new WorkQueue<string>({
      process: (key) => {
        if (key === "bad") throw new Error("at once");
        return Promise.resolve(undefined);
      },
      backoff: { baseMs: 10, maxMs: 10 },
      onError: (_k, err) => errors.push(err),
    });
    queue.add("bad");
    await advance(0);
    await advance(10);
    assert.equal(errors.length, 2, "retried, so the key did not stay stuck as running");
    await queue.stop();
  });

  it("brings a key back when its process asks for it", async () => {
    const { queue, calls } = recording((_key, call) => (call < 3 ? { requeueAfterMs: 500 } : undefined));
    queue.add("a");
    await advance(0);
    await advance(499);
    assert.equal(calls.length, 1);
    await advance(1);
    assert.equal(calls.length, 2);
    await advance(500);
    assert.equal(calls.length, 3);
    await advance(5000);
    assert.equal(calls.length, 3);
    await queue.stop();
  });

  it("stops: waits for the running process, drops waiting keys and takes no new ones", async () => {
    const gate = deferred();
    let finished = false;
    const { queue, calls } = recording(async (key) => {
      if (key === "a") {
        await gate.promise;
        finished = true;
      }
      return undefined;
    });
    queue.add("a");
    queue.add("b", 100);
    await advance(0);
    let stopped = false;
    const stopping = queue.stop().then(() => {
      stopped = true;
    });
    queue.add("c");
    await settle();
    assert.equal(stopped, false, "stop waits while a process runs");
    gate.resolve();
    await stopping;
    assert.ok(finished);
    await advance(1000);
    assert.deepEqual(calls, ["a"]);
  });
});
