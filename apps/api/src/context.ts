import type { BalanceLeases, UsageRecorder } from "@browserfleet/billing";
import type { PageSnapshots } from "@browserfleet/changes";
import type { Config } from "@browserfleet/config";
import type { Database } from "@browserfleet/db";
import type { ProfileStore } from "@browserfleet/profiles";
import type { RenderCache } from "@browserfleet/render-cache";
import type { Guard } from "@browserfleet/ssrf";
import type { WebhookSecrets } from "@browserfleet/webhooks";
import type { NatsConnection } from "@nats-io/transport-node";
import type { AllowanceStore } from "./allowance/index.ts";
import type { Artifacts } from "./answers/artifacts.ts";
import type { BusDrops } from "./bus-drops.ts";
import type { ApiMetrics } from "./metrics.ts";
import type { X402Payments } from "./payments/x402.ts";
import type { WorkerDirectory } from "./worker-directory.ts";

/** What route handlers share: configuration, the bus, the database, the guard, the worker view and metrics. */
export interface ApiContext {
  config: Config;
  nc: NatsConnection;
  guard: Guard;
  workers: WorkerDirectory;
  /** The bus connection's drops: a request in flight then may have lost its message. */
  busDrops: BusDrops;
  metrics: ApiMetrics;
  db: Database;
  cache: RenderCache;
  /** Files given out by URL (binaryAs "url"). */
  artifacts: Artifacts;
  usage: UsageRecorder;
  /** Final charges (calls served wholly from cache), taken from per-replica balance leases. */
  leases: BalanceLeases;
  allowance: AllowanceStore;
  /** Saved browser states of accounts (profiles), sealed at rest. */
  profiles: ProfileStore;
  /** Each account's last render of each URL, for the changes format. */
  snapshots: PageSnapshots;
  /** Each account's webhook signing secret, sealed at rest. */
  webhookSecrets: WebhookSecrets;
  /** Wallet payments; undefined when X402_PAY_TO is not configured. */
  x402?: X402Payments;
}
