/** What one delivery attempt came to. */
export type AttemptOutcome =
  | { kind: "answered"; status: number; retryAfter?: string | undefined; ms: number }
  /** No answer: a timeout, a refused or reset connection, a name that does not resolve. */
  | { kind: "unanswered"; error: string; ms: number }
  /** Not sent: the receiver's address is one the service never calls (SSRF). */
  | { kind: "refused"; error: string; ms: number };

export type NextStep =
  | { kind: "delivered" }
  | { kind: "retry"; at: Date }
  | { kind: "failed"; why: string }
  /** The receiver answered 410 Gone: this webhook gets nothing more. */
  | { kind: "stopped" };

export interface RetryPolicy {
  /** How long after an event is made it is still retried. */
  retryForMs: number;
  /** The first retry's delay; each next one doubles, up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is shortened to it. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  retryForMs: 24 * 3_600_000,
  baseDelayMs: 5_000,
  maxDelayMs: 3_600_000,
  maxRetryAfterMs: 6 * 3_600_000,
};

/** Statuses worth trying again: the receiver is busy or broken for now. */
const retryable = (status: number) => status === 408 || status === 425 || status === 429 || status >= 500;

/** Retry-After as a delay: seconds, or an HTTP date. */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * What follows an attempt: delivered on a 2xx; stopped on a 410; tried again on no answer, a 408, 425,
 * 429 or 5xx, after an exponential delay with jitter (half to all of it), or the receiver's Retry-After when
 * longer, while the event is younger than `retryForMs` (the last retry lands at its end); failed otherwise.
 */
export function nextStep(
  outcome: AttemptOutcome,
  event: { attempts: number; createdAt: Date },
  policy: RetryPolicy = DEFAULT_RETRY,
  now = Date.now(),
  random: () => number = Math.random,
): NextStep {
  if (outcome.kind === "refused") return { kind: "failed", why: outcome.error };
  if (outcome.kind === "answered") {
    if (outcome.status >= 200 && outcome.status < 300) return { kind: "delivered" };
    if (outcome.status === 410) return { kind: "stopped" };
    if (!retryable(outcome.status))
      return { kind: "failed", why: `the receiver answered ${outcome.status}, which is not retried` };
  }
  const end = event.createdAt.getTime() + policy.retryForMs;
  if (now >= end)
    return {
      kind: "failed",
      why: `still failing after ${event.attempts} attempts over ${Math.round(policy.retryForMs / 3_600_000)} h`,
    };
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, event.attempts - 1));
  const jittered = exp * (0.5 + random() * 0.5);
  const asked = outcome.kind === "answered" ? retryAfterMs(outcome.retryAfter, now) : undefined;
  const delay = Math.max(jittered, Math.min(asked ?? 0, policy.maxRetryAfterMs));
  return { kind: "retry", at: new Date(Math.min(now + delay, end)) };
}
