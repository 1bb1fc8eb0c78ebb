import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { createServer, Socket } from "node:net";
import { join } from "node:path";

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

/** Start a real nats-server with JetStream on loopback, storing its data in dataDir. */
export async function startLocalNats(opts: {
  dataDir: string;
  port?: number;
  maxPayload?: string;
}): Promise<LocalNats> {
  const bin = process.env.NATS_SERVER_BIN ?? "nats-server";
  const port = opts.port ?? (await freePort());
  await mkdir(opts.dataDir, { recursive: true });
  const conf = join(opts.dataDir, "nats.conf");
  await writeFile(
    conf,
    [
      `listen: 127.0.0.1:${port}`,
      `max_payload: ${opts.maxPayload ?? "8MB"}`,
      `jetstream { store_dir: ${JSON.stringify(join(opts.dataDir, "jetstream"))} }`,
    ].join("\n"),
  );
  const child = spawn(bin, ["-c", conf], { stdio: ["ignore", "ignore", "pipe"] });
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
