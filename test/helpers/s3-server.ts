/**
 * A real S3-compatible object store for tests: SeaweedFS's `weed server` (master, volume server, filer and
 * S3 gateway in one process) on loopback ports, its data in a temporary folder, with one identity allowed
 * everything and one bucket made. The binary is built from its Go module by scripts/k8s-tools.sh (weed)
 * into .tools/bin, which `node scripts/setup.mjs test` (so `npm test`) does on a fresh machine.
 *
 * For outage tests: `pause()` freezes the process (SIGSTOP: connections are still accepted by the kernel,
 * nothing answers) and `resume()` lets it go on at once; `restart()` stops it and starts it again on the
 * same ports and data, which takes 15 to 20 s: reads work again after a few seconds, but a restarted master
 * that had volumes refuses new writes for a warm-up of three heartbeats (15 s, fixed in this version).
 * A first start takes about 10 s. weed's own output goes to weed.log in the temporary folder; a failure
 * quotes its tail.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { freePort } from "@browserfleet/bus";
import { waitFor } from "./wait-for.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const TOOLS_BIN = process.env.BROWSERFLEET_TOOLS_DIR
  ? join(process.env.BROWSERFLEET_TOOLS_DIR, "bin")
  : join(ROOT, ".tools", "bin");

/** The weed binary: WEED_BIN, else the one scripts/k8s-tools.sh builds into .tools/bin. */
export const WEED_BIN = process.env.WEED_BIN ?? join(TOOLS_BIN, "weed");

const HOW_TO_BUILD =
  "build it with `scripts/k8s-tools.sh weed` (SeaweedFS from its Go module, about 15 minutes the first time; " +
  "`node scripts/setup.mjs test` does it too), or point WEED_BIN at a weed binary";

/** Why no S3 server can start here (no weed binary), with how to get one; undefined when it can. */
export function s3ServerMissing(): string | undefined {
  if (existsSync(WEED_BIN)) return undefined;
  const shown = WEED_BIN.startsWith(`${ROOT}/`) ? relative(ROOT, WEED_BIN) : WEED_BIN;
  return `SeaweedFS's weed is not at ${shown}: ${HOW_TO_BUILD}`;
}

export interface S3Server {
  /** http://127.0.0.1:<port>; use path-style addressing (forcePathStyle: true). */
  endpoint: string;
  region: "us-east-1";
  /** A bucket made at start. */
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The temporary folder: data/, the S3 identities (s3.json) and weed.log. */
  dir: string;
  logFile: string;
  /** The last lines weed wrote. */
  logTail(lines?: number): string;
  /** Freeze the store (SIGSTOP): requests connect and then get no answer. */
  pause(): void;
  /** Let a paused store go on (SIGCONT). */
  resume(): void;
  /** Stop the store and start it again on the same ports and data; resolves when it serves again. */
  restart(): Promise<void>;
  /** Stop it for good and remove its folder. */
  stop(): Promise<void>;
}

const STARTUP_TIMEOUT_MS = 90_000;
const PROBE_KEY = ".s3-server-probe";

/** Start weed with an S3 gateway; resolves once a bucket exists and an object can be written and read. */
export async function startS3Server(opts: { bucket?: string } = {}): Promise<S3Server> {
  const missing = s3ServerMissing();
  if (missing) throw new Error(missing);

  const dir = await mkdtemp(join(tmpdir(), "fleet-s3-"));
  const dataDir = join(dir, "data");
  await mkdir(dataDir);
  const logFile = join(dir, "weed.log");
  const bucket = opts.bucket ?? "browserfleet-test";
  const accessKeyId = "browserfleet-test";
  const secretAccessKey = randomBytes(20).toString("hex");
  const configFile = join(dir, "s3.json");
  await writeFile(
    configFile,
    JSON.stringify({
      identities: [
        {
          name: "browserfleet-test",
          credentials: [{ accessKey: accessKeyId, secretKey: secretAccessKey }],
          actions: ["Admin", "Read", "List", "Tagging", "Write"],
        },
      ],
    }),
  );

  const ports = await distinctFreePorts(8);
  const [master, masterGrpc, volume, volumeGrpc, filer, filerGrpc, s3, s3Grpc] = ports as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const endpoint = `http://127.0.0.1:${s3}`;
  const args = [
    // glog writes files into /tmp unless told to use standard error only.
    "-logtostderr",
    "server",
    `-dir=${dataDir}`,
    "-ip=127.0.0.1",
    "-ip.bind=127.0.0.1",
    `-master.port=${master}`,
    `-master.port.grpc=${masterGrpc}`,
    // No reports to SeaweedFS's telemetry server (there is no network but loopback anyway).
    "-master.telemetry=false",
    // A single master that resumes its raft state waits out the election timeout (10 s by default).
    "-master.electionTimeout=1s",
    "-master.volumeSizeLimitMB=64",
    `-volume.port=${volume}`,
    `-volume.port.grpc=${volumeGrpc}`,
    // As many volumes as the disk holds (every bucket is a collection that takes several).
    "-volume.max=0",
    "-volume.preStopSeconds=0",
    "-filer",
    `-filer.port=${filer}`,
    `-filer.port.grpc=${filerGrpc}`,
    `-filer.localSocket=${join(dir, "filer.sock")}`,
    "-s3",
    `-s3.port=${s3}`,
    `-s3.port.grpc=${s3Grpc}`,
    `-s3.localSocket=${join(dir, "s3.sock")}`,
    // Iceberg and Lance catalogs are on by default, on fixed ports.
    "-s3.port.iceberg=0",
    "-s3.port.lance=0",
    `-s3.config=${configFile}`,
  ];
  // weed also listens on /tmp/seaweedfs-<service>-grpc-<port>.sock for its own gRPC: removed at the end.
  const grpcSockets = [
    ["master", masterGrpc],
    ["volume", volumeGrpc],
    ["filer", filerGrpc],
    ["s3", s3Grpc],
  ].map(([name, port]) => `/tmp/seaweedfs-${name}-grpc-${port}.sock`);

  const client = new S3Client({
    endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
    maxAttempts: 1,
    // Each probe gives up after a few seconds (the SDK only warns on requestTimeout without the flag).
    requestHandler: { connectionTimeout: 3_000, requestTimeout: 5_000, throwOnRequestTimeout: true },
  });

  let child: ChildProcess | undefined;
  let exited: Promise<number | string> = Promise.resolve("not started");
  let paused = false;

  const logTail = (lines = 40) => {
    try {
      return readFileSync(logFile, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
    } catch {
      return "(no weed.log)";
    }
  };
  const fail = (what: string) => new Error(`${what}\n--- last lines of ${logFile} ---\n${logTail()}`);

  const launch = () => {
    const out = openSync(logFile, "a");
    writeSync(out, `--- ${new Date().toISOString()} ${WEED_BIN} ${args.join(" ")}\n`);
    const proc = spawn(WEED_BIN, args, { cwd: dir, stdio: ["ignore", out, out] });
    closeSync(out);
    child = proc;
    paused = false;
    exited = new Promise((ok) => {
      proc.once("exit", (code, signal) => ok(signal ?? code ?? "unknown"));
      proc.once("error", (err) => ok(err.message));
    });
    procs.add(proc);
    proc.once("exit", () => procs.delete(proc));
  };

  /** Wait until S3 answers for real: the bucket exists (made the first time) and an object goes and comes back. */
  const ready = async (what: string) => {
    let bucketReady = false;
    const check = async () => {
      if (!bucketReady) {
        await client.send(new CreateBucketCommand({ Bucket: bucket })).catch((err: Error) => {
          if (err.name !== "BucketAlreadyOwnedByYou" && err.name !== "BucketAlreadyExists") throw err;
        });
        await client.send(new HeadBucketCommand({ Bucket: bucket }));
        bucketReady = true;
      }
      const body = randomBytes(8).toString("hex");
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: PROBE_KEY, Body: body }));
      const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: PROBE_KEY }));
      if ((await got.Body?.transformToString()) !== body)
        throw new Error("the probe object came back changed");
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: PROBE_KEY }));
      return true;
    };
    const died = exited.then((how) => {
      throw fail(`weed exited (${how}) while ${what}`);
    });
    try {
      await Promise.race([
        waitFor(`SeaweedFS's S3 gateway at ${endpoint} (${what})`, check, STARTUP_TIMEOUT_MS, 250),
        died,
      ]);
    } catch (err) {
      if ((err as Error).message.includes("--- last lines of")) throw err;
      throw fail((err as Error).message);
    } finally {
      died.catch(() => {});
    }
  };

  /** SIGTERM (weed shuts down gracefully), SIGKILL when that takes more than 2 s. */
  const halt = async () => {
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    if (paused) proc.kill("SIGCONT");
    paused = false;
    proc.kill("SIGTERM");
    // A graceful stop takes weed 15 s or more; what it acknowledged is in files already, so 2 s will do.
    const done = await Promise.race([exited, new Promise((ok) => setTimeout(ok, 2_000, undefined))]);
    if (done === undefined) {
      proc.kill("SIGKILL");
      await exited;
    }
  };

  const removeSockets = () => {
    for (const socket of grpcSockets) rmSync(socket, { force: true });
  };

  launch();
  try {
    await ready("starting");
  } catch (err) {
    // The folder stays, for its weed.log.
    await halt();
    client.destroy();
    removeSockets();
    throw err;
  }

  return {
    endpoint,
    region: "us-east-1",
    bucket,
    accessKeyId,
    secretAccessKey,
    dir,
    logFile,
    logTail,
    pause() {
      if (!child || paused) return;
      child.kill("SIGSTOP");
      paused = true;
    },
    resume() {
      if (!child || !paused) return;
      child.kill("SIGCONT");
      paused = false;
    },
    async restart() {
      await halt();
      launch();
      await ready("restarting");
    },
    async stop() {
      await halt();
      client.destroy();
      removeSockets();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** weed processes still running when the test process exits are killed, so none outlives its test file. */
const procs = new Set<ChildProcess>();
process.once("exit", () => {
  for (const proc of procs) proc.kill("SIGKILL");
});

async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}
