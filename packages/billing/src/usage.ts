import { type Db, preparedSql, schema } from "@browserfleet/db";
import { sql } from "drizzle-orm";

export interface UsageRecord {
  accountId?: string;
  payer?: string;
  client?: string;
  route: string;
  status: number;
  priceMicros: number;
  requestId?: string;
  ms?: number;
}

type Columns = {
  accountId: (string | null)[];
  payer: (string | null)[];
  client: (string | null)[];
  route: string[];
  status: number[];
  priceMicros: number[];
  requestId: (string | null)[];
  ms: (number | null)[];
};

const p = sql.placeholder;

/**
 * One statement for a batch of any size: a column per array, unnested in PostgreSQL. drizzle's multi-row
 * insert builds eight parameters per row on the api's event loop, which cost a cached scrape about 7% of
 * its CPU at a few hundred calls a second.
 */
const insertUsage = preparedSql<never, Columns>(sql`
  insert into ${schema.usage} (account_id, payer, client, route, status, price_micros, request_id, ms)
  select * from unnest(
    ${p("accountId")}::text[], ${p("payer")}::text[], ${p("client")}::text[], ${p("route")}::text[],
    ${p("status")}::int[], ${p("priceMicros")}::bigint[], ${p("requestId")}::text[], ${p("ms")}::int[]
  )`);

/** One row per priced call, whoever paid. */
function toColumns(batch: readonly UsageRecord[]): Columns {
  const c: Columns = {
    accountId: [],
    payer: [],
    client: [],
    route: [],
    status: [],
    priceMicros: [],
    requestId: [],
    ms: [],
  };
  for (const u of batch) {
    c.accountId.push(u.accountId ?? null);
    c.payer.push(u.payer ?? null);
    c.client.push(u.client ?? null);
    c.route.push(u.route);
    c.status.push(u.status);
    c.priceMicros.push(u.priceMicros);
    c.requestId.push(u.requestId ?? null);
    c.ms.push(u.ms ?? null);
  }
  return c;
}

/**
 * Usage rows are reporting, not money (the ledger is), so they are written in batches off the request
 * path: one statement per `flushMs` or per `maxBatch` rows (insertUsage). `close` writes what is left.
 */
export class UsageRecorder {
  #queue: UsageRecord[] = [];
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(
    private readonly db: Db,
    private readonly opts: { flushMs: number; maxBatch: number; onError?: (err: unknown) => void } = {
      flushMs: 250,
      maxBatch: 200,
    },
  ) {}

  record(u: UsageRecord): void {
    if (this.#closed) return;
    this.#queue.push(u);
    if (this.#queue.length >= this.opts.maxBatch) void this.flush();
    else if (!this.#timer) {
      this.#timer = setTimeout(() => void this.flush(), this.opts.flushMs);
      this.#timer.unref();
    }
  }

  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#queue;
    this.#queue = [];
    if (batch.length === 0) return this.#flushing;
    this.#flushing = this.#flushing.then(() =>
      insertUsage(this.db, toColumns(batch)).then(
        () => {},
        (err) => this.opts.onError?.(err),
      ),
    );
    return this.#flushing;
  }

  close(): Promise<void> {
    const last = this.flush();
    this.#closed = true;
    return last;
  }
}
