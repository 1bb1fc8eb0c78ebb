import { loadConfig } from "@browserfleet/config";
import { slotsSetBy } from "./limits/admission.ts";
import { describeSandbox } from "./sandbox.ts";
import { startBrowserWorker, workerOptionsFrom } from "./worker.ts";

const config = loadConfig();
if (!config.NATS_URL) {
  console.error(
    "NATS_URL is required for a standalone browser worker (npm start runs one with a local NATS).",
  );
  process.exit(1);
}
try {
  const worker = await startBrowserWorker(workerOptionsFrom(config, config.NATS_URL));
  console.log(
    `browser worker ${worker.workerId}: ${worker.slots.slots} slots, metrics at ${worker.metricsUrl}`,
  );
  console.log(slotsSetBy(worker.slots));
  console.log(describeSandbox(worker.chromium.sandbox));
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
