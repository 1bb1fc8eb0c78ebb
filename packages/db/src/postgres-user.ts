/**
 * PostgreSQL refuses to run as root. As root, the embedded server runs as the system `postgres` user, who
 * must be able to enter every folder on the way to its binaries and its data. A clone in root's home
 * (mode 0700) or in a `mktemp -d` folder is out of that user's reach, so there the binaries are copied to
 * and the cluster kept in a folder that user can reach (EMBEDDED_POSTGRES_DIR, /var/lib/browserfleet by
 * default), and DATA_DIR/postgres links to that cluster.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, lstatSync, readlinkSync } from "node:fs";
import { chmod, chown, cp, mkdir, rename, rm, symlink, writeFile } from "node:fs/promises";
import { userInfo } from "node:os";
import { dirname, join, resolve, sep } from "node:path";

export interface PostgresOwner {
  name: string;
  uid: number;
  gid: number;
}

/** A failure whose message is the one line a user acts on. */
export class PostgresSetupError extends Error {}

export const DEFAULT_EMBEDDED_POSTGRES_DIR = "/var/lib/browserfleet";

/** The user the server runs as when this process is root; undefined when it runs as this process's user. */
export function postgresOwner(): PostgresOwner | undefined {
  if (userInfo().uid !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  try {
    return { name: "postgres", uid: id("-u"), gid: id("-g") };
  } catch {
    try {
      execFileSync("useradd", ["--system", "--user-group", "--no-create-home", "postgres"], {
        stdio: "pipe",
      });
    } catch (err) {
      throw new PostgresSetupError(
        `PostgreSQL cannot run as root and there is no postgres user, nor could one be made (${firstLine(err)}): run \`useradd --system --user-group postgres\`, or set DATABASE_URL to a running PostgreSQL`,
      );
    }
    return { name: "postgres", uid: id("-u"), gid: id("-g") };
  }
}

function firstLine(err: unknown): string {
  const e = err as { stderr?: Buffer | string; message?: string };
  return String(e.stderr || e.message || err)
    .trim()
    .split("\n")[0]!;
}

/** Can `owner` open `path` (a folder: enter it; a file: run it)? Asked of the kernel as that user. */
export function canReach(owner: PostgresOwner, path: string): boolean {
  const r = spawnSync("/bin/sh", ["-c", 'test -x "$1"', "sh", path], {
    uid: owner.uid,
    gid: owner.gid,
    cwd: "/",
    stdio: "ignore",
  });
  return r.status === 0;
}

/** The first folder on the way to `path` that `owner` cannot enter. */
export function firstUnreachable(owner: PostgresOwner, path: string): string | undefined {
  const parts = resolve(path).split(sep).filter(Boolean);
  for (let i = 1; i <= parts.length; i++) {
    const dir = `/${parts.slice(0, i).join("/")}`;
    if (!canReach(owner, dir)) return dir;
  }
  return undefined;
}

/**
 * The binaries' folder (bin, lib, share) as `owner` can run them: the package's own when reachable, else
 * a copy under `home`, made once per version (copied aside, then renamed into place, so a copy cut short
 * is never used).
 */
export async function reachableBinaries(
  owner: PostgresOwner,
  nativeDir: string,
  version: string,
  home: string,
): Promise<string> {
  if (canReach(owner, join(nativeDir, "bin", "postgres"))) return nativeDir;
  const target = join(home, `postgres-${version}`);
  if (!existsSync(join(target, "bin", "postgres"))) {
    await ensureHome(owner, home);
    const partial = `${target}.partial-${randomBytes(4).toString("hex")}`;
    await cp(nativeDir, partial, { recursive: true, verbatimSymlinks: true });
    await rename(partial, target).catch(async (err) => {
      await rm(partial, { recursive: true, force: true });
      if (!existsSync(join(target, "bin", "postgres"))) throw err; // else another start copied it first
    });
  }
  if (!canReach(owner, join(target, "bin", "postgres")))
    throw unreachable(owner, target, "EMBEDDED_POSTGRES_DIR");
  return target;
}

/** `home` made, root's and open to be entered by everyone (the clusters inside are the owner's, 0700). */
async function ensureHome(owner: PostgresOwner, home: string): Promise<void> {
  try {
    await mkdir(home, { recursive: true, mode: 0o755 });
    await chmod(home, 0o755);
  } catch (err) {
    throw new PostgresSetupError(
      `EMBEDDED_POSTGRES_DIR ${home} cannot be made (${(err as Error).message}): set EMBEDDED_POSTGRES_DIR to a folder user ${owner.name} can reach, or DATABASE_URL to a running PostgreSQL`,
    );
  }
  const blocked = firstUnreachable(owner, home);
  if (blocked) throw unreachable(owner, home, "EMBEDDED_POSTGRES_DIR");
}

function unreachable(owner: PostgresOwner, path: string, setting: string): PostgresSetupError {
  const blocked = firstUnreachable(owner, path) ?? path;
  return new PostgresSetupError(
    `PostgreSQL runs as user ${owner.name} (it refuses root), who cannot enter ${blocked} on the way to ${path}: set ${setting} to a folder ${owner.name} can reach, or run \`chmod o+x ${blocked}\``,
  );
}

/**
 * Where the cluster of `dataDir` really lives. Reachable: `dataDir` itself. Not: a folder of its own
 * under `home`, owned by `owner`, with `dataDir` a link to it, so DATA_DIR still names its cluster and a
 * later start finds the same one. A cluster already in an unreachable `dataDir` cannot be moved silently.
 */
export async function reachableCluster(owner: PostgresOwner, dataDir: string, home: string): Promise<string> {
  const parent = dirname(dataDir);
  const linked = linkTarget(dataDir);
  if (linked) {
    if (!existsSync(linked)) {
      await mkdir(linked, { recursive: true, mode: 0o700 });
      await chown(linked, owner.uid, owner.gid);
    }
    return linked;
  }
  // Our own folder (DATA_DIR): entered by everyone, so only its ancestors can stand in the way.
  await chmod(parent, 0o755);
  if (!firstUnreachable(owner, parent)) return dataDir;
  if (existsSync(join(dataDir, "PG_VERSION"))) throw unreachable(owner, dataDir, "DATA_DIR");
  await ensureHome(owner, home);
  const clusters = join(home, "clusters");
  await mkdir(clusters, { recursive: true, mode: 0o755 });
  const cluster = join(clusters, randomBytes(6).toString("hex"));
  await mkdir(cluster, { mode: 0o700 });
  await chown(cluster, owner.uid, owner.gid);
  await rm(dataDir, { recursive: true, force: true }); // an empty folder left by an earlier try
  await symlink(cluster, dataDir);
  await writeFile(
    join(parent, "postgres.README"),
    `${dataDir} links to ${cluster}: PostgreSQL runs as user ${owner.name}, who cannot enter ${firstUnreachable(owner, parent)}.\nRemove both to start from an empty database.\n`,
  );
  return cluster;
}

function linkTarget(path: string): string | undefined {
  try {
    if (!lstatSync(path).isSymbolicLink()) return undefined;
    return resolve(dirname(path), readlinkSync(path));
  } catch {
    return undefined;
  }
}
