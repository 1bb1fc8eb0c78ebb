/**
 * Test doubles around a real cluster: the operator as its own process, and "workers" that publish the
 * KV state and answer drain requests for the (KWOK-simulated) pods of a pool, as the real browser worker
 * does with WORKER_ID = pod name.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { freePort, openWorkersBucket, putWorkerState } from "@browserfleet/bus";
import type { KV } from "@nats-io/kv";
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import { drainSubject } from "../../operator/src/load.ts";
import { type Json, type KubeCluster, ROOT } from "./kube.ts";

export interface OperatorProc {
  child: ChildProcess;
  metricsUrl: string;
  output(): string;
  metric(name: string, labels?: Record<string, string>): Promise<number>;
  /** SIGTERM (the operator gives its Lease up) and wait for the exit. */
  stop(): Promise<void>;
  kill(): Promise<void>;
}

export async function startOperatorProcess(
  env: Record<string, string>,
  ready = /waiting for the lease|controller started/,
): Promise<OperatorProc> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "operator/src/main.ts")], {
    env: {
      ...process.env,
      METRICS_PORT: String(port),
      METRICS_HOST: "127.0.0.1",
      RECONCILE_PERIOD_MS: "1000",
      LEASE_DURATION_MS: "4000",
      LEASE_RETRY_MS: "500",
      LEASE_RENEW_DEADLINE_MS: "3000",
      POD_NAMESPACE: "default",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Killed with this process if it exits without stopping the operator (a crash).
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  child.once("exit", () => process.off("exit", killOnExit));
  let out = "";
  const keep = (d: Buffer) => {
    out = (out + String(d)).slice(-30_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  await new Promise<void>((ok, fail) => {
    const t = setTimeout(() => fail(new Error(`operator did not start in 60 s:\n${out}`)), 60_000);
    const check = () => {
      if (ready.test(out)) {
        clearTimeout(t);
        ok();
      }
    };
    child.stdout?.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(t);
      fail(new Error(`operator exited (${code}):\n${out}`));
    });
  });
  const metricsUrl = `http://127.0.0.1:${port}/metrics`;
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const end = async (sig: NodeJS.Signals) => {
    if (exited()) return;
    const gone = new Promise<void>((r) => child.once("exit", () => r()));
    child.kill(sig);
    const t = setTimeout(() => child.kill("SIGKILL"), 15_000);
    await gone;
    clearTimeout(t);
  };
  return {
    child,
    metricsUrl,
    output: () => out,
    async metric(name, labels = {}) {
      const text = await (await fetch(metricsUrl)).text();
      let sum = 0;
      for (const line of text.split("\n")) {
        if (!line.startsWith(name)) continue;
        const m = /^([a-zA-Z_:]+)(\{[^}]*\})?\s+([0-9.eE+-]+)$/.exec(line);
        if (!m || m[1] !== name) continue;
        if (Object.entries(labels).every(([k, v]) => (m[2] ?? "").includes(`${k}="${v}"`)))
          sum += Number(m[3]);
      }
      return sum;
    },
    stop: () => end("SIGTERM"),
    kill: () => end("SIGKILL"),
  };
}

export interface FakeWorkerState {
  busy: number;
  sessions: number;
  draining: boolean;
}

/**
 * Publishes a WorkerState for every running pod of a pool (every 500 ms) and answers drain requests,
 * remembering which pods were told to drain.
 */
export class FakeWorkers {
  readonly drained = new Set<string>();
  readonly state = new Map<string, FakeWorkerState>();
  private kv?: KV;
  private timer?: NodeJS.Timeout;
  private subs = new Map<string, Subscription>();
  private stopped = false;

  constructor(
    private readonly cluster: KubeCluster,
    private readonly nc: NatsConnection,
    private readonly pool: string,
    private readonly slots: number,
    private readonly namespace = "default",
  ) {}

  async start(): Promise<void> {
    this.kv = await openWorkersBucket(this.nc);
    const tick = async () => {
      if (this.stopped) return;
      await this.publish().catch(() => {});
      if (!this.stopped) this.timer = setTimeout(tick, 500);
    };
    await tick();
  }

  /** Names of the pool's pods that exist and are not terminating. */
  async pods(): Promise<{ name: string; ready: boolean; cost?: string }[]> {
    const r = await this.cluster.api(
      "GET",
      `/api/v1/namespaces/${this.namespace}/pods?labelSelector=${encodeURIComponent(`browserfleet.dev/pool=${this.pool}`)}`,
    );
    return (r.body.items ?? [])
      .filter((p: Json) => !p.metadata.deletionTimestamp)
      .map((p: Json) => ({
        name: p.metadata.name,
        ready: !!p.status?.conditions?.some(
          (c: { type: string; status: string }) => c.type === "Ready" && c.status === "True",
        ),
        cost: p.metadata.annotations?.["controller.kubernetes.io/pod-deletion-cost"],
      }));
  }

  private async publish(): Promise<void> {
    const pods = await this.pods();
    for (const p of pods.filter((x) => x.ready)) {
      const s = this.state.get(p.name) ?? { busy: 0, sessions: 0, draining: false };
      this.state.set(p.name, s);
      if (!this.subs.has(p.name)) {
        this.subs.set(
          p.name,
          this.nc.subscribe(drainSubject(p.name), {
            callback: (_err, msg) => {
              s.draining = true;
              this.drained.add(p.name);
              msg.respond(new TextEncoder().encode(JSON.stringify({ workerId: p.name, draining: true })));
            },
          }),
        );
      }
      await putWorkerState(this.kv!, {
        workerId: p.name,
        slots: this.slots,
        busy: s.busy,
        sessions: s.sessions,
        draining: s.draining,
        updatedAt: Date.now(),
      });
    }
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const s of this.subs.values()) s.unsubscribe();
  }
}
