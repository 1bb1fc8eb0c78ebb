/**
 * The small HTTP server every program but the api runs beside its work: Prometheus's /metrics and the
 * kubelet's probes. One server, so the probes answer alike everywhere and a new program gets them in one
 * call.
 */
import { createServer, type Server } from "node:http";
import type { Registry } from "prom-client";

/** A probe's answer: 200 with "ok" when ready, else 503 with what it is doing ("draining", "starting"). */
export type ProbeState = { ok: true } | { ok: false; why: string };

export interface ProbeOptions {
  /** Undefined: no server (a program run without a metrics port, as in tests). */
  port: number | undefined;
  /** Where to listen; every interface by default, as the kubelet and Prometheus reach the pod's IP. */
  host?: string;
  registry: Registry;
  /** /healthz: 503 turns the pod out of its Service (a draining worker) and, for liveness, restarts it. */
  health?: () => ProbeState;
  /** /readyz, when the program has one. */
  ready?: () => ProbeState;
  /** Gauges read on demand before each scrape; a failure serves what is there (a scrape must not fail). */
  beforeMetrics?: () => Promise<void>;
}

export interface ProbeServer {
  /** The /metrics address on loopback (the port chosen, when `port` was 0). */
  metricsUrl: string;
  close(): Promise<void>;
}

const OK: ProbeState = { ok: true };

function answer(res: import("node:http").ServerResponse, state: ProbeState): void {
  res.statusCode = state.ok ? 200 : 503;
  res.end(state.ok ? "ok" : state.why);
}

export async function serveProbes(opts: ProbeOptions & { port: number }): Promise<ProbeServer>;
export async function serveProbes(opts: ProbeOptions): Promise<ProbeServer | undefined>;
export async function serveProbes(opts: ProbeOptions): Promise<ProbeServer | undefined> {
  if (opts.port === undefined) return undefined;
  const server: Server = createServer(async (req, res) => {
    const path = req.url?.split("?")[0];
    if (path === "/metrics") {
      await opts.beforeMetrics?.().catch(() => {});
      res.setHeader("Content-Type", opts.registry.contentType);
      res.end(await opts.registry.metrics());
    } else if (path === "/healthz") answer(res, opts.health?.() ?? OK);
    else if (path === "/readyz" && opts.ready) answer(res, opts.ready());
    else {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host ?? "0.0.0.0", () => resolve());
  });
  return {
    metricsUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
