import { type ConditionInput, conditionTime, reportConditions } from "./conditions.ts";
import type { FleetLoad } from "./load.ts";
import { deploymentName, selectorString } from "./resources.ts";
import {
  decideReplicas,
  deletionCost,
  type PodView,
  planScaleDown,
  type Recommendation,
  type ScaleReason,
  type WorkerLoad,
} from "./sizing.ts";
import { type BrowserPool, type BrowserPoolSpec, type BrowserPoolStatus, parseSpec } from "./spec.ts";

/**
 * One reconcile of one pool, decided without I/O: what the controller observed goes in; the size to
 * write, the pods to drain, annotate or replace, the status with its conditions, and the scale event
 * come out. The controller does what the plan says.
 */

/** A drained pod that stays idle this long without being removed is replaced. */
export const STALE_DRAIN_MS = 30_000;

/** What the operator remembers of a pool between reconciles (lost on restart, on purpose harmless). */
export interface PoolMemory {
  /** Past recommendations, for the stabilisation windows. */
  history: Recommendation[];
  lastScale?: { at: string; reason: ScaleReason; message: string; direction: "up" | "down" };
  /** The size last written and the Deployment generation it produced (the cache may lag behind). */
  written?: { generation: number; replicas: number };
  /** Since when each pod has been seen draining while the pool was not shrinking (ms). */
  drainingSince: Record<string, number>;
}

export interface ObservedDeployment {
  generation: number;
  /** spec.replicas */
  specReplicas?: number;
  /** status.replicas and status.readyReplicas */
  replicas: number;
  readyReplicas: number;
}

export interface ObservedPod extends PodView {
  /** The pod-deletion-cost annotation as found on the pod. */
  deletionCost?: string;
}

export interface Observed {
  now: number;
  pool: BrowserPool;
  /** The pool's Deployment, absent until the first apply. */
  deployment?: ObservedDeployment;
  /** The pool's pods (its Deployment's), with their workers' states. */
  pods: ObservedPod[];
  /** The load from NATS, or why it could not be read. */
  load: { fleet: FleetLoad } | { error: string };
  memory?: PoolMemory;
}

export interface ScaleEvent {
  direction: "up" | "down";
  from: number;
  to: number;
  reason: ScaleReason;
  /** Why, in words. */
  detail: string;
}

export type Plan =
  /** Being deleted: the garbage collector removes what the pool owned. */
  | { action: "none" }
  /** The spec cannot be used: only the status says so. */
  | { action: "report"; status: BrowserPoolStatus }
  | {
      action: "reconcile";
      spec: BrowserPoolSpec;
      current: number;
      desired: number;
      /** Pods to stop sending tasks to before the Deployment shrinks. */
      drain: string[];
      /** Pod-deletion-cost annotations to change (null: remove), victims lowest. */
      deletionCosts: { pod: string; cost: string | null }[];
      /** Drained pods left over by a shrink that did not happen, idle now: deleted, so they come back fresh. */
      replace: string[];
      /** Set when the size changes. */
      scale?: ScaleEvent;
      status: BrowserPoolStatus;
      memory: PoolMemory;
    };

/**
 * Plans one reconcile. When writing the Deployment failed, the controller plans again with the error:
 * the same decisions, reported as Ready=False ApplyFailed and without a scale event.
 */
export function plan(o: Observed, outcome: { applyError?: string } = {}): Plan {
  const { pool, now } = o;
  if (pool.metadata.deletionTimestamp) return { action: "none" };
  const generation = pool.metadata.generation;
  const time = conditionTime(now);
  const parsed = parseSpec(pool.spec);
  if (!parsed.ok)
    return {
      action: "report",
      status: {
        ...pool.status,
        observedGeneration: generation,
        conditions: reportConditions(
          pool.status?.conditions,
          [
            {
              type: "Ready",
              status: "False",
              reason: "InvalidSpec",
              message: parsed.message,
              observedGeneration: generation,
            },
          ],
          time,
        ),
      },
    };
  const spec = parsed.spec;
  const dep = o.deployment;
  const written = o.memory?.written;
  const current =
    written && dep && dep.generation < written.generation
      ? written.replicas
      : (dep?.specReplicas ?? spec.minReplicas);
  // After a restart, the window starts with the size found, so a restart never shrinks the pool early.
  const history = o.memory?.history ?? (dep ? [{ at: now, replicas: current }] : []);
  const workers = o.pods.filter((p) => p.worker && !p.terminating).map((p) => p.worker!);
  const fleet = "fleet" in o.load ? o.load.fleet : undefined;
  const loadError = "error" in o.load ? o.load.error : undefined;

  const size = sizePool({
    now,
    current,
    spec,
    fleet,
    loadError,
    workers,
    history,
    pods: o.pods,
    hasDeployment: !!dep,
  });
  const victims = new Set(size.victims);
  const shrinking = size.desired < current;
  const drained = drainedToReplace(o.pods, victims, shrinking, o.memory?.drainingSince ?? {}, now);

  const direction: ScaleEvent["direction"] = size.desired > current ? "up" : "down";
  const scale: ScaleEvent | undefined =
    !outcome.applyError && size.desired !== current
      ? {
          direction,
          from: current,
          to: size.desired,
          reason: size.reason,
          detail: size.message ?? size.reason,
        }
      : undefined;
  const lastScale = scale
    ? {
        at: new Date(now).toISOString(),
        reason: scale.reason,
        message: `${current} -> ${size.desired}: ${scale.detail}`,
        direction,
      }
    : o.memory?.lastScale;

  const sum = (field: keyof Omit<WorkerLoad, "draining" | "memoryPressure">) =>
    workers.reduce((s, w) => s + w[field], 0);
  const backlog = fleet ? fleet.pending + fleet.ackPending : pool.status?.backlog;
  const replicas = dep?.replicas ?? 0;
  const ready = dep?.readyReplicas ?? 0;
  const conditions = [
    readyCondition({
      applyError: outcome.applyError,
      deployment: dep,
      ready,
      replicas,
      desired: size.desired,
      spec,
      pool: pool.metadata.name,
    }),
    fleet
      ? loadCondition("True", "Reading", `backlog ${backlog}, ${workers.length} workers reporting from NATS`)
      : loadCondition(
          "False",
          "NatsUnavailable",
          `cannot read the load from NATS: ${loadError}; the pool keeps its size`,
        ),
    limitCondition(size, spec),
  ].map((c) => ({ ...c, observedGeneration: generation }));

  return {
    action: "reconcile",
    spec,
    current,
    desired: size.desired,
    drain: size.victims.filter((name) => {
      const worker = o.pods.find((p) => p.name === name)?.worker;
      return worker && !worker.draining;
    }),
    deletionCosts: deletionCostChanges(o.pods, victims),
    replace: drained.replace,
    scale,
    status: {
      observedGeneration: generation,
      replicas,
      readyReplicas: ready,
      desiredReplicas: size.desired,
      slots: sum("slots"),
      busySlots: sum("busy"),
      backlog,
      sessions: sum("sessions"),
      lastScaleTime: lastScale?.at ?? pool.status?.lastScaleTime,
      lastScaleReason: lastScale?.message ?? pool.status?.lastScaleReason,
      selector: selectorString(pool.metadata.name),
      conditions: reportConditions(pool.status?.conditions, conditions, time),
    },
    memory: { history: size.history, lastScale, written, drainingSince: drained.drainingSince },
  };
}

interface Sizing {
  desired: number;
  reason: ScaleReason;
  message?: string;
  /** Pods the load asks for before min/max. */
  wanted: number;
  /** Pods kept because they hold sessions, although the shrink wanted them gone. */
  heldBack: number;
  victims: string[];
  history: Recommendation[];
}

function sizePool(i: {
  now: number;
  current: number;
  spec: BrowserPoolSpec;
  fleet?: FleetLoad;
  loadError?: string;
  workers: WorkerLoad[];
  history: Recommendation[];
  pods: PodView[];
  hasDeployment: boolean;
}): Sizing {
  const { current, spec } = i;
  if (!i.fleet) {
    // Without load signals only the bounds are enforced.
    const desired = Math.min(
      Math.max(current, spec.minReplicas),
      Math.max(spec.minReplicas, spec.maxReplicas),
    );
    return {
      desired,
      reason: desired === current ? "steady" : desired > current ? "min_replicas" : "max_replicas",
      message: desired === current ? undefined : `load unknown (${i.loadError}); keeping within min/max`,
      wanted: 0,
      heldBack: 0,
      victims: [],
      history: i.history,
    };
  }
  const decision = decideReplicas({
    now: i.now,
    current,
    policy: spec,
    load: { pending: i.fleet.pending, ackPending: i.fleet.ackPending, workers: i.workers },
    history: i.history,
  });
  const sizing: Sizing = {
    desired: decision.desired,
    reason: decision.reason,
    message: decision.message,
    wanted: decision.wanted,
    heldBack: 0,
    victims: [],
    history: decision.history,
  };
  if (decision.desired >= current || !i.hasDeployment) return sizing;
  const down = planScaleDown(i.pods, current, decision.desired);
  return {
    ...sizing,
    desired: down.desired,
    victims: down.victims,
    heldBack: down.heldBack,
    ...(down.heldBack > 0 && {
      reason: "sessions_held" as const,
      message: `${decision.message}; ${down.heldBack} pod(s) kept because they hold live sessions`,
    }),
  };
}

function readyCondition(i: {
  applyError?: string;
  deployment?: ObservedDeployment;
  ready: number;
  replicas: number;
  desired: number;
  spec: BrowserPoolSpec;
  pool: string;
}): ConditionInput {
  const { ready, desired } = i;
  if (i.applyError)
    return {
      type: "Ready",
      status: "False",
      reason: "ApplyFailed",
      message: `writing the Deployment failed: ${i.applyError}`,
    };
  if (!i.deployment)
    return {
      type: "Ready",
      status: "False",
      reason: "Creating",
      message: `Deployment ${deploymentName(i.pool)} created, waiting for its pods`,
    };
  if (ready >= Math.max(1, Math.min(desired, i.spec.minReplicas)) || (desired === 0 && i.replicas === 0))
    return {
      type: "Ready",
      status: "True",
      reason: "PodsReady",
      message: `${ready} of ${desired} browser pods ready`,
    };
  return {
    type: "Ready",
    status: "False",
    reason: "PodsNotReady",
    message: `${ready} of ${desired} browser pods ready; waiting for pods to start`,
  };
}

function loadCondition(status: "True" | "False", reason: string, message: string): ConditionInput {
  return { type: "LoadSignals", status, reason, message };
}

function limitCondition(size: Sizing, spec: BrowserPoolSpec): ConditionInput {
  if (size.heldBack > 0)
    return { type: "ScalingLimited", status: "True", reason: "SessionsHeld", message: size.message ?? "" };
  if (size.wanted > spec.maxReplicas)
    return {
      type: "ScalingLimited",
      status: "True",
      reason: "AtMaxReplicas",
      message: `the load asks for ${size.wanted} pods; maxReplicas is ${spec.maxReplicas}`,
    };
  if (size.reason === "stabilizing" || size.reason === "step_limited")
    return {
      type: "ScalingLimited",
      status: "True",
      reason: size.reason === "stabilizing" ? "Stabilizing" : "StepLimited",
      message: size.message ?? "",
    };
  return {
    type: "ScalingLimited",
    status: "False",
    reason: "WithinLimits",
    message: "the size follows the load",
  };
}

/** The pod-deletion-cost annotations that differ from what each live pod should carry. */
function deletionCostChanges(
  pods: readonly ObservedPod[],
  victims: ReadonlySet<string>,
): { pod: string; cost: string | null }[] {
  return pods.flatMap((p) => {
    if (p.terminating) return [];
    const want = deletionCost(p, victims.has(p.name));
    if ((p.deletionCost ?? "0") === String(want)) return [];
    return [{ pod: p.name, cost: want === 0 ? null : String(want) }];
  });
}

/** Drained pods that stayed (their scale-down did not happen) are replaced once idle for a while. */
function drainedToReplace(
  pods: readonly PodView[],
  victims: ReadonlySet<string>,
  shrinking: boolean,
  since: Readonly<Record<string, number>>,
  now: number,
): { replace: string[]; drainingSince: Record<string, number> } {
  const replace: string[] = [];
  const drainingSince: Record<string, number> = {};
  for (const p of pods) {
    if (!p.worker?.draining || p.terminating || victims.has(p.name)) continue;
    const from = since[p.name] ?? now;
    if (shrinking || p.worker.busy > 0 || p.worker.sessions > 0 || now - from < STALE_DRAIN_MS)
      drainingSince[p.name] = from;
    else replace.push(p.name);
  }
  return { replace, drainingSince };
}
