import type { Config } from "@browserfleet/config";
import type { Guard } from "@browserfleet/ssrf";
import type { NatsConnection } from "@nats-io/transport-node";
import type { ApiMetrics } from "./metrics.ts";
import type { WorkerDirectory } from "./worker-directory.ts";

/** What route handlers share: configuration, the bus, the guard, the worker view and metrics. */
export interface ApiContext {
  config: Config;
  nc: NatsConnection;
  guard: Guard;
  workers: WorkerDirectory;
  metrics: ApiMetrics;
}
