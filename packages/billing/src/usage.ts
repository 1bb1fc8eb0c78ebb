import { type Db, schema } from "@browserfleet/db";

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

/** One row per priced call, whoever paid. */
const toRow = (u: UsageRecord): typeof schema.usage.$inferInsert => ({
  accountId: u.accountId ?? null,
  payer: u.payer ?? null,
  client: u.client ?? null,
  route: u.route,
  status: u.status,
  priceMicros: u.priceMicros,
  requestId: u.requestId ?? null,
  ms: u.ms ?? null,
});

/**
 * Usage rows are reporting, not money (the ledger is), so they are written in batches off the request
 * path: one multi-row insert per `flushMs` or per `maxBatch` rows. `close` writes what is left.
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
      this.db
        .insert(schema.usage)
        .values(batch.map(toRow))
        .then(
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
