/**
 * `npm start`: the whole service on one machine. A local nats-server with JetStream (unless NATS_URL is set),
 * one browser worker with system Chromium, the jobs program and the api, in one process tree.
 */
import { resolve } from "node:path";
import { startApi } from "@browserfleet/api";
import {
  ChromiumMissingError,
  findChromium,
  startBrowserWorker,
  workerOptionsFrom,
} from "@browserfleet/browser";
import { type LocalNats, MissingBinaryError, startLocalNats } from "@browserfleet/bus";
import { loadConfig } from "@browserfleet/config";
import { locateDatabase } from "@browserfleet/db";
import { startJobs } from "@browserfleet/jobs";

async function main(): Promise<void> {
  const config = loadConfig();
  findChromium();
  let nats: LocalNats | undefined;
  let natsUrl = config.NATS_URL;
  if (!natsUrl) {
    nats = await startLocalNats({ dataDir: resolve(config.DATA_DIR, "nats") });
    natsUrl = nats.url;
    console.log(`nats-server with JetStream on ${natsUrl} (data in ${resolve(config.DATA_DIR, "nats")})`);
  }
  const database = await locateDatabase(config);
  console.log(database.describe);
  const worker = await startBrowserWorker(workerOptionsFrom(config, natsUrl));
  console.log(
    `browser worker ${worker.workerId}: ${config.BROWSER_SLOTS} slots, metrics at ${worker.metricsUrl}`,
  );
  const api = await startApi({ ...config, NATS_URL: natsUrl, DATABASE_URL: database.url });
  const jobs = await startJobs({
    config,
    natsUrl,
    databaseUrl: database.url,
    metricsPort: config.JOBS_METRICS_PORT,
  });
  console.log(`jobs program (batch and crawl): metrics at ${jobs.metricsUrl}`);
  console.log(`Browserfleet api on http://${config.HOST}:${api.port} (try GET /web/v1/scrape)`);

  let stopping = false;
  const stop = async (sig: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${sig}: shutting down`);
    await api.close();
    await jobs.stop();
    await worker.stop();
    await nats?.stop();
    await database.stop();
    process.exit(0);
  };
  process.once("SIGINT", () => void stop("SIGINT"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
}

main().catch((err) => {
  if (err instanceof ChromiumMissingError || err instanceof MissingBinaryError) console.error(err.message);
  else console.error(`failed to start: ${(err as Error).stack ?? err}`);
  process.exit(1);
});
