import { loadConfig } from "@browserfleet/config";
import { startJobs } from "./index.ts";

const config = loadConfig();
if (!config.NATS_URL || !config.DATABASE_URL) {
  console.error("NATS_URL and DATABASE_URL are required for a standalone jobs program (npm start runs one).");
  process.exit(1);
}
try {
  const jobs = await startJobs({
    config,
    natsUrl: config.NATS_URL,
    databaseUrl: config.DATABASE_URL,
    metricsPort: config.JOBS_METRICS_PORT,
  });
  console.log(`jobs program running, metrics at ${jobs.metricsUrl}`);
  for (const sig of ["SIGTERM", "SIGINT"] as const) {
    process.once(sig, async () => {
      await jobs.stop();
      process.exit(0);
    });
  }
} catch (err) {
  console.error(`jobs program failed to start: ${(err as Error).message}`);
  process.exit(1);
}
