/**
 * The pure part of the operator: how many browser pods a pool needs, and which pods go first when it
 * shrinks. No I/O here; everything is decided from the numbers passed in.
 */

/** What one browser pod publishes in the workers KV bucket (the fields sizing needs). */
export interface WorkerLoad {
  slots: number;
  busy: number;
  sessions: number;
  draining: boolean;
  /** Near its memory limit: it takes no task now. */
  memoryPressure?: boolean;
}

export interface PoolLoad {
  /** Browser tasks waiting in JetStream (num_pending of the workers' consumer). */
  pending: number;
  /** Tasks delivered to a worker and not yet acked (num_ack_pending): running now. */
  ackPending: number;
  /** The live workers of this pool's pods. */
  workers: WorkerLoad[];
}

export interface SizingPolicy {
  slotsPerPod: number;
  minReplicas: number;
  maxReplicas: number;
  targetUtilizationPercent: number;
  scaleUp: { maxStepPods: number; stabilizationSeconds: number };
  scaleDown: { maxStepPods: number; stabilizationSeconds: number };
}

/** One past recommendation: what the load asked for at a time. */
export interface Recommendation {
  at: number;
  replicas: number;
}

export type ScaleReason =
  | "steady"
  | "load"
  | "min_replicas"
  | "max_replicas"
  | "step_limited"
  | "stabilizing"
  | "sessions_held";

export interface SizingDecision {
  /** The size to write. */
  desired: number;
  /** The size the load alone asks for, clamped to min/max. */
  recommended: number;
  /** Slots needed now. */
  demand: number;
  /** Pods the load asks for before min/max. */
  wanted: number;
  reason: ScaleReason;
  /** In words, for the status and the log. */
  message: string;
  /** The recommendations to keep for the next decision. */
  history: Recommendation[];
}

/**
 * Slots needed now: the waiting tasks plus what is running. Running is the larger of the busy slots the
 * pods report and the tasks JetStream has delivered and not yet seen acked plus the sessions (a session's
 * open task is acked at once, but the session keeps its slot until it ends). A pod near its memory limit
 * takes no task: all its slots count as taken.
 */
export function demandSlots(load: PoolLoad): number {
  let busy = 0;
  let sessions = 0;
  for (const w of load.workers) {
    busy += w.memoryPressure ? Math.max(w.busy, w.slots) : w.busy;
    sessions += w.sessions;
  }
  return Math.max(0, load.pending) + Math.max(busy, Math.max(0, load.ackPending) + sessions);
}

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));

/** ceil(demand / (slots × target utilisation)), before min/max. */
export function podsForDemand(
  demand: number,
  p: Pick<SizingPolicy, "slotsPerPod" | "targetUtilizationPercent">,
): number {
  const perPodPercent = p.slotsPerPod * p.targetUtilizationPercent; // slots × 100 × utilisation
  return demand <= 0 ? 0 : Math.ceil((demand * 100) / perPodPercent);
}

/** ceil(demand / (slots × target utilisation)), clamped to [min, max]. */
export function recommendReplicas(demand: number, p: SizingPolicy): number {
  return clamp(podsForDemand(demand, p), p.minReplicas, Math.max(p.minReplicas, p.maxReplicas));
}

/**
 * The size to write now. Scale-up goes to the lowest recommendation of its stabilisation window (0 s:
 * the current one), at most `scaleUp.maxStepPods` at a time; scale-down goes to the highest
 * recommendation of its window, at most `scaleDown.maxStepPods` at a time. A size outside [min, max]
 * (the spec changed) is corrected at once.
 */
export function decideReplicas(input: {
  now: number;
  current: number;
  policy: SizingPolicy;
  load: PoolLoad;
  history: readonly Recommendation[];
}): SizingDecision {
  const { now, current, policy: p } = input;
  const demand = demandSlots(input.load);
  const recommended = recommendReplicas(demand, p);
  const wanted = podsForDemand(demand, p);
  const keepMs = 1000 * Math.max(p.scaleUp.stabilizationSeconds, p.scaleDown.stabilizationSeconds);
  const history = [...input.history.filter((r) => now - r.at <= keepMs && r.at <= now)];
  history.push({ at: now, replicas: recommended });
  const max = Math.max(p.minReplicas, p.maxReplicas);
  const decision = (desired: number, reason: SizingDecision["reason"], message: string): SizingDecision => ({
    desired,
    recommended,
    demand,
    wanted,
    history,
    reason,
    message,
  });
  const loadWords = `${demand} slots in demand (${input.load.pending} waiting) at ${p.slotsPerPod} slots per pod and ${p.targetUtilizationPercent}% target`;

  if (current < p.minReplicas)
    return decision(p.minReplicas, "min_replicas", `below minReplicas ${p.minReplicas}`);
  if (current > max) return decision(max, "max_replicas", `above maxReplicas ${max}`);

  const within = (seconds: number) => history.filter((r) => now - r.at <= seconds * 1000);
  if (recommended > current) {
    const floor = Math.min(...within(p.scaleUp.stabilizationSeconds).map((r) => r.replicas));
    const stabilized = Math.max(current, floor);
    if (stabilized === current)
      return decision(
        current,
        "stabilizing",
        `${loadWords} asks for ${recommended} pods; waiting out the ${p.scaleUp.stabilizationSeconds} s scale-up window`,
      );
    const desired = Math.min(stabilized, current + p.scaleUp.maxStepPods);
    if (desired < stabilized)
      return decision(
        desired,
        "step_limited",
        `${loadWords} asks for ${stabilized} pods; adding at most ${p.scaleUp.maxStepPods} per step`,
      );
    return decision(
      desired,
      recommended === max && desired === max ? "max_replicas" : "load",
      `${loadWords} needs ${desired} pods${recommended === max ? ` (maxReplicas ${max})` : ""}`,
    );
  }
  if (recommended < current) {
    const ceiling = Math.max(...within(p.scaleDown.stabilizationSeconds).map((r) => r.replicas));
    const stabilized = Math.min(current, ceiling);
    if (stabilized === current)
      return decision(
        current,
        "stabilizing",
        `${loadWords} asks for ${recommended} pods; keeping ${current}, the peak of the last ${p.scaleDown.stabilizationSeconds} s`,
      );
    const desired = Math.max(stabilized, current - p.scaleDown.maxStepPods);
    if (desired > stabilized)
      return decision(
        desired,
        "step_limited",
        `${loadWords} asks for ${stabilized} pods; removing at most ${p.scaleDown.maxStepPods} per step`,
      );
    return decision(
      desired,
      desired === p.minReplicas ? "min_replicas" : "load",
      `${loadWords} needs ${desired} pods${desired === p.minReplicas ? ` (minReplicas ${p.minReplicas})` : ""}`,
    );
  }
  return decision(current, "steady", `${loadWords} is served by ${current} pods`);
}

// ---------------------------------------------------------------------------------------------------------
// Scale-down: which pods go.

export interface PodView {
  name: string;
  /** The pod's worker state from the KV bucket; absent while it starts or once it stopped publishing. */
  worker?: WorkerLoad;
  ready: boolean;
  /** Already terminating: the Deployment does not count it any more. */
  terminating?: boolean;
}

/** Pod-deletion-cost for pods the operator chose to remove (the ReplicaSet removes the lowest first). */
export const VICTIM_COST = -1000;

/**
 * Rank for removal: pods that run no worker yet (or not ready), then pods already draining, then idle
 * pods, then pods busy with short tasks (fewest busy slots first). Pods holding a live session are never
 * chosen; a shrink that would need them is held back until their sessions end.
 */
export function chooseVictims(
  pods: readonly PodView[],
  count: number,
): { victims: string[]; heldBack: number } {
  if (count <= 0) return { victims: [], heldBack: 0 };
  const rank = (p: PodView) => {
    if (!p.worker || !p.ready) return 0;
    if (p.worker.draining) return 1;
    if (p.worker.busy === 0) return 2;
    return 3;
  };
  const candidates = pods
    .filter((p) => !p.terminating && (p.worker?.sessions ?? 0) === 0)
    .sort(
      (a, b) =>
        rank(a) - rank(b) || (a.worker?.busy ?? 0) - (b.worker?.busy ?? 0) || a.name.localeCompare(b.name),
    );
  const victims = candidates.slice(0, count).map((p) => p.name);
  return { victims, heldBack: count - victims.length };
}

/**
 * A shrink from `current` to `desired` pods: replicas that have no pod yet go first (nothing to drain),
 * then the pods `chooseVictims` picks. Returns the size to write (higher than `desired` when pods with
 * sessions had to be kept) and the pods to drain.
 */
export function planScaleDown(
  pods: readonly PodView[],
  current: number,
  desired: number,
): { desired: number; victims: string[]; heldBack: number } {
  const remove = Math.max(0, current - desired);
  const existing = pods.filter((p) => !p.terminating).length;
  const unborn = Math.min(remove, Math.max(0, current - existing));
  const { victims, heldBack } = chooseVictims(pods, remove - unborn);
  return { desired: current - unborn - victims.length, victims, heldBack };
}

/**
 * The pod-deletion-cost a pod should carry: chosen victims lowest, pods with sessions highest (more
 * sessions, higher), everyone else 0. Only sessions count, so the annotation changes rarely.
 */
export function deletionCost(pod: PodView, victim: boolean): number {
  if (victim) return VICTIM_COST;
  const sessions = pod.worker?.sessions ?? 0;
  return sessions > 0 ? 1000 * Math.min(sessions, 1000) : 0;
}
