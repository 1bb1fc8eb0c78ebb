import type { Condition } from "./spec.ts";

/** A condition as a reconcile decides it; the time it last changed status is the helper's business. */
export type ConditionInput = Omit<Condition, "lastTransitionTime">;

/** A status time as Kubernetes writes one: RFC 3339, whole seconds. */
export function conditionTime(nowMs: number): string {
  return new Date(nowMs).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * kubebuilder's meta.SetStatusCondition, without mutation: a condition of a new type is added with
 * lastTransitionTime `now`; an existing one takes the new status, reason, message and observedGeneration,
 * and its lastTransitionTime moves to `now` only when its status changed.
 */
export function setStatusCondition(
  conditions: readonly Condition[],
  next: ConditionInput,
  now: string,
): Condition[] {
  const existing = conditions.find((c) => c.type === next.type);
  if (!existing) return [...conditions, { ...next, lastTransitionTime: now }];
  const lastTransitionTime = existing.status === next.status ? existing.lastTransitionTime : now;
  return conditions.map((c) => (c === existing ? { ...next, lastTransitionTime } : c));
}

/**
 * The conditions a status lists after a reconcile that reports `next`: exactly those types, each set
 * over the one the status had, so their transition times survive passes that change nothing.
 */
export function reportConditions(
  previous: readonly Condition[] | undefined,
  next: readonly ConditionInput[],
  now: string,
): Condition[] {
  const types = new Set(next.map((c) => c.type));
  const kept = (previous ?? []).filter((c) => types.has(c.type));
  return next.reduce((list, c) => setStatusCondition(list, c, now), kept);
}
