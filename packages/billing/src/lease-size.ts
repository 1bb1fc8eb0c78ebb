/** How an account's last balance lease was spent. */
export interface SpentLease {
  /** What it took from the balance, in micro-dollars. */
  taken: number;
  /** What calls took from it. */
  spent: number;
  /** How long it had served, in ms. */
  ms: number;
}

export interface LeaseSizing {
  /** The least a lease takes (BALANCE_LEASE_MICROS): an account's first lease, and a quiet one's. */
  leaseMicros: number;
  /** How long a lease serves (BALANCE_LEASE_MS): a lease is sized to last that long. */
  leaseMs: number;
  /** The most a lease takes (BALANCE_LEASE_MAX_MICROS). */
  maxLeaseMicros: number;
}

/**
 * The size of an account's next lease: what its last one was spent at, for a whole lease's time, between
 * the least and the most a lease takes, and never more than 4 times the last (one burst does not take a
 * large share of the balance). A key that spends a lease in a fraction of a second would otherwise take a
 * new one, a hold and its release in the ledger, several times a second; a quiet key keeps small leases.
 * The balance still bounds it: a lease takes at most half of what the balance holds beyond the call.
 */
export function nextLeaseSize(last: SpentLease | undefined, o: LeaseSizing): number {
  if (!last) return o.leaseMicros;
  const atRate = (Math.max(0, last.spent) / Math.max(1, last.ms)) * o.leaseMs;
  return Math.round(Math.max(o.leaseMicros, Math.min(atRate, last.taken * 4, o.maxLeaseMicros)));
}
