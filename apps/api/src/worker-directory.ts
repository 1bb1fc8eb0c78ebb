import { listWorkers, type WorkerState } from "@browserfleet/bus";
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";

/** The live browser workers, refreshed from the KV bucket in the background. */
export class WorkerDirectory {
  private workers: WorkerState[] = [];
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<WorkerState[]> | undefined;
  private stopped = false;
  private fetchedAt = 0;

  constructor(
    private readonly nc: NatsConnection,
    private readonly kv: KV,
  ) {}

  async start(intervalMs = 2000): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), intervalMs);
    this.timer.unref();
  }

  /**
   * One listing at a time, shared by every caller; `stop` waits for it, so NATS is never drained under
   * a listing in flight.
   */
  refresh(): Promise<WorkerState[]> {
    if (this.stopped) return Promise.resolve(this.workers);
    this.inFlight ??= listWorkers(this.nc, this.kv)
      .then((w) => {
        this.workers = w;
        this.fetchedAt = Date.now();
        return w;
      })
      // Keep the last view while NATS is unreachable.
      .catch(() => this.workers)
      .finally(() => {
        this.inFlight = undefined;
      });
    return this.inFlight;
  }

  /**
   * At least one live, non-draining worker. A view older than half a second is looked at again first,
   * so a worker that just started draining gets no new task (it would wait for nobody until its timeout).
   */
  async anyAlive(): Promise<boolean> {
    if (Date.now() - this.fetchedAt < 500 && this.workers.some((w) => !w.draining)) return true;
    return (await this.refresh()).some((w) => !w.draining);
  }

  slots(): { total: number; busy: number; workers: number; sessions: number } {
    return this.workers.reduce(
      (acc, w) => ({
        total: acc.total + w.slots,
        busy: acc.busy + w.busy,
        workers: acc.workers + 1,
        sessions: acc.sessions + w.sessions,
      }),
      { total: 0, busy: 0, workers: 0, sessions: 0 },
    );
  }

  /** Free slots on live workers that take tasks (not draining, not near their memory limit), looked up afresh. */
  async freeSlots(): Promise<number> {
    const live = (await this.refresh()).filter((w) => !w.draining && !w.memoryPressure);
    return live.reduce((n, w) => n + Math.max(0, w.slots - w.busy), 0);
  }

  /**
   * Resolves once a view of the bucket taken after this call lacks the worker: its heartbeats stopped for
   * WORKER_TTL_MS, so its process is gone or cut off, even when its connection to NATS was never closed (a
   * pod whose network vanished keeps its subscriptions on the server until the server's pings time out).
   * Looks every `everyMs` until `signal` aborts.
   */
  whenGone(workerId: string, signal: AbortSignal, everyMs = 1000): Promise<void> {
    const since = Date.now();
    return new Promise((resolve) => {
      const timer = setInterval(() => {
        if (this.fetchedAt > since && !this.workers.some((w) => w.workerId === workerId)) {
          clearInterval(timer);
          resolve();
        }
      }, everyMs);
      timer.unref();
      signal.addEventListener("abort", () => clearInterval(timer), { once: true });
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await Promise.race([this.inFlight, new Promise((r) => setTimeout(r, 3000).unref())]);
  }
}
