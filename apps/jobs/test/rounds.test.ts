import assert from "node:assert/strict";
import { test } from "node:test";
import { Rounds } from "../src/rounds.ts";

const tick = () => new Promise((r) => setImmediate(r));

/** Rounds whose each round runs until the test releases it; how many have started. */
function heldRounds() {
  let runs = 0;
  let held: () => void = () => {};
  const rounds = new Rounds(
    async () => {
      runs++;
      await new Promise<void>((r) => {
        held = r;
      });
    },
    60_000,
    () => {},
  );
  return { rounds, runs: () => runs, release: () => held() };
}

test("a busy job's rounds come from its results alone; an idle one still gets a round every poll period", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const at: number[] = [];
  let now = 0;
  const rounds = new Rounds(
    async () => {
      at.push(now);
    },
    250,
    () => {},
  );
  const advance = async (ms: number) => {
    for (let i = 0; i < ms; i += 10) {
      now += 10;
      t.mock.timers.tick(10);
      await tick();
    }
  };
  rounds.wake();
  await tick();
  assert.deepEqual(at, [0]);
  // Results every 100 ms for a second: a round after each, none from the timer between them.
  for (let i = 0; i < 10; i++) {
    await advance(100);
    rounds.wake();
    await tick();
  }
  assert.deepEqual(at, [0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
  // Then nothing happens: the timer runs a round 250 ms after the last one, and again after that.
  await advance(600);
  assert.deepEqual(at.slice(11), [1250, 1500]);
  await rounds.stop();
  await advance(1000);
  assert.equal(at.length, 13, "no round after stop");
});

test("wakes during a round make one more round after it, not one each", async () => {
  const { rounds, runs, release } = heldRounds();
  rounds.wake();
  await tick();
  rounds.wake();
  rounds.wake();
  rounds.wake();
  assert.equal(runs(), 1);
  release();
  await tick();
  await tick();
  assert.equal(runs(), 2, "the three wakes during the first round made one round");
  release();
  await tick();
  assert.equal(rounds.running, false);
  await rounds.stop();
});

test("a failing round is logged and the next wake still runs one", async () => {
  const logged: string[] = [];
  let runs = 0;
  const rounds = new Rounds(
    async () => {
      runs++;
      if (runs === 1) throw new Error("database away");
    },
    60_000,
    (m) => logged.push(m),
  );
  rounds.wake();
  await tick();
  await tick();
  rounds.wake();
  await tick();
  assert.equal(runs, 2);
  assert.deepEqual(logged, ["dispatch round failed: database away"]);
  await rounds.stop();
});

test("stop resolves when the running round ends, not before, and starts none after it", async () => {
  const { rounds, runs, release } = heldRounds();
  rounds.wake();
  await tick();
  rounds.wake();
  let stopped = false;
  const stopping = rounds.stop().then(() => {
    stopped = true;
  });
  await tick();
  assert.equal(stopped, false, "the round is still running");
  release();
  await stopping;
  assert.equal(rounds.running, false);
  assert.equal(runs(), 1, "the wake during the round made no round after stop");
});
