import { loadConfig } from "@browserfleet/config";
import { startApi } from "./server.ts";

const config = loadConfig();
if (!config.NATS_URL) {
  console.error("NATS_URL is required for a standalone api (npm start runs one with a local NATS).");
  process.exit(1);
}
if (!config.DATABASE_URL) {
  console.error("DATABASE_URL is required for a standalone api (npm start runs an embedded PostgreSQL).");
  process.exit(1);
}
try {
  const api = await startApi({ ...config, NATS_URL: config.NATS_URL, DATABASE_URL: config.DATABASE_URL });
  console.log(`api listening on ${api.url}`);
  for (const sig of ["SIGTERM", "SIGINT"] as const) {
    process.once(sig, async () => {
      // Calls in flight get their answers first (the pod's grace period is 30 s).
      await api.close(Math.round(config.SHUTDOWN_TIMEOUT_MS * 0.6));
      process.exit(0);
    });
  }
} catch (err) {
  console.error(`api failed to start: ${(err as Error).message}`);
  process.exit(1);
}
