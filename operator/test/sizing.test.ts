import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  chooseVictims,
  decideReplicas,
  deletionCost,
  demandSlots,
  type PodView,
  type PoolLoad,
  planScaleDown,
  podsForDemand,
  recommendReplicas,
  type SizingPolicy,
  VICTIM_COST,
} from "../src/sizing.ts";

const policy = (over: Partial<SizingPolicy> = {}): SizingPolicy => ({
  slotsPerPod: 4,
  minReplicas: 1,
  maxReplicas: 10,
  targetUtilizationPercent: 100,
  scaleUp: { maxStepPods: 100, stabilizationSeconds: 0 },
  scaleDown: { maxStepPods: 100, stabilizationSeconds: 0 },
  ...over,
});
const worker = (busy: number, sessions = 0, draining = false) => ({ slots: 4, busy, sessions, draining });
const load = (pending: number, ackPending = 0, workers: PoolLoad["workers"] = []): PoolLoad => ({
  pending,
  ackPending,
  workers,
});

describe("demand", () => {
  it("is waiting tasks plus the larger of busy slots and running tasks with sessions", () => {
    assert.equal(demandSlots(load(0)), 0);
    assert.equal(demandSlots(load(5)), 5);
    // 3 running tasks (ack pending) + 2 sessions, pods report 4 busy: 5 running.
    assert.equal(demandSlots(load(1, 3, [worker(2, 1), worker(2, 1)])), 6);
    // Pods report more busy than JetStream shows (a session just opened): the pods win.
    assert.equal(demandSlots(load(0, 0, [worker(3), worker(4)])), 7);
    assert.equal(demandSlots(load(-1, -1)), 0);
  });

  it("counts every slot of a pod near its memory limit as taken: it takes no task, so waiting ones need another pod", () => {
    const pressed = { ...worker(1), memoryPressure: true };
    assert.equal(demandSlots(load(2, 0, [pressed, worker(4)])), 2 + 4 + 4);
    assert.equal(demandSlots(load(2, 0, [worker(1), worker(4)])), 2 + 1 + 4);
  });

  it("needs ceil(demand / (slots × target)) pods, clamped to min and max", () => {
    assert.equal(podsForDemand(0, policy()), 0);
    assert.equal(podsForDemand(1, policy()), 1);
    assert.equal(podsForDemand(8, policy()), 2);
    assert.equal(podsForDemand(9, policy()), 3);
    // 80 % of 4 slots is 3.2 slots per pod: 10 slots need 4 pods (3.125 rounded up).
    assert.equal(podsForDemand(10, policy({ targetUtilizationPercent: 80 })), 4);
    // 16 slots at 80 % of 4: exactly 5 pods, no floating-point surprise.
    assert.equal(podsForDemand(16, policy({ targetUtilizationPercent: 80 })), 5);
    assert.equal(recommendReplicas(0, policy({ minReplicas: 2 })), 2);
    assert.equal(recommendReplicas(1000, policy({ maxReplicas: 7 })), 7);
    assert.equal(recommendReplicas(0, policy({ minReplicas: 0 })), 0);
  });
});

describe("decideReplicas", () => {
  const at = 1_000_000;

  it("scales up to what the backlog needs at once when there is no window", () => {
    const d = decideReplicas({ now: at, current: 1, policy: policy(), load: load(20), history: [] });
    assert.equal(d.desired, 5);
    assert.equal(d.reason, "load");
    assert.equal(d.wanted, 5);
  });

  it("adds at most maxStepPods per decision", () => {
    const p = policy({ scaleUp: { maxStepPods: 2, stabilizationSeconds: 0 } });
    const d = decideReplicas({ now: at, current: 1, policy: p, load: load(40), history: [] });
    assert.equal(d.desired, 3);
    assert.equal(d.reason, "step_limited");
    const next = decideReplicas({
      now: at + 1000,
      current: 3,
      policy: p,
      load: load(40),
      history: d.history,
    });
    assert.equal(next.desired, 5);
  });

  it("stops at maxReplicas and says the load wants more", () => {
    const d = decideReplicas({
      now: at,
      current: 2,
      policy: policy({ maxReplicas: 4 }),
      load: load(100),
      history: [],
    });
    assert.equal(d.desired, 4);
    assert.equal(d.reason, "max_replicas");
    assert.equal(d.wanted, 25);
  });

  it("scales down only after the stabilisation window, to the window's peak", () => {
    const p = policy({ scaleDown: { maxStepPods: 100, stabilizationSeconds: 60 } });
    let history = decideReplicas({ now: at, current: 5, policy: p, load: load(20), history: [] }).history;
    // Load gone 10 s later: the peak of the window (5) holds the size.
    let d = decideReplicas({ now: at + 10_000, current: 5, policy: p, load: load(0), history });
    assert.equal(d.desired, 5);
    assert.equal(d.reason, "stabilizing");
    history = d.history;
    // Some load 30 s in: the peak is still 5.
    d = decideReplicas({ now: at + 30_000, current: 5, policy: p, load: load(8), history });
    assert.equal(d.desired, 5);
    history = d.history;
    // 61 s after the peak: the highest recommendation left in the window is 2 (the load at 30 s).
    d = decideReplicas({ now: at + 61_000, current: 5, policy: p, load: load(0), history });
    assert.equal(d.desired, 2);
    assert.equal(d.reason, "load");
    history = d.history;
    // Once the 30 s recommendation ages out too: down to min.
    d = decideReplicas({ now: at + 91_000, current: 2, policy: p, load: load(0), history });
    assert.equal(d.desired, 1);
    assert.equal(d.reason, "min_replicas");
  });

  it("removes at most maxStepPods per decision on the way down", () => {
    const p = policy({ scaleDown: { maxStepPods: 2, stabilizationSeconds: 0 } });
    const d = decideReplicas({ now: at, current: 8, policy: p, load: load(0), history: [] });
    assert.equal(d.desired, 6);
    assert.equal(d.reason, "step_limited");
  });

  it("waits out a scale-up window with the lowest recommendation in it", () => {
    const p = policy({ scaleUp: { maxStepPods: 100, stabilizationSeconds: 30 } });
    const first = decideReplicas({ now: at, current: 1, policy: p, load: load(0), history: [] });
    const d = decideReplicas({
      now: at + 5_000,
      current: 1,
      policy: p,
      load: load(40),
      history: first.history,
    });
    assert.equal(d.desired, 1);
    assert.equal(d.reason, "stabilizing");
    const later = decideReplicas({
      now: at + 31_000,
      current: 1,
      policy: p,
      load: load(40),
      history: d.history,
    });
    assert.equal(later.desired, 10);
  });

  it("corrects a size outside min and max at once", () => {
    const p = policy({
      minReplicas: 3,
      maxReplicas: 5,
      scaleDown: { maxStepPods: 1, stabilizationSeconds: 600 },
    });
    assert.equal(decideReplicas({ now: at, current: 1, policy: p, load: load(0), history: [] }).desired, 3);
    assert.equal(decideReplicas({ now: at, current: 9, policy: p, load: load(0), history: [] }).desired, 5);
  });

  it("holds steady when the size fits the load, and forgets old recommendations", () => {
    const p = policy({ scaleDown: { maxStepPods: 1, stabilizationSeconds: 10 } });
    const old = [{ at: at - 60_000, replicas: 9 }];
    const d = decideReplicas({ now: at, current: 2, policy: p, load: load(8), history: old });
    assert.equal(d.desired, 2);
    assert.equal(d.reason, "steady");
    assert.deepEqual(d.history, [{ at, replicas: 2 }]);
  });

  it("is a pure function: the same input gives the same decision", () => {
    const input = { now: at, current: 3, policy: policy(), load: load(7, 2, [worker(1)]), history: [] };
    assert.deepEqual(decideReplicas(input), decideReplicas(input));
  });
});

describe("choosing the pods to remove", () => {
  const pod = (name: string, w?: ReturnType<typeof worker>, ready = true, terminating = false): PodView => ({
    name,
    worker: w,
    ready,
    terminating,
  });

  it("never picks a pod with a live session while another pod can go", () => {
    const pods = [pod("a", worker(1, 1)), pod("b", worker(0)), pod("c", worker(2, 2)), pod("d", worker(3))];
    const { victims, heldBack } = chooseVictims(pods, 2);
    assert.deepEqual(victims, ["b", "d"]);
    assert.equal(heldBack, 0);
  });

  it("takes starting pods first, then draining, then idle, then the least busy", () => {
    const pods = [
      pod("busy3", worker(3)),
      pod("idle", worker(0)),
      pod("busy1", worker(1)),
      pod("draining", worker(1, 0, true)),
      pod("starting", undefined, false),
      pod("unready", worker(0), false),
    ];
    assert.deepEqual(chooseVictims(pods, 6).victims, [
      "starting",
      "unready",
      "draining",
      "idle",
      "busy1",
      "busy3",
    ]);
  });

  it("holds back the shrink that would need a session pod", () => {
    const pods = [pod("a", worker(1, 1)), pod("b", worker(0)), pod("c", worker(1, 1))];
    assert.deepEqual(chooseVictims(pods, 3), { victims: ["b"], heldBack: 2 });
  });

  it("ignores pods already terminating", () => {
    const pods = [pod("gone", worker(0), true, true), pod("b", worker(0))];
    assert.deepEqual(chooseVictims(pods, 2), { victims: ["b"], heldBack: 1 });
    assert.deepEqual(chooseVictims(pods, 0), { victims: [], heldBack: 0 });
  });

  it("gives victims the lowest deletion cost and session pods the highest", () => {
    assert.equal(deletionCost(pod("v", worker(0)), true), VICTIM_COST);
    assert.equal(deletionCost(pod("i", worker(2)), false), 0);
    assert.equal(deletionCost(pod("s", worker(1, 3)), false), 3000);
    assert.ok(deletionCost(pod("s1", worker(0, 1)), false) > deletionCost(pod("x", undefined), false));
  });
});

describe("planning a scale-down", () => {
  const pod = (name: string, sessions = 0): PodView => ({
    name,
    ready: true,
    worker: { slots: 4, busy: sessions, sessions, draining: false },
  });

  it("removes replicas that have no pod yet before any pod", () => {
    assert.deepEqual(planScaleDown([pod("a"), pod("b")], 5, 2), { desired: 2, victims: [], heldBack: 0 });
    assert.deepEqual(planScaleDown([pod("a"), pod("b")], 3, 1), { desired: 1, victims: ["a"], heldBack: 0 });
    assert.deepEqual(planScaleDown([], 4, 1), { desired: 1, victims: [], heldBack: 0 });
  });

  it("keeps the size where only session pods are left to remove", () => {
    assert.deepEqual(planScaleDown([pod("a", 1), pod("b"), pod("c", 2)], 3, 1), {
      desired: 2,
      victims: ["b"],
      heldBack: 1,
    });
    assert.deepEqual(planScaleDown([pod("a")], 1, 1), { desired: 1, victims: [], heldBack: 0 });
  });
});
