import type { Db } from "@browserfleet/db";
import type { LeaseJournal, Token } from "./lease-journal.ts";
import { nextLeaseSize, type SpentLease } from "./lease-size.ts";
import { captureMany, placeHold, refundCharge, releaseFromHold, settleHold, type Tx } from "./ledger.ts";

/** A price known to be final before the work (a call served wholly from cache). */
export interface Charge {
  accountId: string;
  micros: number;
  route: string;
  requestId?: string;
}

export type ChargeResult =
  | {
      ok: true;
      /** Give the charge back: its work failed after all. */
      refund(): Promise<void>;
    }
  | { ok: false; balanceMicros: number };

/** A write made in the transaction that writes a settled call's ledger row (its record elsewhere). */
export type LeaseWrite = (tx: Tx) => Promise<unknown>;

/** A price set aside from a lease before the work; what came out is charged once the work is done. */
export interface LeaseReservation {
  /**
   * The work is done: charge `micros` (never more than was set aside) and give the rest back to the lease.
   * `alongside` is written in the transaction that writes the call's ledger row, even when nothing is charged.
   */
  settle(micros: number, alongside?: LeaseWrite): void;
  /** The work failed: give everything back, write nothing. */
  release(): void;
}

export type ReserveResult =
  | { ok: true; reservation: LeaseReservation }
  | { ok: false; balanceMicros: number };

export interface LeaseOptions {
  /** The least one lease takes from a balance: an account's first, and a quiet one's. */
  leaseMicros: number;
  /**
   * The most one lease takes (default: leaseMicros, a fixed size). A busy account's next lease is sized to
   * last leaseMs at the rate its last one was spent (nextLeaseSize), between the two.
   */
  maxLeaseMicros?: number;
  /** A lease is given back after this long, used or not, so other replicas see the money again. */
  leaseMs: number;
  /** Captured calls are written to the ledger this often. */
  flushMs: number;
  /**
   * The longest a reservation may stay unsettled (an act's budget): a lease's hold is kept from the reaper
   * that long past the lease's time, so a call still running on a retired lease is charged when it ends.
   */
  maxReservationMs?: number;
  /**
   * Where each charge is kept until its row is written, so that a replica killed before it writes them
   * loses none (replayed by the next one to start on the same folder). Without it, such calls go uncharged.
   */
  journal?: LeaseJournal;
}

interface Lease {
  accountId: string;
  holdId: string;
  left: number;
  /** What the lease took from the balance. */
  taken: number;
  takenAt: number;
  /** Charged since the last tick: a busy lease past its time is replaced, an idle one given back. */
  used?: boolean;
  /** The balance could not cover a next lease: not asked again while this one serves. */
  lastOne?: boolean;
  /** Calls charged from the lease whose ledger rows are not written yet. */
  unwritten: Unwritten[];
  /** The last write of this lease's rows; writes of one lease run one after another. */
  writing: Promise<void>;
  /** Reservations not settled yet: a lease is given back only once it has none. */
  inFlight: number;
  /** Replaced or past its time, with reservations in flight: given back when the last one settles. */
  retired?: boolean;
  /** Being given back, or given back: a reservation settled after that (on shutdown) is not charged. */
  givingBack?: Promise<void>;
  /** Its give-back failed (the database was away): tried again on the next tick, its calls kept till then. */
  giveBackDue?: boolean;
}

type Unwritten = Omit<Charge, "accountId"> & {
  alongside?: LeaseWrite;
  /** Its id in the ledger and the journal, and its place in the journal. */
  chargeId?: string;
  token?: Token;
  /** Written to the ledger (captured from the hold, or from the balance if the hold had closed first). */
  written?: boolean;
};

/**
 * Final charges from a balance lease: the replica takes up to `leaseMicros` of an account's balance as
 * one hold, charges calls against it in memory, writes one capture row per call in batches, and gives
 * back what is left when the lease ends. A busy key then costs no database round trip per call.
 *
 * A lease takes at most half of what the balance holds beyond the call's own price, so a small balance
 * is shared between replicas, and a replica whose lease runs short gives it back before it takes a new
 * one: on one replica exactly what the balance covers is granted. A replica that dies leaves an open
 * hold that the reaper refunds; calls whose rows were not written yet are then not charged.
 *
 * A lease that runs low (a quarter of what it took left) takes the next one in the background while it
 * still serves calls, so a busy key's calls never wait for the database; the low one is then given back
 * as a retired one. When the balance cannot cover a second lease, the low one serves until it runs out,
 * and the next is taken as above, exactly.
 *
 * A call whose price is known only once its work is done (an act: the actions that ran) reserves its
 * quote and settles at what came out. A lease that runs short or whose time is up while some of its
 * reservations are still running is retired: what none of them set aside goes back to the balance at
 * once, and the rest when the last one settles. Until then those reservations are held as a ledger hold
 * of their own would hold them.
 */
export class BalanceLeases {
  readonly #leases = new Map<string, Lease>();
  /** Retired leases, until they are given back. */
  readonly #retired = new Set<Lease>();
  /** Accounts whose lease is being ended or taken: their calls wait for it. */
  readonly #changing = new Map<string, Promise<unknown>>();
  /** How each busy account's last lease was spent: the size of its next one. */
  readonly #lastSpent = new Map<string, SpentLease>();
  readonly #timer: NodeJS.Timeout;
  /** Closed (shutdown): no lease is taken any more. */
  #closed = false;

  constructor(
    private readonly db: Db,
    private readonly opts: LeaseOptions,
    private readonly onError: (err: unknown) => void = () => {},
  ) {
    this.#timer = setInterval(() => this.#tick(), opts.flushMs);
    this.#timer.unref();
  }

  /** Charge a final price (known before the work) from the account's lease. */
  async charge(c: Charge): Promise<ChargeResult> {
    const reserved = await this.#reserve(c);
    if (!reserved.ok) return reserved;
    const row = reserved.reservation.settle(c.micros);
    let refunded = false;
    return {
      ok: true,
      refund: async () => {
        if (refunded) return;
        refunded = true;
        await this.#refund(c, row);
      },
    };
  }

  /** Set `c.micros` aside from the account's lease, to settle at what the work comes to. */
  reserve(c: Charge): Promise<ReserveResult> {
    return this.#reserve(c);
  }

  async #reserve(
    c: Charge,
  ): Promise<{ ok: true; reservation: Reservation } | { ok: false; balanceMicros: number }> {
    for (;;) {
      const lease = this.#leases.get(c.accountId);
      if (lease && lease.left >= c.micros) {
        lease.left -= c.micros;
        lease.inFlight++;
        lease.used = true;
        if (lease.left < lease.taken / 4 && !lease.lastOne) this.#takeNext(lease, c.micros);
        return { ok: true, reservation: this.#reservation(lease, c) };
      }
      const changing = this.#changing.get(c.accountId);
      if (changing) {
        await changing.catch(() => {});
        continue;
      }
      if (this.#closed) throw new Error("balance leases are closed: the api is shutting down");
      const refused = await this.#exclusive(c.accountId, () => this.#renew(c.accountId, c.micros));
      if (refused !== undefined) return { ok: false, balanceMicros: refused };
    }
  }

  #reservation(lease: Lease, c: Charge): Reservation {
    let open = true;
    const done = (micros: number, alongside?: LeaseWrite): Written | undefined => {
      if (!open) return undefined;
      open = false;
      if (lease.givingBack) {
        if (micros > 0 || alongside)
          this.onError(
            new Error(
              `call ${c.requestId ?? ""} ended after lease ${lease.holdId} was given back: not charged`,
            ),
          );
        return undefined;
      }
      const take = Math.max(0, Math.min(micros, c.micros));
      lease.left += c.micros - take;
      lease.inFlight--;
      let row: Unwritten | undefined;
      if (take > 0 || alongside) {
        row = { micros: take, route: c.route, requestId: c.requestId, ...(alongside ? { alongside } : {}) };
        const journal = this.opts.journal;
        if (journal && take > 0) {
          row.chargeId = journal.nextChargeId();
          row.token = journal.charged(lease.holdId, lease.accountId, { ...row, chargeId: row.chargeId });
        }
        lease.unwritten.push(row);
      }
      if (lease.retired && lease.inFlight === 0) void this.#giveBack(lease).catch(this.onError);
      return row && { lease, row };
    };
    return { settle: (micros, alongside) => done(micros, alongside), release: () => void done(0) };
  }

  /** Give back a final charge whose work failed after all: from its lease while its row is not written, in the ledger once it is. */
  async #refund(c: Charge, written: Written | undefined): Promise<void> {
    if (!written) return;
    const { lease, row } = written;
    for (;;) {
      if (row.written) return refundCharge(this.db, c);
      const i = lease.unwritten.indexOf(row);
      if (i >= 0 && !lease.givingBack) {
        lease.unwritten.splice(i, 1);
        lease.left += row.micros;
        this.#takenBack(row);
        return;
      }
      // Being given back, or on its way to the ledger: wait for that to end, then look again.
      await (lease.givingBack ?? lease.writing).catch(() => {});
    }
  }

  /** Write the account's captured calls now (before its balance is shown). */
  async flush(accountId: string): Promise<void> {
    await Promise.all(this.#of(accountId).map((lease) => lease.givingBack ?? this.#write(lease)));
  }

  /**
   * Write every captured call and give back every lease (on shutdown, once calls are drained). A
   * reservation still in flight then is not charged.
   */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    await Promise.allSettled([...this.#changing.values()]);
    const all = [...this.#leases.values(), ...this.#retired];
    this.#leases.clear();
    await Promise.all(all.map((lease) => this.#giveBack(lease)));
  }

  /** The account's leases: the one taking calls and any retired one not given back yet. */
  #of(accountId: string): Lease[] {
    const current = this.#leases.get(accountId);
    const retired = [...this.#retired].filter((l) => l.accountId === accountId);
    return current ? [current, ...retired] : retired;
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
    const lease = await this.#take(accountId, micros);
    if (typeof lease === "number") return lease;
    this.#leases.set(accountId, lease);
    return undefined;
  }

  /** A new lease of the account's balance (at most half of it beyond `micros`), or the balance it lacks. */
  async #take(accountId: string, micros: number): Promise<Lease | number> {
    const { leaseMicros, leaseMs } = this.opts;
    const sizing = { leaseMicros, leaseMs, maxLeaseMicros: this.opts.maxLeaseMicros ?? leaseMicros };
    const size = nextLeaseSize(this.#lastSpent.get(accountId), sizing);
    const hold = await placeHold(this.db, {
      accountId,
      micros,
      take: (balance) => Math.min(size, micros + Math.floor((balance - micros) / 2)),
      route: "lease",
      ttlMs: this.opts.leaseMs + (this.opts.maxReservationMs ?? 0) + 60_000,
    });
    if (!hold.ok) return hold.balanceMicros;
    this.opts.journal?.leaseTaken(hold.holdId, accountId);
    const taken = hold.heldMicros ?? micros;
    return {
      accountId,
      holdId: hold.holdId,
      left: taken,
      taken,
      takenAt: Date.now(),
      unwritten: [],
      writing: Promise.resolve(),
      inFlight: 0,
    };
  }

  /**
   * Take the account's next lease in the background while `low` still serves calls, then retire `low`.
   * Calls wait for it only if `low` runs out first. A balance that cannot cover it leaves `low` in place.
   */
  #takeNext(low: Lease, micros: number): void {
    const { accountId } = low;
    if (this.#closed || this.#changing.has(accountId)) return;
    this.#noteSpent(low);
    void this.#exclusive(accountId, async () => {
      if (this.#leases.get(accountId) !== low) return;
      const next = await this.#take(accountId, micros);
      if (typeof next === "number") {
        low.lastOne = true;
        return;
      }
      if (this.#closed) return this.#retire(next);
      if (this.#leases.get(accountId) === low) this.#leases.set(accountId, next);
      else this.#retire(next);
      this.#retire(low);
    }).catch(this.onError);
  }

  #write(lease: Lease): Promise<void> {
    lease.writing = lease.writing.then(async () => {
      const rows = lease.unwritten.splice(0);
      if (rows.length === 0) return;
      try {
        const how = await captureMany(this.db, lease, rows, writesOf(rows));
        for (const r of rows) {
          r.written = true;
          if (r.token) this.opts.journal?.written(r.token);
        }
        if (how === "from balance")
          this.onError(
            new Error(
              `lease ${lease.holdId} was closed before ${rows.length} calls were written: charged from the balance`,
            ),
          );
      } catch (err) {
        lease.unwritten.unshift(...rows);
        this.onError(err);
      }
    });
    return lease.writing;
  }

  /**
   * The account's lease takes no more calls: given back now, or, with reservations in flight, retired:
   * what none of them set aside goes back now, the rest once they settle.
   */
  async #end(accountId: string): Promise<void> {
    const lease = this.#leases.get(accountId);
    if (!lease) return;
    this.#leases.delete(accountId);
    this.#noteSpent(lease);
    if (lease.inFlight === 0) return this.#giveBack(lease);
    await this.#releaseRetired(lease);
  }

  /** `#end` for a lease no call takes from any more, in the background (close() waits for it). */
  #retire(lease: Lease): void {
    const done = lease.inFlight === 0 ? this.#giveBack(lease) : this.#releaseRetired(lease);
    done.catch(this.onError);
  }

  async #releaseRetired(lease: Lease): Promise<void> {
    lease.retired = true;
    this.#retired.add(lease);
    const free = lease.left;
    lease.left = 0;
    await releaseFromHold(
      this.db,
      lease.holdId,
      free,
      "balance lease retired: what no running call set aside",
    );
  }

  /**
   * Write the lease's calls and close its hold, giving back the rest; once. When the database is away, the
   * lease stays with the retired ones, its calls kept, and the next tick tries again: an answered call is
   * never dropped while the api runs. On shutdown it is tried once; what is left then is in the journal,
   * charged by the next replica to start on its folder.
   */
  #giveBack(lease: Lease): Promise<void> {
    // Kept with the retired ones until done, so close() waits for it and the tick retries it.
    this.#retired.add(lease);
    lease.giveBackDue = false;
    lease.givingBack ??= (async () => {
      try {
        await this.#write(lease);
        if (lease.unwritten.length > 0)
          throw new Error(`lease ${lease.holdId}: ${lease.unwritten.length} calls not written yet`);
        await settleHold(this.db, lease.holdId, 0, "balance lease returned");
        this.opts.journal?.leaseGivenBack(lease.holdId, lease.accountId);
        this.#retired.delete(lease);
      } catch (err) {
        if (this.#closed) this.#retired.delete(lease);
        else {
          lease.givingBack = undefined;
          lease.giveBackDue = true;
        }
        throw err;
      }
    })();
    return lease.givingBack;
  }

  #noteSpent(lease: Lease): void {
    const spent = { taken: lease.taken, spent: lease.taken - lease.left, ms: Date.now() - lease.takenAt };
    this.#lastSpent.set(lease.accountId, spent);
  }

  /** A charge that will never be written: the journal forgets it. */
  #takenBack(row: Unwritten): void {
    if (row.token && row.chargeId) this.opts.journal?.takenBack(row.token, row.chargeId);
    row.token = undefined;
  }

  #tick(): void {
    const now = Date.now();
    for (const [accountId, lease] of this.#leases) {
      if (this.#changing.has(accountId)) continue;
      if (now - lease.takenAt >= this.opts.leaseMs) {
        // A busy lease is replaced without its calls waiting; an idle one goes back to the balance.
        if (lease.used) this.#takeNext(lease, 1);
        else {
          // A quiet account starts again from the smallest lease.
          void this.#exclusive(accountId, () => this.#end(accountId))
            .then(() => this.#lastSpent.delete(accountId))
            .catch(this.onError);
        }
      } else void this.#write(lease);
      lease.used = false;
    }
    // A retired lease's settled calls are written as they come, not when its last call ends.
    for (const lease of this.#retired) {
      if (lease.givingBack) continue;
      if (lease.giveBackDue) void this.#giveBack(lease).catch(this.onError);
      else void this.#write(lease);
    }
  }
}

/** A settled call's row in its lease, for a refund. */
interface Written {
  lease: Lease;
  row: Unwritten;
}

/** A reservation whose settlement tells where its row went (see BalanceLeases.charge). */
interface Reservation extends LeaseReservation {
  settle(micros: number, alongside?: LeaseWrite): Written | undefined;
}

const writesOf = (rows: readonly Unwritten[]): LeaseWrite[] =>
  rows.flatMap((r) => (r.alongside ? [r.alongside] : []));
