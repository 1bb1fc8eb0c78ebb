import type { NatsConnection } from "@nats-io/transport-node";

/**
 * The drops of the api's bus connection. A core NATS request in flight when the connection drops may have
 * lost its message or its reply with the server that held them, and a wait for it would then last its
 * whole timeout (an act's: its budget and 15 s more); one sent while the connection is down is lost too.
 * `next` lets such a wait end at the drop instead; `connected` says whether to send at all; and right after
 * a reconnect, "no responders" may only mean that the other side has not subscribed again yet.
 */
export class BusDrops {
  private readonly waiters = new Set<() => void>();
  private up = true;
  private reconnectedAt = Number.NEGATIVE_INFINITY;

  constructor(nc: NatsConnection) {
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type === "reconnect") {
          this.up = true;
          this.reconnectedAt = performance.now();
        }
        if (s.type !== "disconnect") continue;
        this.up = false;
        for (const wake of this.waiters) wake();
        this.waiters.clear();
      }
    })().catch(() => {});
  }

  /** False from a drop until the connection is back. */
  get connected(): boolean {
    return this.up;
  }

  /** The connection came back less than `ms` ago. */
  reconnectedWithin(ms: number): boolean {
    return performance.now() - this.reconnectedAt < ms;
  }

  /** Resolves at the next drop of the connection; never, once `signal` has aborted. */
  next(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return;
      const wake = () => resolve();
      this.waiters.add(wake);
      signal.addEventListener("abort", () => this.waiters.delete(wake), { once: true });
    });
  }
}
