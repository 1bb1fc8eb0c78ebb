import { randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Db } from "@browserfleet/db";
import { type LeaseCharge, replayLease } from "./ledger.ts";

/**
 * What a replica charged from its balance leases and has not written to the ledger yet, kept in a local
 * file so that a kill -9 loses none of it: each charge is appended (a synchronous write, which the kernel
 * keeps when the process dies) before the call is answered. The replica that starts next on the same
 * folder (a container restarted in its pod keeps its emptyDir) writes what the ledger lacks and closes
 * the dead replica's leases at once (`replayLeaseJournals`).
 *
 * Lines, one JSON object each: `{"l":hold,"a":account}` a lease taken, `{"x":hold,"a":account}` given back,
 * `{"c":chargeId,"h":hold,"a":account,"m":micros,"r":route,"q":requestId}` a call charged, `{"v":chargeId}`
 * a charge taken back before it was written (refunded, or dropped because its hold had closed).
 *
 * The file is a segment: a new one starts every `rotateMs`, carrying the leases still open, and a
 * segment is deleted once every charge in it is written, taken back, or dropped.
 */
export class LeaseJournal {
  readonly #dir: string;
  readonly #id = `${process.pid}-${randomBytes(6).toString("hex")}`;
  readonly #rotateMs: number;
  readonly #open = new Map<string, string>();
  #segment: Segment;
  #n = 0;
  #closed = false;

  constructor(dir: string, opts: { rotateMs?: number } = {}) {
    this.#dir = dir;
    this.#rotateMs = opts.rotateMs ?? 60_000;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    LIVE.add(this.#id);
    this.#segment = this.#start();
  }

  /** A unique id for the next charge. */
  nextChargeId(): string {
    return `${this.#id}.${++this.#n}`;
  }

  leaseTaken(holdId: string, accountId: string): void {
    this.#open.set(holdId, accountId);
    this.#write({ l: holdId, a: accountId });
  }

  leaseGivenBack(holdId: string, accountId: string): void {
    this.#open.delete(holdId);
    this.#write({ x: holdId, a: accountId });
  }

  /** Returns the token to settle it with once its row is written or it is taken back. */
  charged(
    holdId: string,
    accountId: string,
    c: Required<Pick<LeaseCharge, "chargeId">> & LeaseCharge,
  ): Token {
    this.#write({ c: c.chargeId, h: holdId, a: accountId, m: c.micros, r: c.route, q: c.requestId ?? null });
    const seg = this.#segment;
    seg.pending++;
    return seg;
  }

  /** The charge's row is in the ledger. */
  written(token: Token): void {
    this.#settle(token);
  }

  /** The charge will never be written: refunded before it was, or its hold closed first. */
  takenBack(token: Token, chargeId: string): void {
    if (!this.#closed) writeSync(this.#segment.fd, `${JSON.stringify({ v: chargeId })}\n`);
    this.#settle(token);
  }

  /** On shutdown, once every lease is given back: nothing is left to replay. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    LIVE.delete(this.#id);
    for (const seg of [...this.#old, this.#segment]) {
      closeSync(seg.fd);
      if (seg.pending === 0) rmSync(seg.path, { force: true });
    }
  }

  readonly #old = new Set<Segment>();

  #start(): Segment {
    const path = join(this.#dir, `${this.#id}.${Date.now()}.jsonl`);
    const seg = { path, fd: openSync(path, "a", 0o600), pending: 0, startedAt: Date.now() };
    for (const [holdId, accountId] of this.#open)
      writeSync(seg.fd, `${JSON.stringify({ l: holdId, a: accountId })}\n`);
    return seg;
  }

  #write(entry: object): void {
    if (this.#closed) return;
    if (Date.now() - this.#segment.startedAt >= this.#rotateMs) {
      const old = this.#segment;
      this.#segment = this.#start();
      this.#retire(old);
    }
    writeSync(this.#segment.fd, `${JSON.stringify(entry)}\n`);
  }

  #settle(token: Token): void {
    token.pending--;
    if (this.#old.has(token) && token.pending === 0) this.#drop(token);
  }

  #retire(seg: Segment): void {
    if (seg.pending === 0) this.#drop(seg);
    else this.#old.add(seg);
  }

  #drop(seg: Segment): void {
    this.#old.delete(seg);
    closeSync(seg.fd);
    rmSync(seg.path, { force: true });
  }
}

interface Segment {
  path: string;
  fd: number;
  pending: number;
  startedAt: number;
}

/** A charge's segment, to settle it with. */
export type Token = Segment;

/** Journals of this process that are still in use (several apis can run in one process, as in tests). */
const LIVE = new Set<string>();

/** Whether the process that wrote a journal file has stopped. */
function stopped(file: string): boolean {
  const id = file.split(".")[0] ?? "";
  const pid = Number(id.split("-")[0]);
  if (LIVE.has(id)) return false;
  // Our own pid with an id we never had: a process before us in this container (pids restart at 1).
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/**
 * Replay the journals in `dir` of replicas that stopped: write the charges the ledger lacks and close their
 * leases. A file is deleted once it is replayed; one that fails (the database is down) stays for the next
 * try. Returns what was charged now, per account.
 */
export async function replayLeaseJournals(db: Db, dir: string): Promise<Map<string, number>> {
  const charged = new Map<string, number>();
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith(".jsonl") && stopped(f));
  } catch {
    return charged;
  }
  // Files in the order they were written (a void can follow its charge in a later segment).
  files.sort((a, b) => Number(a.split(".")[1]) - Number(b.split(".")[1]));
  const leases = new Map<string, { accountId: string; charges: Map<string, LeaseCharge>; closed: boolean }>();
  const lease = (holdId: string, accountId: unknown) => {
    let l = leases.get(holdId);
    if (!l) {
      l = { accountId: String(accountId), charges: new Map(), closed: false };
      leases.set(holdId, l);
    }
    return l;
  };
  const voided = new Set<string>();
  for (const f of files) {
    for (const line of readFileSync(join(dir, f), "utf8").split("\n")) {
      let e: Record<string, unknown>;
      try {
        e = JSON.parse(line);
      } catch {
        continue; // the line the process was writing when it died
      }
      if (typeof e.l === "string") lease(e.l, e.a);
      else if (typeof e.x === "string") lease(e.x, e.a).closed = true;
      else if (typeof e.c === "string" && typeof e.h === "string" && typeof e.m === "number")
        lease(e.h, e.a).charges.set(e.c, {
          chargeId: e.c,
          micros: e.m,
          route: String(e.r),
          ...(typeof e.q === "string" ? { requestId: e.q } : {}),
        });
      else if (typeof e.v === "string") voided.add(e.v);
    }
  }
  for (const l of leases.values()) for (const id of voided) l.charges.delete(id);
  for (const [holdId, l] of leases) {
    if (l.closed && l.charges.size === 0) continue;
    const micros = await replayLease(db, {
      holdId,
      accountId: l.accountId,
      charges: [...l.charges.values()],
    });
    if (micros > 0) charged.set(l.accountId, (charged.get(l.accountId) ?? 0) + micros);
  }
  for (const f of files) rmSync(join(dir, f), { force: true });
  return charged;
}
