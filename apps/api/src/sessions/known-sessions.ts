import type { SessionRow } from "./store.ts";

/** What an act needs before reading a session's row: whose it is, what was billed, which worker holds it. */
export type KnownSession = Pick<
  SessionRow,
  "id" | "accountId" | "openedAt" | "billedMinutes" | "workerId" | "recordingExpiresAt"
>;

const MAX = 10_000;

/**
 * The sessions one api process has read for acts lately, so the next act on one of them is quoted while
 * its row is read rather than after (the quote's minutes come from what was billed). Ownership and the
 * opening time, the worker and whether it is recorded never change; `billedMinutes` only grows, except when an act gives back minutes it
 * failed to charge, and a stale value only shifts minutes to a later act (see paidAct): never wrong.
 */
export class KnownSessions {
  readonly #rows = new Map<string, KnownSession>();

  get(id: string): KnownSession | undefined {
    return this.#rows.get(id);
  }

  remember(row: KnownSession): void {
    if (this.#rows.size >= MAX && !this.#rows.has(row.id)) this.#rows.clear();
    const { id, accountId, openedAt, billedMinutes, workerId, recordingExpiresAt } = row;
    this.#rows.set(id, { id, accountId, openedAt, billedMinutes, workerId, recordingExpiresAt });
  }

  forget(id: string): void {
    this.#rows.delete(id);
  }
}

const perApi = new WeakMap<object, KnownSessions>();

/** The known sessions of one api (its context). */
export function knownSessions(ctx: object): KnownSessions {
  const known = perApi.get(ctx) ?? new KnownSessions();
  perApi.set(ctx, known);
  return known;
}
