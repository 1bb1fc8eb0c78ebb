import {
  connectBus,
  drainSubject,
  listWorkers,
  openWorkersBucket,
  TASK_SUBJECT,
  taskBacklog,
  WORKERS_BUCKET,
  type WorkerState,
} from "@browserfleet/bus";
import type { KV } from "@nats-io/kv";
import type { NatsConnection, Subscription } from "@nats-io/transport-node";

/**
 * The core-NATS subject a browser worker listens on for "stop taking tasks, finish what you hold"
 * (apps/browser/src/drain.ts answers it). Worker ids are pod names, which are valid subject tokens.
 */
export { drainSubject } from "@browserfleet/bus";

export interface FleetLoad {
  pending: number;
  ackPending: number;
  workers: WorkerState[];
}

/** Reads the load signals from NATS and wakes the operator when they move. */
export class LoadSignals {
  private nc?: NatsConnection;
  private kv?: KV;
  private subs: Subscription[] = [];
  private stopped = false;
  private retryTimer?: NodeJS.Timeout;
  private lastError?: string;

  constructor(
    private readonly natsUrl: string,
    private readonly name = "browserfleet-operator",
  ) {}

  /**
   * Connect, and call `onSignal` whenever a browser task is published or a worker's state changes (both
   * are plain core-NATS subjects, so the operator sees a backlog appear without polling for it). When
   * NATS cannot be reached, this keeps trying in the background; `read()` fails until it is connected.
   */
  async start(onSignal: (what: "task" | "worker") => void): Promise<void> {
    this.stopped = false;
    try {
      await this.connect(onSignal);
    } catch (err) {
      this.lastError = (err as Error).message;
      const retry = () => {
        this.retryTimer = setTimeout(() => {
          if (this.stopped) return;
          this.connect(onSignal).catch((e: Error) => {
            this.lastError = e.message;
            retry();
          });
        }, 2000);
      };
      retry();
    }
  }

  private async connect(onSignal: (what: "task" | "worker") => void): Promise<void> {
    const nc = await connectBus({ servers: this.natsUrl, name: this.name });
    if (this.stopped) {
      await nc.close();
      return;
    }
    this.subs.push(nc.subscribe(TASK_SUBJECT, { callback: () => onSignal("task") }));
    this.subs.push(nc.subscribe(`$KV.${WORKERS_BUCKET}.>`, { callback: () => onSignal("worker") }));
    this.nc = nc;
    this.lastError = undefined;
  }

  connected(): boolean {
    return !!this.nc && !this.nc.isClosed();
  }

  async read(): Promise<FleetLoad> {
    const nc = this.need();
    this.kv ??= await openWorkersBucket(nc);
    const [backlog, workers] = await Promise.all([
      taskBacklog(nc).catch((err: Error) => {
        // No consumer yet: nothing was ever queued (the api or a worker creates the stream).
        if (/not found/i.test(err.message)) return { pending: 0, ackPending: 0 };
        throw err;
      }),
      listWorkers(nc, this.kv),
    ]);
    return { ...backlog, workers };
  }

  /** Ask one worker to drain. Resolves true when it acknowledged, false when nobody answered in time. */
  async drain(workerId: string, timeoutMs = 2000): Promise<boolean> {
    try {
      await this.need().request(drainSubject(workerId), new Uint8Array(), { timeout: timeoutMs });
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    for (const s of this.subs) s.unsubscribe();
    this.subs = [];
    await this.nc?.drain().catch(() => {});
    this.nc = undefined;
    this.kv = undefined;
  }

  private need(): NatsConnection {
    if (!this.nc) throw new Error(`not connected to NATS${this.lastError ? ` (${this.lastError})` : ""}`);
    return this.nc;
  }
}
