/**
 * `npm start`: the whole service on one machine. A local nats-server with JetStream (unless NATS_URL is set),
 * the embedded PostgreSQL (unless DATABASE_URL is set), one browser worker with system Chromium, the jobs
 * program and the api, in one process tree. scripts/setup.mjs has installed what this needs before it runs.
 *
 * A start that fails stops what it had already started, in reverse order, and says why in one line naming
 * the setting at fault (the stack too with DEBUG set). Ctrl-C, SIGTERM or SIGHUP stop everything the same
 * way, during start-up as well: the api stops taking requests and lets those in flight finish, then the
 * jobs program and the worker stop (their bus consumers close), then PostgreSQL and nats-server, all
 * within SHUTDOWN_TIMEOUT_MS; past it, or on a second signal, what still runs is killed and the exit
 * status is 1. `npm start` runs this under scripts/launch.mjs, which keeps the terminal's signals from
 * reaching nats-server and PostgreSQL directly.
 */
import { resolve } from "node:path";
import { startApi } from "@browserfleet/api";
import {
  describeSandbox,
  findChromium,
  slotsSetBy,
  startBrowserWorker,
  workerOptionsFrom,
} from "@browserfleet/browser";
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

/** What is running, in the order it started; stopped from the end. `kill` ends a part that would not stop. */
const running: { name: string; stop: () => Promise<void>; kill?: () => void }[] = [];
let config: Config | undefined;
/** The part starting now, named in the line of a failure without a known cause. */
let starting: string | undefined;
/** The part stopping now, named when the stop runs out of time. */
let stopping: string | undefined;
let ready = false;
let stopSignal: { name: string; at: number } | undefined;
let exiting = false;

/** A signal this soon after the first is the same request (a terminal's and npm's copy of one Ctrl-C). */
const SAME_REQUEST_MS = 1000;
const stopBoundMs = (): number => config?.SHUTDOWN_TIMEOUT_MS ?? 15_000;

class Interrupted extends Error {}

/** Start one part and remember how to stop it; a signal that came meanwhile ends the start-up here. */
async function start<T>(
  name: string,
  run: () => Promise<T>,
  stop: (part: T) => Promise<void>,
  kill?: (part: T) => void,
): Promise<T> {
  if (stopSignal) throw new Interrupted();
  starting = name;
  const part = await run();
  running.push({ name, stop: () => stop(part), kill: kill && (() => kill(part)) });
  starting = undefined;
  takeSignals();
  if (stopSignal) throw new Interrupted();
  return part;
}

/**
 * Stop every part, the last started first, within SHUTDOWN_TIMEOUT_MS; past it, or on a second signal,
 * what still runs is killed and the exit status is 1.
 */
async function stopAll(code: number): Promise<never> {
  if (!exiting) {
    exiting = true;
    const bound = stopBoundMs();
    setTimeout(() => force(`${stopping ?? "the stop"} did not stop within ${bound / 1000} s`), bound).unref();
    for (let part = running.at(-1); part; part = running.at(-1)) {
      stopping = part.name;
      try {
        await part.stop();
      } catch (err) {
        code = 1;
        console.error(
          `${part.name} did not stop cleanly: ${oneLine(String((err as Error)?.message ?? err))}`,
        );
      }
      running.pop();
    }
    process.exit(code);
  }
  return new Promise<never>(() => {});
}

/** Kill what still runs, last started first, and exit 1. */
function force(why: string): void {
  console.error(`${why}: forcing the stop`);
  for (let part = running.pop(); part; part = running.pop()) part.kill?.();
  process.exit(1);
}

function onSignal(sig: NodeJS.Signals): void {
  const now = Date.now();
  if (stopSignal) {
    if (now - stopSignal.at >= SAME_REQUEST_MS) force(`a second ${sig}`);
    return;
  }
  stopSignal = { name: sig, at: now };
  console.log(`${sig}: shutting down (at most ${stopBoundMs() / 1000} s; again to force)`);
  // During start-up the part now starting finishes first (start() then throws Interrupted).
  if (ready || !starting) void stopAll(0);
}

/**
 * This process stops everything itself, in order, so it owns its signals: Playwright adds handlers that
 * close its browsers and then exit the process, which would leave nats-server behind. Their exit-time
 * clean-up stays. Called again after each part starts, since parts add handlers.
 */
function takeSignals(): void {
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    for (const listener of process.listeners(sig)) if (listener !== onSignal) process.off(sig, listener);
    if (!process.listeners(sig).includes(onSignal)) process.on(sig, onSignal);
  }
}

/** Under `npm start`'s supervisor (scripts/launch.mjs): if it is killed, stop as if signalled. */
function watchSupervisor(): void {
  if (!process.env.BROWSERFLEET_SUPERVISED) return;
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) onSignal("SIGHUP");
  }, 1000).unref();
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
  watchSupervisor();
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
      (n) => n.kill(),
    );
    natsUrl = nats.url;
    console.log(`nats-server with JetStream on ${natsUrl} (data in ${dataDir})`);
  }
  const database = await start(
    "PostgreSQL",
    () => locateDatabase(cfg),
    (d) => d.stop(),
    (d) => d.kill?.(),
  );
  console.log(database.describe);
  const url = natsUrl;
  const worker = await start(
    "browser worker",
    () => startBrowserWorker(workerOptionsFrom(cfg, url)),
    (w) => w.stop(),
  );
  console.log(
    `browser worker ${worker.workerId}: ${worker.slots.slots} slots, metrics at ${worker.metricsUrl}`,
  );
  console.log(slotsSetBy(worker.slots));
  console.log(describeSandbox(worker.chromium.sandbox));
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
    // Calls in flight get most of the bound to finish; the parts behind the api need the rest.
    (a) => a.close(Math.round(cfg.SHUTDOWN_TIMEOUT_MS * 0.6)),
  );
  ready = true;
  console.log(`Browserfleet api on http://${cfg.HOST}:${api.port} (try GET /web/v1/scrape)`);
}

main().catch(fail);
