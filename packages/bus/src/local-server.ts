import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { createServer, Socket } from "node:net";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";

export interface LocalNats {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** Kill -9, for tests of what survives a crash. */
  kill(): void;
  process: ChildProcess;
}

export class MissingBinaryError extends Error {}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** One server's place in a local cluster: its name, its route port, and its peers' route ports. */
export interface LocalClusterMember {
  name: string;
  serverName: string;
  routePort: number;
  peerRoutePorts: number[];
}

/** Start a real nats-server with JetStream on loopback, storing its data in dataDir. */
export async function startLocalNats(opts: {
  dataDir: string;
  port?: number;
  maxPayload?: string;
  cluster?: LocalClusterMember;
  /** Serve Go's pprof on this loopback port (the soak reads the server's own heap figures there). */
  profPort?: number;
}): Promise<LocalNats> {
  const bin = process.env.NATS_SERVER_BIN ?? "nats-server";
  const port = opts.port ?? (await freePort());
  await mkdir(opts.dataDir, { recursive: true });
  const conf = join(opts.dataDir, "nats.conf");
  const c = opts.cluster;
  await writeFile(
    conf,
    [
      `listen: 127.0.0.1:${port}`,
      `max_payload: ${opts.maxPayload ?? "8MB"}`,
      `jetstream { store_dir: ${JSON.stringify(join(opts.dataDir, "jetstream"))} }`,
      ...(opts.profPort ? [`prof_port: ${opts.profPort}`] : []),
      ...(c
        ? [
            `server_name: ${c.serverName}`,
            `cluster { name: ${c.name}, listen: 127.0.0.1:${c.routePort}, routes: [${c.peerRoutePorts
              .map((p) => `nats://127.0.0.1:${p}`)
              .join(", ")}] }`,
          ]
        : []),
    ].join("\n"),
  );
  // Go's default GOGC=100 lets the heap double before a collection: under steady load the server's
  // memory then climbs for some 20 minutes before it levels off. At 50 it levels off within about 12
  // and lower (23 against 26 MiB in the 3-caller soak), for a little more collector CPU.
  const child = spawn(bin, ["-c", conf], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, GOGC: process.env.NATS_GOGC ?? "50" },
  });
  let stderr = "";
  child.stderr?.on("data", (d) => {
    stderr = (stderr + String(d)).slice(-4000);
  });
  const spawnError = new Promise<never>((_, reject) => {
    child.once("error", (err: NodeJS.ErrnoException) => {
      reject(
        err.code === "ENOENT"
          ? new MissingBinaryError(
              `nats-server was not found (looked for "${bin}"). Install it (Debian: apt-get install nats-server), set NATS_SERVER_BIN to its path, or point NATS_URL at a running server.`,
            )
          : err,
      );
    });
    child.once("exit", (code) => reject(new Error(`nats-server exited with code ${code}: ${stderr.trim()}`)));
  });
  await Promise.race([waitForPort(port, 10_000), spawnError]);
  spawnError.catch(() => {});
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    process: child,
    kill: () => child.kill("SIGKILL"),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = new Socket();
      s.once("connect", () => {
        s.destroy();
        resolve(true);
      });
      s.once("error", () => resolve(false));
      s.connect(port, "127.0.0.1");
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nats-server did not listen on port ${port} within ${timeoutMs} ms`);
}

export interface LocalNatsCluster {
  /** Every server's client URL, comma-separated: what NATS_URL takes. */
  url: string;
  servers: LocalNats[];
  /** Start server `i` again (after a kill or stop) on its ports and data. */
  restart(i: number): Promise<LocalNats>;
  stop(): Promise<void>;
}

/**
 * A real NATS cluster of `size` servers with JetStream on loopback (routes between all of them), each
 * storing its data under dataDir/n<i>. Ready when JetStream answers: a stream can be made at once.
 */
export async function startLocalNatsCluster(opts: {
  dataDir: string;
  size?: number;
}): Promise<LocalNatsCluster> {
  const size = opts.size ?? 3;
  const clientPorts: number[] = [];
  const routePorts: number[] = [];
  for (let i = 0; i < size; i++) {
    clientPorts.push(await freePort());
    routePorts.push(await freePort());
  }
  const start = (i: number) =>
    startLocalNats({
      dataDir: join(opts.dataDir, `n${i}`),
      port: clientPorts[i],
      cluster: {
        name: "fleet",
        serverName: `n${i}`,
        routePort: routePorts[i] as number,
        peerRoutePorts: routePorts.filter((_, j) => j !== i),
      },
    });
  const servers = await Promise.all(Array.from({ length: size }, (_, i) => start(i)));
  const url = servers.map((s) => s.url).join(",");
  await jetStreamAnswers(url, 30_000);
  return {
    url,
    servers,
    async restart(i) {
      servers[i] = await start(i);
      return servers[i] as LocalNats;
    },
    async stop() {
      await Promise.all(servers.map((s) => s.stop()));
    },
  };
}

/** Waits until the cluster has elected its JetStream meta leader (its API answers). */
async function jetStreamAnswers(url: string, timeoutMs: number): Promise<void> {
  const nc = await connect({ servers: url.split(","), name: "local-cluster-probe" });
  const until = Date.now() + timeoutMs;
  try {
    for (;;) {
      try {
        await (await jetstreamManager(nc, { timeout: 1_000 })).getAccountInfo();
        return;
      } catch (err) {
        if (Date.now() > until)
          throw new Error(`the NATS cluster's JetStream did not answer: ${(err as Error).message}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  } finally {
    await nc.close();
  }
}
