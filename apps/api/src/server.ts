import type { Server } from "node:http";
import { connectBus, ensureTaskQueue, openWorkersBucket, taskBacklog } from "@browserfleet/bus";
import type { Config } from "@browserfleet/config";
import { createGuard, parseAllowList } from "@browserfleet/ssrf";
import { createApp } from "./app.ts";
import type { ApiContext } from "./context.ts";
import { createApiMetrics } from "./metrics.ts";
import { WorkerDirectory } from "./worker-directory.ts";

export interface RunningApi {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startApi(config: Config & { NATS_URL: string }): Promise<RunningApi> {
  const nc = await connectBus({ servers: config.NATS_URL, name: "api" });
  await ensureTaskQueue(nc, { maxPending: config.TASK_QUEUE_MAX, ackWaitMs: config.TASK_ACK_WAIT_MS });
  const workers = new WorkerDirectory(await openWorkersBucket(nc));
  await workers.start();
  const ctx: ApiContext = {
    config,
    nc,
    guard: createGuard({ allow: parseAllowList(config.FLEET_ALLOW_PRIVATE) }),
    workers,
    metrics: createApiMetrics({ backlog: () => taskBacklog(nc), slots: () => workers.slots() }),
  };
  const app = createApp(ctx);
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(config.PORT, config.HOST, () => resolve(s));
    s.once("error", reject);
  });
  server.keepAliveTimeout = 65_000;
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    async close() {
      workers.stop();
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
      await nc.drain().catch(() => {});
    },
  };
}
