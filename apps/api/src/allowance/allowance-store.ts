import type { Database } from "@browserfleet/db";
import type { AllowanceBucket } from "./allowance-rules.ts";

export type ConsumeResult =
  | { ok: true; release(): Promise<void> }
  | { ok: false; bucket: string; limit: number; used: number };

class Exhausted extends Error {
  constructor(readonly bucket: AllowanceBucket) {
    super(`allowance bucket ${bucket.bucket} is exhausted`);
  }
}

/**
 * Keyless allowance counters in PostgreSQL (table allowance_counters), shared by every api replica.
 * Each unit is taken by an atomic conditional upsert, so the limits hold exactly under concurrency.
 */
export class AllowanceStore {
  constructor(private readonly database: Database) {}

  /**
   * Take one unit from every bucket, all or nothing, in one transaction. On success, `release()` gives the
   * units back (for work that did not happen); it is idempotent and never takes a counter below 0.
   */
  async consume(client: string, buckets: readonly AllowanceBucket[]): Promise<ConsumeResult> {
    const wanted = mergeBuckets(buckets);
    const { sql } = this.database;
    try {
      await sql.begin(async (tx) => {
        // Buckets in a fixed order, so two transactions of the same client never wait on each other in a cycle.
        for (const b of wanted) {
          if (b.limit < 1) throw new Exhausted(b);
          const rows = await tx`
            insert into allowance_counters (client, bucket, count, updated_at)
            values (${client}, ${b.bucket}, 1, now())
            on conflict (client, bucket) do update
              set count = allowance_counters.count + 1, updated_at = now()
              where allowance_counters.count < ${b.limit}
            returning count`;
          if (rows.length === 0) throw new Exhausted(b);
        }
      });
    } catch (err) {
      if (!(err instanceof Exhausted)) throw err;
      const rows = await sql<{ count: number }[]>`
        select count from allowance_counters where client = ${client} and bucket = ${err.bucket.bucket}`;
      return { ok: false, bucket: err.bucket.bucket, limit: err.bucket.limit, used: rows[0]?.count ?? 0 };
    }

    let released: Promise<void> | undefined;
    const release = (): Promise<void> => {
      released ??= this.give(client, wanted).catch((err: unknown) => {
        released = undefined; // a failed release may be retried
        throw err;
      });
      return released;
    };
    return { ok: true, release };
  }

  /** Every counter of a client, by bucket name. */
  async usage(client: string): Promise<Record<string, number>> {
    const rows = await this.database.sql<{ bucket: string; count: number }[]>`
      select bucket, count from allowance_counters where client = ${client} order by bucket`;
    return Object.fromEntries(rows.map((r) => [r.bucket, r.count]));
  }

  private async give(client: string, buckets: readonly AllowanceBucket[]): Promise<void> {
    await this.database.sql.begin(async (tx) => {
      for (const b of buckets) {
        await tx`
          update allowance_counters set count = greatest(count - 1, 0), updated_at = now()
          where client = ${client} and bucket = ${b.bucket}`;
      }
    });
  }
}

/** One entry per bucket name (the smallest limit wins), sorted by name. */
function mergeBuckets(buckets: readonly AllowanceBucket[]): AllowanceBucket[] {
  const byName = new Map<string, AllowanceBucket>();
  for (const b of buckets) {
    const seen = byName.get(b.bucket);
    if (!seen || b.limit < seen.limit) byName.set(b.bucket, { bucket: b.bucket, limit: b.limit });
  }
  return [...byName.values()].sort((a, b) => (a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : 0));
}
