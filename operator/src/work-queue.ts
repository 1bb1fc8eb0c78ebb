/** What processing a key asks for next: `requeueAfterMs` brings the key back after that long. */
export interface Requeue {
  requeueAfterMs?: number;
}

export interface WorkQueueOptions<K> {
  /** Processes one key. A throw (or rejection) counts as a failure and brings the key back later. */
  process: (key: K) => Promise<Requeue | undefined>;
  /** Different keys processed at the same time; one key is never processed twice at once. Default 1. */
  concurrency?: number;
  /** A failing key comes back after `baseMs`, doubled for every further failure in a row, at most `maxMs`. */
  backoff?: { baseMs: number; maxMs: number };
  /**
   * A key added while it was being processed runs again no sooner than this after that run ended, so a
   * process that causes its own key to be added (by writing what is watched) settles instead of looping.
   */
  settleMs?: number;
  /** Told of every failure and when the key comes back. */
  onError?: (key: K, err: unknown, retryInMs: number) => void;
}

/**
 * A queue of keys to process, used as controllers use client-go's workqueue: a key added many times
 * waits once (at the earliest time asked for), at most one process of a key runs at a time, a key whose
 * process fails comes back with a growing pause, and a process can ask for its key again later.
 */
export class WorkQueue<K> {
  private readonly waiting = new Map<K, { at: number; timer: NodeJS.Timeout }>();
  private readonly ready = new Set<K>();
  private readonly active = new Map<K, Promise<void>>();
  /** Keys added while being processed, with the earliest time asked for. */
  private readonly dirty = new Map<K, number>();
  private readonly failures = new Map<K, number>();
  private readonly concurrency: number;
  private readonly backoff: { baseMs: number; maxMs: number };
  private stopped = false;
  private pumpScheduled = false;

  constructor(private readonly o: WorkQueueOptions<K>) {
    this.concurrency = Math.max(1, o.concurrency ?? 1);
    this.backoff = o.backoff ?? { baseMs: 1000, maxMs: 60_000 };
  }

  /** Process `key` after `delayMs` (now when 0), unless it is already due sooner. */
  add(key: K, delayMs = 0): void {
    if (this.stopped) return;
    const at = Date.now() + Math.max(0, delayMs);
    if (this.active.has(key)) {
      const seen = this.dirty.get(key);
      if (seen === undefined || at < seen) this.dirty.set(key, at);
      return;
    }
    if (this.ready.has(key)) return;
    const queued = this.waiting.get(key);
    if (queued && queued.at <= at) return;
    if (queued) clearTimeout(queued.timer);
    this.waiting.delete(key);
    if (delayMs <= 0) {
      this.makeReady(key);
      return;
    }
    const timer = setTimeout(() => {
      this.waiting.delete(key);
      this.makeReady(key);
    }, delayMs);
    this.waiting.set(key, { at, timer });
  }

  /** Takes no more keys, drops the ones waiting, and resolves once the running processes ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const { timer } of this.waiting.values()) clearTimeout(timer);
    this.waiting.clear();
    this.ready.clear();
    this.dirty.clear();
    await Promise.all(this.active.values());
  }

  private makeReady(key: K): void {
    this.ready.add(key);
    // Taken on the next microtask, so adds of the same key in the same turn fold into one run.
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    queueMicrotask(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    while (!this.stopped && this.active.size < this.concurrency && this.ready.size > 0) {
      const key = this.ready.values().next().value as K;
      this.ready.delete(key);
      // Started on the next microtask, so a process that throws at once still finds its key active.
      this.active.set(
        key,
        Promise.resolve().then(() => this.run(key)),
      );
    }
  }

  private async run(key: K): Promise<void> {
    let again: number | undefined;
    try {
      const result = await this.o.process(key);
      this.failures.delete(key);
      again = result?.requeueAfterMs;
    } catch (err) {
      const failures = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, failures);
      again = Math.min(this.backoff.maxMs, this.backoff.baseMs * 2 ** (failures - 1));
      this.o.onError?.(key, err, again);
    }
    this.active.delete(key);
    const dirtyAt = this.dirty.get(key);
    this.dirty.delete(key);
    if (dirtyAt !== undefined) this.add(key, Math.max(dirtyAt - Date.now(), this.o.settleMs ?? 0));
    if (again !== undefined) this.add(key, again);
    this.pump();
  }
}
