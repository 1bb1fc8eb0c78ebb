import { serveProbes } from "@browserfleet/probes";
import type { OperatorConfig } from "./config.ts";
import { PoolController } from "./controller.ts";
import { loadKubeConfig } from "./kube.ts";
import { LeaderElector } from "./leader.ts";
import { LoadSignals } from "./load.ts";
import { createOperatorMetrics, type OperatorMetrics } from "./metrics.ts";

export interface RunningOperator {
  metrics: OperatorMetrics;
  metricsUrl?: string;
  isLeader(): boolean;
  stop(): Promise<void>;
}

/**
 * The operator: a metrics server, leader election, and (while leading) the NATS load signals and the
 * BrowserPool controller. Losing the Lease stops the controller at once; `onFatal` is told so the process
 * can exit and start clean (what client-go's leader election does too).
 */
export async function startOperator(
  config: OperatorConfig,
  opts: { log?: (msg: string) => void; onFatal?: (why: string) => void } = {},
): Promise<RunningOperator> {
  const log = opts.log ?? ((m: string) => console.log(`browserfleet-operator: ${m}`));
  const kc = loadKubeConfig(config.KUBECONFIG_PATH);
  const metrics = createOperatorMetrics();
  let controller: PoolController | undefined;
  let signals: LoadSignals | undefined;
  let ready = false;

  const lead = async () => {
    metrics.leader.set(1);
    signals = new LoadSignals(config.NATS_URL, config.POD_NAME);
    const c = new PoolController(kc, signals, metrics, {
      namespace: config.WATCH_NAMESPACE || undefined,
      periodMs: config.RECONCILE_PERIOD_MS,
      debounceMs: config.SIGNAL_DEBOUNCE_MS,
      log,
    });
    controller = c;
    // Connects in the background when NATS is not there yet; pools keep their size meanwhile.
    await signals.start(() => c.onSignal());
    if (!signals.connected()) log(`NATS at ${config.NATS_URL} unreachable; retrying`);
    await c.start();
    ready = true;
    log("controller started");
  };
  const unlead = async () => {
    metrics.leader.set(0);
    ready = false;
    await controller?.stop();
    await signals?.close();
    controller = undefined;
    signals = undefined;
  };

  const probes =
    config.METRICS_PORT < 0
      ? undefined
      : await serveProbes({
          port: config.METRICS_PORT,
          host: config.METRICS_HOST,
          registry: metrics.registry,
          // A follower is ready too: it is standing by for the Lease.
          ready: () =>
            !elector || ready || !elector.isLeader() ? { ok: true } : { ok: false, why: "starting" },
        });
  const metricsUrl = probes?.metricsUrl;
  if (metricsUrl) log(`metrics at ${metricsUrl}`);

  let elector: LeaderElector | undefined;
  if (config.LEADER_ELECTION === "true") {
    elector = new LeaderElector(kc, {
      namespace: config.POD_NAMESPACE,
      name: config.LEASE_NAME,
      identity: config.POD_NAME,
      leaseDurationMs: config.LEASE_DURATION_MS,
      retryMs: config.LEASE_RETRY_MS,
      renewDeadlineMs: config.LEASE_RENEW_DEADLINE_MS,
      log,
      onStartedLeading: () =>
        void lead().catch((err: Error) => {
          log(`starting the controller failed: ${err.message}`);
          opts.onFatal?.(err.message);
        }),
      onStoppedLeading: () => {
        void unlead();
        opts.onFatal?.("lost the leader lease");
      },
    });
    log(`waiting for the lease ${config.POD_NAMESPACE}/${config.LEASE_NAME} as ${config.POD_NAME}`);
    elector.start();
  } else {
    await lead();
  }

  return {
    metrics,
    metricsUrl,
    isLeader: () => (elector ? elector.isLeader() : true),
    async stop() {
      await unlead();
      await elector?.stop();
      await probes?.close();
    },
  };
}
