import { loadConfig } from "@browserfleet/config";
import { startBrowserWorker } from "./worker.ts";

const config = loadConfig();
if (!config.NATS_URL) {
  console.error(
    "NATS_URL is required for a standalone browser worker (npm start runs one with a local NATS).",
  );
  process.exit(1);
}
try {
  const worker = await startBrowserWorker({
    natsUrl: config.NATS_URL,
    slots: config.BROWSER_SLOTS,
    ackWaitMs: config.TASK_ACK_WAIT_MS,
    queueMax: config.TASK_QUEUE_MAX,
    allowPrivate: config.FLEET_ALLOW_PRIVATE,
    workerId: config.WORKER_ID,
    metricsPort: config.BROWSER_METRICS_PORT,
  });
  console.log(
    `browser worker ${worker.workerId}: ${config.BROWSER_SLOTS} slots, metrics at ${worker.metricsUrl}`,
  );
  for (const sig of ["SIGTERM", "SIGINT"] as const) {
    process.once(sig, async () => {
      console.log(`browser worker ${worker.workerId}: ${sig}, draining`);
      await worker.stop();
      process.exit(0);
    });
  }
} catch (err) {
  console.error(`browser worker failed to start: ${(err as Error).message}`);
  process.exit(1);
}
