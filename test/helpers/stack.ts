import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningApi, startApi } from "@browserfleet/api";
import { type BrowserWorker, startBrowserWorker } from "@browserfleet/browser";
import { type LocalNats, startLocalNats } from "@browserfleet/bus";
import { loadConfig } from "@browserfleet/config";
import { type FixtureSite, startFixtureSite } from "../fixture-site/server.ts";

export interface Stack {
  api: RunningApi;
  worker: BrowserWorker;
  nats: LocalNats;
  site: FixtureSite;
  post(
    path: string,
    body: unknown,
    headers?: Record<string, string>,
    // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the route answered
  ): Promise<{ status: number; body: any; headers: Headers }>;
  stop(): Promise<void>;
}

/** A real local stack: nats-server with JetStream, one Chromium worker, the api, and the fixture site. */
export async function startStack(
  opts: { allowPrivate?: string; slots?: number; env?: Record<string, string> } = {},
): Promise<Stack> {
  const dir = await mkdtemp(join(tmpdir(), "fleet-e2e-"));
  const site = await startFixtureSite();
  const nats = await startLocalNats({ dataDir: join(dir, "nats") });
  const allowPrivate = "allowPrivate" in opts ? opts.allowPrivate : "127.0.0.1/32";
  const worker = await startBrowserWorker({
    natsUrl: nats.url,
    slots: opts.slots ?? 2,
    ackWaitMs: 30_000,
    queueMax: 100,
    allowPrivate,
    metricsPort: 0,
  });
  const config = loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    ...(allowPrivate ? { FLEET_ALLOW_PRIVATE: allowPrivate } : {}),
    ...opts.env,
  });
  const api = await startApi({ ...config, NATS_URL: nats.url });
  return {
    api,
    worker,
    nats,
    site,
    async post(path, body, headers = {}) {
      const res = await fetch(api.url + path, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {}
      return { status: res.status, body: parsed, headers: res.headers };
    },
    async stop() {
      await api.close();
      await worker.stop();
      await nats.stop();
      await site.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
