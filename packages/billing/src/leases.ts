import type { Db } from "@browserfleet/db";
import { captureMany, placeHold, refundCharge, settleHold } from "./ledger.ts";

/** A price known to be final before the work (a call served wholly from cache). */
export interface Charge {
  accountId: string;
  micros: number;
  route: string;
  requestId?: string;
}

export type ChargeResult = { ok: true } | { ok: false; balanceMicros: number };

export interface LeaseOptions {
  /** The most one lease takes from a balance. */
  leaseMicros: number;
  /** A lease is given back after this long, used or not, so other replicas see the money again. */
  leaseMs: number;
  /** Captured calls are written to the ledger this often. */
  flushMs: number;
}

interface Lease {
  holdId: string;
  left: number;
  takenAt: number;
  /** Calls charged from the lease whose ledger rows are not written yet. */
  unwritten: Omit<Charge, "accountId">[];
  /** The last write of this lease's rows; writes of one lease run one after another. */
  writing: Promise<void>;
}

/**
 * Final charges from a balance lease: the replica takes up to `leaseMicros` of an account's balance as
 * one hold, charges calls against it in memory, writes one capture row per call in batches, and gives
 * back what is left when the lease ends. A busy key then costs no database round trip per call.
 *
 * A lease takes at most half of what the balance holds beyond the call's own price, so a small balance
 * is shared between replicas, and a replica whose lease runs short gives it back before it takes a new
 * one: on one replica exactly what the balance covers is granted. A replica that dies leaves an open
 * hold that the reaper refunds; calls whose rows were not written yet are then not charged.
 */
export class BalanceLeases {
  readonly #leases = new Map<string, Lease>();
  /** Accounts whose lease is being ended or taken: their calls wait for it. */
  readonly #changing = new Map<string, Promise<unknown>>();
  readonly #timer: NodeJS.Timeout;

  constructor(
    private readonly db: Db,
    private readonly opts: LeaseOptions,
    private readonly onError: (err: unknown) => void = () => {},
  ) {
    this.#timer = setInterval(() => this.#tick(), opts.flushMs);
    this.#timer.unref();
  }

  async charge(c: Charge): Promise<ChargeResult> {
    for (;;) {
      const lease = this.#leases.get(c.accountId);
      if (lease && lease.left >= c.micros) {
        lease.left -= c.micros;
        lease.unwritten.push({ micros: c.micros, route: c.route, requestId: c.requestId });
        return { ok: true };
      }
      const changing = this.#changing.get(c.accountId);
      if (changing) {
        await changing.catch(() => {});
        continue;
      }
      const refused = await this.#exclusive(c.accountId, () => this.#renew(c.accountId, c.micros));
      if (refused !== undefined) return { ok: false, balanceMicros: refused };
    }
  }

  /** Give back a charge whose work failed after all. */
  async refund(c: Charge): Promise<void> {
    const lease = this.#leases.get(c.accountId);
    const i = lease?.unwritten.findIndex((u) => u.requestId === c.requestId && u.micros === c.micros) ?? -1;
    if (lease && i >= 0) {
      lease.unwritten.splice(i, 1);
      lease.left += c.micros;
      return;
    }
    await refundCharge(this.db, c);
  }

  /** Write the account's captured calls now (before its balance is shown). */
  async flush(accountId: string): Promise<void> {
    const lease = this.#leases.get(accountId);
    if (lease) await this.#write(lease);
  }

  /** Write every captured call and give back every lease (on shutdown). */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await Promise.allSettled([...this.#changing.values()]);
    await Promise.all([...this.#leases.keys()].map((accountId) => this.#end(accountId)));
  }

  async #exclusive<T>(accountId: string, work: () => Promise<T>): Promise<T> {
    const running = work();
    this.#changing.set(accountId, running);
    try {
      return await running;
    } finally {
      this.#changing.delete(accountId);
    }
  }

  /** End the account's lease, then take a new one. Returns the balance when it does not cover `micros`. */
  async #renew(accountId: string, micros: number): Promise<number | undefined> {
    await this.#end(accountId);
    const hold = await placeHold(this.db, {
      accountId,
      micros,
      take: (balance) => Math.min(this.opts.leaseMicros, micros + Math.floor((balance - micros) / 2)),
      route: "lease",
      ttlMs: this.opts.leaseMs + 60_000,
    });
    if (!hold.ok) return hold.balanceMicros;
    this.#leases.set(accountId, {
      holdId: hold.holdId,
      left: hold.heldMicros ?? micros,
      takenAt: Date.now(),
      unwritten: [],
      writing: Promise.resolve(),
    });
    return undefined;
  }

  #write(lease: Lease): Promise<void> {
    lease.writing = lease.writing.then(async () => {
      const rows = lease.unwritten.splice(0);
      if (rows.length === 0) return;
      try {
        if (!(await captureMany(this.db, lease.holdId, rows)))
          this.onError(
            new Error(`lease ${lease.holdId} was closed before ${rows.length} calls were written`),
          );
      } catch (err) {
        lease.unwritten.unshift(...rows);
        this.onError(err);
      }
    });
    return lease.writing;
  }

  async #end(accountId: string): Promise<void> {
    const lease = this.#leases.get(accountId);
    if (!lease) return;
    this.#leases.delete(accountId);
    await this.#write(lease);
    await settleHold(this.db, lease.holdId, 0, "balance lease returned");
  }

  #tick(): void {
    const now = Date.now();
    for (const [accountId, lease] of this.#leases) {
      if (this.#changing.has(accountId)) continue;
      if (now - lease.takenAt >= this.opts.leaseMs)
        void this.#exclusive(accountId, () => this.#end(accountId)).catch(this.onError);
      else void this.#write(lease);
    }
  }
}
