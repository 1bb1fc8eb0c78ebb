import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningApi, startApi } from "@browserfleet/api";
import { createAccount, issueKey } from "@browserfleet/billing";
import { type BrowserWorker, type BrowserWorkerOptions, startBrowserWorker } from "@browserfleet/browser";
import { type LocalNats, startLocalNats } from "@browserfleet/bus";
import { loadConfig } from "@browserfleet/config";
import { type JobsProgram, startJobs } from "@browserfleet/jobs";
import { type FixtureSite, startFixtureSite } from "../fixture-site/server.ts";
import { startTestPostgres, type TestPostgres } from "./postgres.ts";
import { waitFor } from "./wait-for.ts";

export interface Stack {
  api: RunningApi;
  worker: BrowserWorker;
  /** The jobs program (batch and crawl), unless the stack was started with `jobs: false`. */
  jobs?: JobsProgram;
  nats: LocalNats;
  pg: TestPostgres;
  site: FixtureSite;
  /** The api's DATA_DIR (files it keeps: binaryAs url, the URL secret). */
  dataDir: string;
  /** A funded account ($100) whose key `post` sends by default. */
  key: string;
  accountId: string;
  /** Make another funded account and key, with a balance in micro-dollars. */
  newKey(balanceMicros: number): Promise<{ key: string; accountId: string }>;
  /** POST with the default key; pass an `authorization` header to replace it, or use postKeyless. */
  post(
    path: string,
    body: unknown,
    headers?: Record<string, string>,
    // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the route answered
  ): Promise<{ status: number; body: any; headers: Headers }>;
  postKeyless(
    path: string,
    body: unknown,
    headers?: Record<string, string>,
    // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the route answered
  ): Promise<{ status: number; body: any; headers: Headers }>;
  /** GET or DELETE with the default key (or the given authorization header). */
  call(
    method: "GET" | "DELETE",
    path: string,
    headers?: Record<string, string>,
    // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the route answered
  ): Promise<{ status: number; body: any; headers: Headers }>;
  stop(): Promise<void>;
}

/** A real local stack: nats-server with JetStream, one Chromium worker, the api, and the fixture site. */
export async function startStack(
  opts: {
    allowPrivate?: string;
    slots?: number;
    env?: Record<string, string>;
    jobs?: boolean;
    /** Worker options beyond the stack's own (warm contexts, recycling). */
    worker?: Partial<BrowserWorkerOptions>;
  } = {},
): Promise<Stack> {
  const dir = await mkdtemp(join(tmpdir(), "fleet-e2e-"));
  const site = await startFixtureSite();
  const [nats, pg] = await Promise.all([startLocalNats({ dataDir: join(dir, "nats") }), startTestPostgres()]);
  const allowPrivate = "allowPrivate" in opts ? opts.allowPrivate : "127.0.0.1/32";
  const dataDir = join(dir, "data");
  const config = loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    // Files the api keeps (binaryAs url, its URL secret) go with the rest of the run's data.
    DATA_DIR: dataDir,
    ...(allowPrivate ? { FLEET_ALLOW_PRIVATE: allowPrivate } : {}),
    ...opts.env,
  });
  const worker = await startBrowserWorker({
    natsUrl: nats.url,
    slots: opts.slots ?? 2,
    ackWaitMs: 30_000,
    queueMax: 100,
    allowPrivate,
    metricsPort: 0,
    // The same egress settings as the api and the jobs program, as one deployment has.
    egressPools: config.EGRESS_PROXIES,
    callerProxies: config.CALLER_PROXIES === "on",
    // Sandboxed as in the images wherever the machine allows it; as root (CI), Chromium runs as nobody.
    sandbox: "auto",
    sandboxUser: "nobody",
    ...opts.worker,
  });
  const api = await startApi({ ...config, NATS_URL: nats.url, DATABASE_URL: pg.url });
  const jobs =
    opts.jobs === false
      ? undefined
      : await startJobs({ config, natsUrl: nats.url, databaseUrl: pg.url, metricsPort: 0, log: () => {} });
  const newKey = async (balanceMicros: number) => {
    const { accountId } = await createAccount(pg.database.db, { balanceMicros });
    const { key } = await issueKey(pg.database.db, accountId, "e2e");
    return { key, accountId };
  };
  const main = await newKey(100_000_000);
  const send = async (path: string, body: unknown, headers: Record<string, string>, method = "POST") => {
    const res = await fetch(api.url + path, {
      method,
      headers: method === "POST" ? { "content-type": "application/json", ...headers } : headers,
      body: method !== "POST" ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: res.status, body: parsed, headers: res.headers };
  };
  return {
    api,
    worker,
    jobs,
    nats,
    pg,
    site,
    dataDir,
    key: main.key,
    accountId: main.accountId,
    newKey,
    post: (path, body, headers = {}) => send(path, body, { authorization: `Bearer ${main.key}`, ...headers }),
    postKeyless: (path, body, headers = {}) => send(path, body, headers),
    call: (method, path, headers = {}) =>
      send(path, undefined, { authorization: `Bearer ${main.key}`, ...headers }, method),
    async stop() {
      await jobs?.stop();
      await api.close();
      await worker.stop();
      await nats.stop();
      await pg.stop();
      await site.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Poll a batch or crawl job with `key` until it is neither queued nor running; returns its last status
 * (with up to 200 results).
 */
export function waitJob(
  stack: Stack,
  path: string,
  key: string,
  timeoutMs = 90_000,
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the route answered
): Promise<any> {
  return waitFor(
    `the job at ${path} to end`,
    async () => {
      const r = await stack.call("GET", `${path}?limit=200`, { authorization: `Bearer ${key}` });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.ok(!["queued", "running"].includes(r.body.status), `the job is still ${r.body.status}`);
      return r.body;
    },
    timeoutMs,
    100,
  );
}
