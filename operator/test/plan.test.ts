import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type Observed,
  type ObservedDeployment,
  type ObservedPod,
  type Plan,
  type PoolMemory,
  plan,
  STALE_DRAIN_MS,
} from "../src/plan.ts";
import type { WorkerLoad } from "../src/sizing.ts";
import type { BrowserPoolSpecInput, BrowserPoolStatus, Condition } from "../src/spec.ts";

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);

const worker = (over: Partial<WorkerLoad> = {}): WorkerLoad => ({
  slots: 2,
  busy: 0,
  sessions: 0,
  draining: false,
  ...over,
});
const pod = (
  name: string,
  w: Partial<WorkerLoad> | null = {},
  over: Partial<ObservedPod> = {},
): ObservedPod => ({
  name,
  worker: w ? worker(w) : undefined,
  ready: true,
  ...over,
});

/** A pool of 2-slot pods at 100 % target, 1..4 pods, no windows, and what the controller saw of it. */
function observed(o: {
  spec?: Partial<BrowserPoolSpecInput>;
  deployment?: Partial<ObservedDeployment> | null;
  pods?: ObservedPod[];
  pending?: number;
  ackPending?: number;
  loadError?: string;
  memory?: PoolMemory;
  status?: BrowserPoolStatus;
  deleting?: boolean;
}): Observed {
  const replicas = o.deployment?.specReplicas ?? 1;
  return {
    now: NOW,
    pool: {
      apiVersion: "browserfleet.dev/v1alpha1",
      kind: "BrowserPool",
      metadata: {
        name: "web",
        namespace: "fleet",
        uid: "uid-1",
        generation: 3,
        ...(o.deleting && { deletionTimestamp: new Date(NOW).toISOString() }),
      },
      spec: {
        image: "browserfleet/browser:1",
        slotsPerPod: 2,
        minReplicas: 1,
        maxReplicas: 4,
        targetUtilizationPercent: 100,
        scaleUp: { maxStepPods: 10, stabilizationSeconds: 0 },
        scaleDown: { maxStepPods: 10, stabilizationSeconds: 0 },
        ...o.spec,
      },
      status: o.status,
    },
    deployment:
      o.deployment === null
        ? undefined
        : { generation: 1, specReplicas: replicas, replicas, readyReplicas: replicas, ...o.deployment },
    pods: o.pods ?? (o.deployment === null ? [] : [pod("web-0")]),
    load: o.loadError
      ? { error: o.loadError }
      : { fleet: { pending: o.pending ?? 0, ackPending: o.ackPending ?? 0, workers: [] } },
    memory: "memory" in o ? o.memory : { history: [], drainingSince: {} },
  };
}

type Reconcile = Extract<Plan, { action: "reconcile" }>;
function reconcile(p: Plan): Reconcile {
  assert.equal(p.action, "reconcile");
  return p as Reconcile;
}
function condition(p: { status: BrowserPoolStatus }, type: string): Condition {
  const c = p.status.conditions?.find((x) => x.type === type);
  assert.ok(c, `no ${type} condition in ${JSON.stringify(p.status.conditions)}`);
  return c;
}
const reasons = (p: Reconcile) => p.status.conditions?.map((c) => `${c.type}=${c.status}/${c.reason}`);

describe("plan: the Ready condition", () => {
  it("PodsReady when the ready pods cover min(desired, minReplicas)", () => {
    const p = reconcile(plan(observed({})));
    assert.deepEqual(reasons(p), [
      "Ready=True/PodsReady",
      "LoadSignals=True/Reading",
      "ScalingLimited=False/WithinLimits",
    ]);
    assert.equal(condition(p, "Ready").message, "1 of 1 browser pods ready");
    assert.ok(p.status.conditions?.every((c) => c.observedGeneration === 3));
  });

  it("PodsReady for a pool sized to zero that has no pods", () => {
    const p = reconcile(
      plan(
        observed({
          spec: { minReplicas: 0 },
          deployment: { specReplicas: 0, replicas: 0, readyReplicas: 0 },
          pods: [],
        }),
      ),
    );
    assert.equal(p.desired, 0);
    assert.equal(condition(p, "Ready").reason, "PodsReady");
  });

  it("PodsNotReady while the pods start", () => {
    const p = reconcile(
      plan(observed({ deployment: { readyReplicas: 0 }, pods: [pod("web-0", null, { ready: false })] })),
    );
    const ready = condition(p, "Ready");
    assert.equal(ready.status, "False");
    assert.equal(ready.reason, "PodsNotReady");
    assert.match(ready.message, /0 of 1 browser pods ready/);
  });

  it("Creating before the pool has a Deployment, which it gets at minReplicas", () => {
    const p = reconcile(plan(observed({ spec: { minReplicas: 2 }, deployment: null })));
    assert.equal(p.desired, 2);
    const ready = condition(p, "Ready");
    assert.equal(ready.status, "False");
    assert.equal(ready.reason, "Creating");
    assert.match(ready.message, /Deployment web-browser created/);
  });

  it("ApplyFailed when writing the Deployment failed: same size, no scale event, the last scale kept", () => {
    const o = observed({
      pending: 6,
      status: { lastScaleTime: "earlier", lastScaleReason: "1 -> 2: before" },
    });
    const ok = reconcile(plan(o));
    assert.equal(ok.desired, 3);
    assert.ok(ok.scale);
    const failed = reconcile(plan(o, { applyError: "forbidden" }));
    const ready = condition(failed, "Ready");
    assert.equal(ready.status, "False");
    assert.equal(ready.reason, "ApplyFailed");
    assert.equal(ready.message, "writing the Deployment failed: forbidden");
    assert.equal(failed.desired, 3);
    assert.equal(failed.scale, undefined);
    assert.equal(failed.memory.lastScale, undefined);
    assert.equal(failed.status.lastScaleReason, "1 -> 2: before");
    assert.equal(failed.status.lastScaleTime, "earlier");
  });

  it("InvalidSpec: only the status is written, with Ready alone and the rest of the status kept", () => {
    const p = plan(
      observed({
        spec: { minReplicas: 5, maxReplicas: 2 },
        status: {
          replicas: 2,
          conditions: [
            {
              type: "Ready",
              status: "True",
              reason: "PodsReady",
              message: "2 of 2",
              lastTransitionTime: "t0",
            },
            {
              type: "LoadSignals",
              status: "True",
              reason: "Reading",
              message: "ok",
              lastTransitionTime: "t0",
            },
          ],
        },
      }),
    );
    assert.equal(p.action, "report");
    assert.ok(p.action === "report");
    assert.equal(p.status.replicas, 2);
    assert.equal(p.status.observedGeneration, 3);
    assert.equal(p.status.conditions?.length, 1);
    const ready = condition(p, "Ready");
    assert.equal(ready.status, "False");
    assert.equal(ready.reason, "InvalidSpec");
    assert.match(ready.message, /minReplicas must not be greater than maxReplicas/);
    assert.notEqual(ready.lastTransitionTime, "t0", "Ready flipped, so its time moved");
  });

  it("nothing for a pool being deleted", () => {
    assert.deepEqual(plan(observed({ deleting: true })), { action: "none" });
  });
});

describe("plan: the LoadSignals condition", () => {
  it("Reading: the backlog is what waits and what runs", () => {
    const p = reconcile(plan(observed({ pending: 1, ackPending: 1 })));
    const c = condition(p, "LoadSignals");
    assert.equal(c.status, "True");
    assert.equal(c.reason, "Reading");
    assert.equal(p.status.backlog, 2);
    assert.match(c.message, /backlog 2, 1 workers reporting/);
  });

  it("NatsUnavailable: the pool keeps its size and its last known backlog", () => {
    const p = reconcile(plan(observed({ loadError: "connection refused", status: { backlog: 7 } })));
    const c = condition(p, "LoadSignals");
    assert.equal(c.status, "False");
    assert.equal(c.reason, "NatsUnavailable");
    assert.match(c.message, /cannot read the load from NATS: connection refused/);
    assert.equal(p.desired, 1);
    assert.equal(p.scale, undefined);
    assert.equal(p.status.backlog, 7);
  });

  it("NatsUnavailable still brings a pool back within min and max, without draining", () => {
    const pods = ["a", "b", "c", "d", "e", "f"].map((n) => pod(n));
    const p = reconcile(plan(observed({ loadError: "down", deployment: { specReplicas: 6 }, pods })));
    assert.equal(p.desired, 4);
    assert.deepEqual(p.drain, []);
    assert.equal(p.scale?.reason, "max_replicas");
    assert.match(p.scale?.detail ?? "", /load unknown \(down\); keeping within min\/max/);
  });
});

describe("plan: the ScalingLimited condition", () => {
  it("WithinLimits when the size follows the load", () => {
    const c = condition(reconcile(plan(observed({ pending: 1 }))), "ScalingLimited");
    assert.equal(c.status, "False");
    assert.equal(c.reason, "WithinLimits");
  });

  it("AtMaxReplicas when the load asks for more pods than maxReplicas", () => {
    const p = reconcile(plan(observed({ pending: 100 })));
    assert.equal(p.desired, 4);
    const c = condition(p, "ScalingLimited");
    assert.equal(c.status, "True");
    assert.equal(c.reason, "AtMaxReplicas");
    assert.equal(c.message, "the load asks for 50 pods; maxReplicas is 4");
  });

  it("StepLimited when the step limit holds a scale-up back", () => {
    const p = reconcile(
      plan(observed({ pending: 8, spec: { scaleUp: { maxStepPods: 1, stabilizationSeconds: 0 } } })),
    );
    assert.equal(p.desired, 2);
    assert.equal(p.scale?.reason, "step_limited");
    const c = condition(p, "ScalingLimited");
    assert.equal(c.status, "True");
    assert.equal(c.reason, "StepLimited");
    assert.match(c.message, /adding at most 1 per step/);
  });

  it("Stabilizing when a shrink waits out its window (after a restart the window starts at the size found)", () => {
    const p = reconcile(
      plan(
        observed({
          spec: { scaleDown: { maxStepPods: 10, stabilizationSeconds: 300 } },
          deployment: { specReplicas: 3 },
          pods: [pod("a"), pod("b"), pod("c")],
          memory: undefined,
        }),
      ),
    );
    assert.equal(p.desired, 3);
    assert.equal(p.scale, undefined);
    assert.deepEqual(p.drain, []);
    const c = condition(p, "ScalingLimited");
    assert.equal(c.reason, "Stabilizing");
    assert.match(c.message, /keeping 3, the peak of the last 300 s/);
  });

  it("SessionsHeld when pods with live sessions keep a shrink from going all the way", () => {
    const pods = [pod("a", { sessions: 1, busy: 1 }), pod("b", { sessions: 1, busy: 1 }), pod("c")];
    const p = reconcile(plan(observed({ deployment: { specReplicas: 3 }, pods })));
    // The load (2 sessions on 2-slot pods) asks for 1 pod; only the idle one may go.
    assert.equal(p.desired, 2);
    assert.deepEqual(p.drain, ["c"]);
    assert.equal(p.scale?.reason, "sessions_held");
    const c = condition(p, "ScalingLimited");
    assert.equal(c.status, "True");
    assert.equal(c.reason, "SessionsHeld");
    assert.match(c.message, /1 pod\(s\) kept because they hold live sessions/);
  });
});

describe("plan: scaling", () => {
  it("scales up to what the backlog needs, and says so in the status and the event", () => {
    const p = reconcile(plan(observed({ pending: 6 })));
    assert.equal(p.current, 1);
    assert.equal(p.desired, 3);
    assert.deepEqual(p.scale && { ...p.scale, detail: undefined }, {
      direction: "up",
      from: 1,
      to: 3,
      reason: "load",
      detail: undefined,
    });
    assert.equal(p.status.desiredReplicas, 3);
    assert.match(p.status.lastScaleReason ?? "", /^1 -> 3: 6 slots in demand/);
    assert.equal(p.status.lastScaleTime, new Date(NOW).toISOString());
    assert.equal(p.memory.lastScale?.direction, "up");
    assert.deepEqual(p.memory.history, [{ at: NOW, replicas: 3 }]);
  });

  it("changes nothing when the load is served", () => {
    const p = reconcile(plan(observed({ pending: 2 })));
    assert.equal(p.desired, 1);
    assert.equal(p.scale, undefined);
    assert.deepEqual(p.drain, []);
    assert.deepEqual(p.deletionCosts, []);
    assert.deepEqual(p.replace, []);
  });

  it("shrinks by draining idle pods first, never one already draining twice, and marks deletion costs", () => {
    const pods = [
      pod("a"),
      pod("b", { draining: true }),
      pod("c", { sessions: 1, busy: 1 }, { deletionCost: "1000" }),
      pod("d", { busy: 2 }, { deletionCost: "-1000" }),
    ];
    // 3 busy slots need 2 pods: b (draining) and a (idle) go; d is busy and c holds a session.
    const p = reconcile(plan(observed({ deployment: { specReplicas: 4 }, pods })));
    assert.equal(p.desired, 2);
    assert.deepEqual(p.drain, ["a"]);
    assert.deepEqual(p.deletionCosts, [
      { pod: "a", cost: "-1000" },
      { pod: "b", cost: "-1000" },
      { pod: "d", cost: null },
    ]);
    assert.equal(p.scale?.direction, "down");
    assert.equal(p.scale?.reason, "load");
    assert.equal(condition(p, "ScalingLimited").reason, "WithinLimits");
  });

  it("counts from the size it wrote while the Deployment cache lags behind", () => {
    const memory: PoolMemory = { history: [], drainingSince: {}, written: { generation: 5, replicas: 3 } };
    const lagging = { generation: 4, specReplicas: 1 };
    const p = reconcile(plan(observed({ pending: 6, deployment: lagging, memory })));
    assert.equal(p.current, 3);
    assert.equal(p.scale, undefined);
    assert.deepEqual(p.memory.written, memory.written);
    const caughtUp = reconcile(
      plan(observed({ pending: 6, deployment: { generation: 5, specReplicas: 1 }, memory })),
    );
    assert.equal(caughtUp.current, 1);
  });
});

describe("plan: drained pods that stayed", () => {
  const drainedPool = (pods: ObservedPod[], drainingSince: Record<string, number>) =>
    reconcile(
      plan(
        observed({
          spec: { minReplicas: 2 },
          deployment: { specReplicas: 2 },
          pods: [pod("a"), ...pods],
          memory: { history: [], drainingSince },
        }),
      ),
    );

  it("are replaced once idle for the stale time", () => {
    const p = drainedPool([pod("x", { draining: true })], { x: NOW - STALE_DRAIN_MS });
    assert.deepEqual(p.replace, ["x"]);
    assert.deepEqual(p.memory.drainingSince, {});
  });

  it("are remembered from the first time seen, and kept while young, busy or holding sessions", () => {
    assert.deepEqual(drainedPool([pod("x", { draining: true })], {}).memory.drainingSince, { x: NOW });
    const young = drainedPool([pod("x", { draining: true })], { x: NOW - STALE_DRAIN_MS + 1 });
    assert.deepEqual(young.replace, []);
    assert.deepEqual(young.memory.drainingSince, { x: NOW - STALE_DRAIN_MS + 1 });
    const busy = drainedPool([pod("x", { draining: true, busy: 1 })], { x: 0 });
    assert.deepEqual(busy.replace, []);
    const sessions = drainedPool([pod("x", { draining: true, sessions: 1, busy: 1 })], { x: 0 });
    assert.deepEqual(sessions.replace, []);
  });

  it("are forgotten once they stop draining or terminate", () => {
    const p = drainedPool([pod("x"), pod("y", { draining: true }, { terminating: true })], { x: 0, y: 0 });
    assert.deepEqual(p.replace, []);
    assert.deepEqual(p.memory.drainingSince, {});
  });
});
