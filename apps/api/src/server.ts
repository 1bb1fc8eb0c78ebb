import type { Server, ServerResponse } from "node:http";
import { join } from "node:path";
import {
  BalanceLeases,
  LeaseJournal,
  reapExpiredHolds,
  releaseStaleWalletClaims,
  replayLeaseJournals,
  UsageRecorder,
} from "@browserfleet/billing";
import { connectBus, ensureTaskQueue, openWorkersBucket, taskBacklog } from "@browserfleet/bus";
import { PageSnapshots } from "@browserfleet/changes";
import type { Config } from "@browserfleet/config";
import { connectDb, migrateDb } from "@browserfleet/db";
import { profileStoreFrom } from "@browserfleet/profiles";
import { RenderCache } from "@browserfleet/render-cache";
import { createGuard, parseAllowList } from "@browserfleet/ssrf";
import { webhookSecretsFrom } from "@browserfleet/webhooks";
import { AllowanceStore } from "./allowance/index.ts";
import { artifactsFrom, startArtifactSweeper } from "./answers/artifacts.ts";
import { createApp } from "./app.ts";
import { sweepStaleWalletClaims } from "./billing/stale-claims.ts";
import { BusDrops } from "./bus-drops.ts";
import type { ApiContext } from "./context.ts";
import { createApiMetrics } from "./metrics.ts";
import { actWaitMs } from "./operations/act.ts";
import { createX402, type X402Payments } from "./payments/x402.ts";
import { serveProfileSaves } from "./profiles/save-requests.ts";
import { serveRecordingParts } from "./recordings/save-requests.ts";
import { sweepRecordings } from "./recordings/store.ts";
import { recordEndedSessions } from "./sessions/ended-events.ts";
import { chargeEndedTails, expireOverdueSessions } from "./sessions/store.ts";
import { WorkerDirectory } from "./worker-directory.ts";

export interface RunningApi {
  url: string;
  port: number;
  /**
   * Stop taking requests, let those in flight finish for up to `graceMs` (their callers get their answer),
   * then close what is left and the api's own connections.
   */
  close(graceMs?: number): Promise<void>;
}

const REAP_EVERY_MS = 30_000;

/** A closing server's requests in flight; resolves when none is left (or at once when none was). */
function trackInFlight(server: Server): { drained(): Promise<void> } {
  const inFlight = new Set<ServerResponse>();
  let closing = false;
  let onDrained: (() => void) | undefined;
  // A closing server answers on a connection that then ends, so the caller does not send on it again.
  const last = (res: ServerResponse) => {
    if (!res.headersSent) res.shouldKeepAlive = false;
  };
  server.on("request", (_req, res: ServerResponse) => {
    inFlight.add(res);
    if (closing) last(res);
    res.once("close", () => {
      inFlight.delete(res);
      if (closing) setImmediate(() => server.closeIdleConnections());
      if (inFlight.size === 0) onDrained?.();
    });
  });
  return {
    drained() {
      closing = true;
      for (const res of inFlight) last(res);
      return inFlight.size === 0 ? Promise.resolve() : new Promise((r) => (onDrained = r));
    },
  };
}

async function walletPayments(config: Config): Promise<X402Payments | undefined> {
  if (!config.X402_PAY_TO) return undefined;
  return createX402({
    network: config.X402_NETWORK as `${string}:${string}`,
    asset: config.X402_ASSET as `0x${string}`,
    assetName: config.X402_ASSET_NAME,
    assetVersion: config.X402_ASSET_VERSION,
    payTo: config.X402_PAY_TO as `0x${string}`,
    maxTimeoutSeconds: config.X402_MAX_TIMEOUT_SECONDS,
    facilitatorUrl: config.X402_FACILITATOR_URL,
    facilitatorPrivateKey: config.X402_FACILITATOR_PRIVATE_KEY as `0x${string}` | undefined,
    rpcUrl: config.X402_RPC_URL,
  });
}

/**
 * Wallet claims whose call died before it recorded or released them (older than twice an authorization's
 * lifetime), one sweep at a time. With the in-process facilitator the chain is asked what became of each
 * authorization: a settlement that landed is recorded, an authorization that expired unused is dropped.
 */
function walletClaimSweeper(ctx: ApiContext): () => Promise<void> {
  const { config } = ctx;
  const olderThanMs = config.X402_MAX_TIMEOUT_SECONDS * 2000;
  let sweeping = false;
  return async () => {
    if (sweeping) return;
    sweeping = true;
    try {
      const chain = ctx.x402?.chain;
      if (chain) {
        await sweepStaleWalletClaims(
          {
            db: ctx.db.db,
            chain,
            network: config.X402_NETWORK,
            maxTimeoutSeconds: config.X402_MAX_TIMEOUT_SECONDS,
            metrics: ctx.metrics,
          },
          olderThanMs,
        );
      } else {
        // No node to ask: a remote facilitator (X402_FACILITATOR_URL) answers verify and settle only, and
        // cannot say what became of an authorization. Claims are dropped as before, and a settlement that
        // landed while its record failed stays out of the ledger.
        await releaseStaleWalletClaims(ctx.db.db, olderThanMs);
      }
    } catch (err) {
      console.error(`wallet claim sweep failed: ${(err as Error).message}`);
    } finally {
      sweeping = false;
    }
  };
}

/** The api's lease journal, or none (said once) where its folder cannot be written. */
function openLeaseJournal(dir: string): LeaseJournal | undefined {
  try {
    return new LeaseJournal(dir);
  } catch (err) {
    console.error(
      `lease journal off (${(err as Error).message}): calls charged from a balance lease in the last 250 ms before a crash go uncharged`,
    );
    return undefined;
  }
}

export async function startApi(
  config: Config & { NATS_URL: string; DATABASE_URL: string },
): Promise<RunningApi> {
  await migrateDb(config.DATABASE_URL);
  const database = connectDb(config.DATABASE_URL, { name: "api" });
  const nc = await connectBus({ servers: config.NATS_URL, name: "api" });
  const replicas = config.NATS_STREAM_REPLICAS;
  await ensureTaskQueue(nc, {
    maxPending: config.TASK_QUEUE_MAX,
    ackWaitMs: config.TASK_ACK_WAIT_MS,
    replicas,
  });
  const workers = new WorkerDirectory(nc, await openWorkersBucket(nc, replicas));
  await workers.start();
  const metrics = createApiMetrics({ backlog: () => taskBacklog(nc), slots: () => workers.slots() });
  const cache = new RenderCache({
    database,
    retentionMs: config.CACHE_RETENTION_MS,
    maxEntryBytes: config.CACHE_MAX_ENTRY_BYTES,
    memoryBytes: config.CACHE_MEMORY_BYTES,
    registry: metrics.registry,
    onError: (err, op) => console.error(`render cache ${op} failed: ${(err as Error).message}`),
  });
  const usage = new UsageRecorder(database.db, {
    flushMs: 250,
    maxBatch: 200,
    onError: (err) => console.error(`usage rows not written: ${(err as Error).message}`),
  });
  const journalDir = join(config.DATA_DIR, "lease-journal");
  const journal = openLeaseJournal(journalDir);
  // Calls a replica killed before it wrote them (kill -9, OOM) are charged now, and its leases closed.
  const replay = () =>
    replayLeaseJournals(database.db, journalDir).catch((err) =>
      console.error(`lease journal not replayed yet: ${(err as Error).message}`),
    );
  await replay();
  const leases = new BalanceLeases(
    database.db,
    {
      leaseMicros: config.BALANCE_LEASE_MICROS,
      maxLeaseMicros: Math.max(config.BALANCE_LEASE_MICROS, config.BALANCE_LEASE_MAX_MICROS),
      leaseMs: config.BALANCE_LEASE_MS,
      flushMs: 250,
      // Acts are reserved from leases: the longest one the api waits for.
      maxReservationMs: actWaitMs(config.ACT_TIMEOUT_MS),
      ...(journal ? { journal } : {}),
    },
    (err) => console.error(`balance lease: ${(err as Error).message}`),
  );
  const artifacts = artifactsFrom(config);
  const ctx: ApiContext = {
    config,
    nc,
    busDrops: new BusDrops(nc),
    guard: createGuard({ allow: parseAllowList(config.FLEET_ALLOW_PRIVATE) }),
    workers,
    metrics,
    db: database,
    cache,
    artifacts,
    usage,
    leases,
    allowance: new AllowanceStore(database),
    profiles: profileStoreFrom(config, database.db),
    webhookSecrets: webhookSecretsFrom(config, database.db),
    snapshots: new PageSnapshots(database.db),
    x402: await walletPayments(config),
  };
  const sweepWalletClaims = walletClaimSweeper(ctx);
  const stopSweeper = cache.startSweeper(10 * 60_000);
  const stopArtifactSweeper = startArtifactSweeper(artifacts, 10 * 60_000);
  // Money held by calls whose process died goes back to its account.
  const reaper = setInterval(() => {
    reapExpiredHolds(database.db).catch(() => {});
    void replay();
    void sweepWalletClaims();
    expireOverdueSessions(database.db, 60_000)
      .then(() => chargeEndedTails(database.db))
      .catch(() => {});
    ctx.snapshots.sweep(new Date(Date.now() - config.CHANGES_RETENTION_MS)).catch(() => {});
    sweepRecordings(database.db, new Date()).catch(() => {});
    // Day counters of the free allowance no longer matter once their UTC day is over.
    ctx.allowance.sweep().catch(() => {});
  }, REAP_EVERY_MS);
  reaper.unref();
  const endedSessions = recordEndedSessions(ctx);
  const profileSaves = serveProfileSaves(ctx);
  const recordingParts = serveRecordingParts(ctx);
  const app = createApp(ctx);
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(config.PORT, config.HOST, () => resolve(s));
    s.once("error", reject);
  });
  server.keepAliveTimeout = 65_000;
  const requests = trackInFlight(server);
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    async close(graceMs = 0) {
      clearInterval(reaper);
      endedSessions.unsubscribe();
      profileSaves.unsubscribe();
      recordingParts.unsubscribe();
      stopSweeper();
      stopArtifactSweeper();
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeIdleConnections();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        requests.drained(),
        new Promise<void>((r) => {
          timer = setTimeout(r, graceMs);
        }),
      ]);
      clearTimeout(timer);
      server.closeAllConnections();
      await closed;
      await workers.stop();
      await nc.drain().catch(() => {});
      await usage.close();
      await leases.close().catch((err) => console.error(`leases not returned: ${(err as Error).message}`));
      journal?.close();
      await artifacts.close().catch(() => {});
      await database.close();
    },
  };
}
