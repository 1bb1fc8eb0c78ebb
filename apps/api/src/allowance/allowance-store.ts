import { createHash } from "node:crypto";
import type { Database } from "@browserfleet/db";
import type { AllowanceBucket } from "./allowance-rules.ts";

export type ConsumeResult =
  | {
      ok: true;
      /** Give back every unit this call still holds (work that did not happen). Idempotent. */
      release(): Promise<void>;
      /** Give back `units` of one bucket (an act whose later actions did not run). */
      giveBack(bucket: string, units: number): Promise<void>;
    }
  | { ok: false; bucket: string; limit: number; used: number; units: number };

class Exhausted extends Error {
  constructor(readonly bucket: Taken) {
    super(`allowance bucket ${bucket.bucket} is exhausted`);
  }
}

/** A bucket as one call takes it: how many units, and the member marker it holds, if any. */
interface Taken {
  bucket: string;
  limit: number;
  units: number;
  /** The row that counts this call's member (`<bucket>|<hash>`), whose count is how many calls hold it. */
  marker?: string;
  /** The units a member takes from the bucket: what goes back when its last holder gives it back. */
  memberUnits: number;
  /** ISO time, as the driver binds it. */
  expiresAt: string | null;
}

/** Rows deleted per statement by `sweep`, so one sweep never holds a big lock. */
const SWEEP_CHUNK = 5_000;

/**
 * Keyless allowance counters in PostgreSQL (table allowance_counters), shared by every api replica.
 * Each unit is taken by an atomic conditional upsert, so the limits hold exactly under concurrency.
 * A bucket that counts distinct members (the pages of a site) keeps one marker row per member, counting
 * the calls that hold it: the first takes a unit of the bucket, later ones take none, and the unit goes
 * back only when the last holder gives its marker back.
 */
export class AllowanceStore {
  constructor(private readonly database: Database) {}

  /**
   * Take the units of every bucket, all or nothing, in one transaction. On success, `release()` gives
   * them back (for work that did not happen); it is idempotent and never takes a counter below 0.
   */
  async consume(client: string, buckets: readonly AllowanceBucket[]): Promise<ConsumeResult> {
    const wanted = mergeBuckets(buckets);
    const { sql } = this.database;
    const taken: Taken[] = [];
    try {
      await sql.begin(async (tx) => {
        taken.length = 0;
        // Buckets in a fixed order (a bucket's marker just before it), so two transactions of the same
        // client never wait on each other in a cycle.
        for (const b of wanted) {
          if (b.limit < b.units) throw new Exhausted(b);
          if (b.marker !== undefined) {
            const [mark] = await tx<{ count: number }[]>`
              insert into allowance_counters (client, bucket, count, updated_at, expires_at)
              values (${client}, ${b.marker}, 1, now(), ${b.expiresAt}::timestamptz)
              on conflict (client, bucket) do update
                set count = allowance_counters.count + 1, updated_at = now()
              returning count`;
            if ((mark?.count ?? 0) > 1) {
              taken.push({ ...b, units: 0 }); // the member is already counted
              continue;
            }
          }
          const rows = await tx`
            insert into allowance_counters (client, bucket, count, updated_at, expires_at)
            values (${client}, ${b.bucket}, ${b.units}, now(), ${b.expiresAt}::timestamptz)
            on conflict (client, bucket) do update
              set count = allowance_counters.count + ${b.units}, updated_at = now()
              where allowance_counters.count + ${b.units} <= ${b.limit}
            returning count`;
          if (rows.length === 0) throw new Exhausted(b);
          taken.push(b);
        }
      });
    } catch (err) {
      if (!(err instanceof Exhausted)) throw err;
      const rows = await sql<{ count: number }[]>`
        select count from allowance_counters where client = ${client} and bucket = ${err.bucket.bucket}`;
      return {
        ok: false,
        bucket: err.bucket.bucket,
        limit: err.bucket.limit,
        used: rows[0]?.count ?? 0,
        units: err.bucket.units,
      };
    }

    // Gives are serialized, so a release after a giveBack returns only what is still held.
    let chain: Promise<void> = Promise.resolve();
    const serially = (step: () => Promise<void>): Promise<void> => {
      const next = chain.then(step);
      chain = next.catch(() => {});
      return next;
    };
    return {
      ok: true,
      release: () =>
        serially(async () => {
          const held = taken.filter((t) => t.units > 0 || t.marker !== undefined);
          if (held.length === 0) return;
          await this.give(client, held);
          for (const t of held) {
            t.units = 0;
            t.marker = undefined;
          }
        }),
      giveBack: (bucket, units) =>
        serially(async () => {
          const t = taken.find((x) => x.bucket === bucket);
          const n = Math.min(Math.max(0, Math.floor(units)), t?.units ?? 0);
          if (!t || n === 0) return;
          await this.give(client, [{ ...t, units: n, marker: undefined }]);
          t.units -= n;
        }),
    };
  }

  /** Every counter of a client, by bucket name (member markers left out). */
  async usage(client: string): Promise<Record<string, number>> {
    const rows = await this.database.sql<{ bucket: string; count: number }[]>`
      select bucket, count from allowance_counters
      where client = ${client} and position('|' in bucket) = 0 order by bucket`;
    return Object.fromEntries(rows.map((r) => [r.bucket, r.count]));
  }

  /** Deletes the counters whose day is over, SWEEP_CHUNK per statement; returns how many. */
  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.database.sql`
        delete from allowance_counters where ctid in (
          select ctid from allowance_counters where expires_at <= now() limit ${SWEEP_CHUNK}
        )`;
      total += deleted.count;
      if (deleted.count < SWEEP_CHUNK) return total;
    }
  }

  private async give(client: string, held: readonly Taken[]): Promise<void> {
    await this.database.sql.begin(async (tx) => {
      for (const t of held) {
        let units = t.units;
        if (t.marker !== undefined) {
          const [mark] = await tx<{ count: number }[]>`
            update allowance_counters set count = greatest(count - 1, 0), updated_at = now()
            where client = ${client} and bucket = ${t.marker}
            returning count`;
          // The member stays counted while another call holds it; its last holder gives its units back.
          units = 0;
          if (mark?.count === 0) {
            await tx`delete from allowance_counters where client = ${client} and bucket = ${t.marker}`;
            units = t.memberUnits;
          }
        }
        if (units === 0) continue;
        await tx`
          update allowance_counters set count = greatest(count - ${units}, 0), updated_at = now()
          where client = ${client} and bucket = ${t.bucket}`;
      }
    });
  }
}

/** The marker row name of a member: hashed, so a long URL makes a short, fixed-size key. */
const markerOf = (bucket: string, member: string) =>
  `${bucket}|${createHash("sha256").update(member).digest("base64url").slice(0, 22)}`;

/** One entry per bucket name (the smallest limit wins), sorted by name. */
function mergeBuckets(buckets: readonly AllowanceBucket[]): Taken[] {
  const byName = new Map<string, Taken>();
  for (const b of buckets) {
    const seen = byName.get(b.bucket);
    if (!seen || b.limit < seen.limit)
      byName.set(b.bucket, {
        bucket: b.bucket,
        limit: b.limit,
        units: b.units ?? 1,
        memberUnits: b.units ?? 1,
        marker: b.member === undefined ? undefined : markerOf(b.bucket, b.member),
        expiresAt: b.expiresAt?.toISOString() ?? null,
      });
  }
  return [...byName.values()].sort((a, b) => (a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : 0));
}
