/**
 * What the container may use, from its cgroup (v2, or v1 where the machine still mounts it), rather than
 * what the host has: a pod limited to 2 GiB on a 64 GiB node must size itself by the 2 GiB. The parsers
 * are pure; `readCgroupLimits` is the only part that reads files.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** Where this process sits in each hierarchy, from /proc/self/cgroup. */
export interface CgroupPaths {
  /** The unified (v2) hierarchy's path, when the memory controller lives there. */
  unified?: string;
  /** v1 paths by controller. */
  memory?: string;
  cpu?: string;
}

export function parseProcCgroup(text: string): CgroupPaths {
  const out: CgroupPaths = {};
  for (const line of text.split("\n")) {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line.trim());
    if (!m) continue;
    const [, id, controllers, path] = m as unknown as [string, string, string, string];
    if (id === "0" && controllers === "") out.unified = path;
    for (const c of controllers.split(",")) {
      if (c === "memory") out.memory = path;
      if (c === "cpu") out.cpu = path;
    }
  }
  return out;
}

/** A byte limit: v2 writes "max", v1 a page-rounded huge number, for none. */
export function parseBytesLimit(text: string | undefined): number | undefined {
  const t = text?.trim();
  if (!t || t === "max") return undefined;
  const n = Number(t);
  // v1's "no limit" is LONG_MAX rounded down to a page; anything past 2^60 means the same.
  return Number.isFinite(n) && n > 0 && n < 2 ** 60 ? n : undefined;
}

/** CPUs from v2's cpu.max ("max 100000" or "200000 100000"). */
export function parseCpuMax(text: string | undefined): number | undefined {
  const [quota, period] = (text ?? "").trim().split(/\s+/);
  return cpusOf(quota === "max" ? -1 : Number(quota), Number(period));
}

/** CPUs from a quota and a period (v1's cpu.cfs_quota_us, -1 for none, and cpu.cfs_period_us). */
export function cpusOf(quota: number, period: number): number | undefined {
  if (!(quota > 0) || !(period > 0)) return undefined;
  return quota / period;
}

/** One field of memory.stat ("inactive_file 123" lines); 0 when absent. */
export function statField(stat: string | undefined, field: string): number {
  const m = new RegExp(`^${field} (\\d+)$`, "m").exec(stat ?? "");
  return m ? Number(m[1]) : 0;
}

/**
 * The working set, as the kubelet counts it against the limit: usage less the page cache the kernel can
 * drop at once (inactive file pages). This is what the OOM killer runs out of, not the raw usage.
 */
export function workingSet(usage: number, stat: string | undefined, version: 1 | 2): number {
  const inactive = statField(stat, version === 2 ? "inactive_file" : "total_inactive_file");
  return Math.max(0, usage - inactive);
}

/** What the cgroup allows at start (undefined: no limit there), and how to read its memory now. */
export interface CgroupLimits {
  version: 1 | 2 | undefined;
  memoryLimitBytes?: number;
  cpus?: number;
  /** The working set and the limit now (a pod resized in place gets a new limit); undefined where unknown. */
  memoryNow(): MemoryNow;
}

export interface MemoryNow {
  workingSetBytes?: number;
  limitBytes?: number;
}

const read = (file: string): string | undefined => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
};

/**
 * The folders of a cgroup and its ancestors, nearest first. In a container with its own cgroup namespace,
 * /proc/self/cgroup says "/" and the cgroup's files are at the mount's root; elsewhere the path names a
 * folder under it. A limit set on an ancestor binds too, so the tightest of them is the one that counts.
 */
function lineage(mount: string, path: string): string[] {
  const parts = path.split("/").filter(Boolean);
  const out: string[] = [];
  for (let i = parts.length; i >= 0; i--) out.push(join(mount, ...parts.slice(0, i)));
  return out;
}

const tightest = (values: (number | undefined)[]) =>
  values.reduce<number | undefined>(
    (min, v) => (v === undefined ? min : min === undefined ? v : Math.min(min, v)),
    undefined,
  );

export function readCgroupLimits(root = "/sys/fs/cgroup", procSelf = "/proc/self/cgroup"): CgroupLimits {
  const paths = parseProcCgroup(read(procSelf) ?? "");
  const v2Mem = paths.unified !== undefined && read(join(root, "cgroup.controllers"))?.includes("memory");
  if (v2Mem && paths.unified !== undefined) {
    const dirs = lineage(root, paths.unified).filter((d) => read(join(d, "memory.current")) !== undefined);
    const limit = () => tightest(dirs.map((d) => parseBytesLimit(read(join(d, "memory.max")))));
    return {
      version: 2,
      ...defined({
        memoryLimitBytes: limit(),
        cpus: tightest(dirs.map((d) => parseCpuMax(read(join(d, "cpu.max"))))),
      }),
      memoryNow: () => memoryNow(dirs[0], "memory.current", 2, limit),
    };
  }
  if (paths.memory === undefined && paths.cpu === undefined)
    return { version: undefined, memoryNow: () => ({}) };
  const memDirs = lineage(join(root, "memory"), paths.memory ?? "/").filter(
    (d) => read(join(d, "memory.usage_in_bytes")) !== undefined,
  );
  const cpuDirs = lineage(join(root, "cpu"), paths.cpu ?? "/").filter(
    (d) => read(join(d, "cpu.cfs_quota_us")) !== undefined,
  );
  const limit = () => tightest(memDirs.map((d) => parseBytesLimit(read(join(d, "memory.limit_in_bytes")))));
  const cpus = tightest(
    cpuDirs.map((d) =>
      cpusOf(Number(read(join(d, "cpu.cfs_quota_us"))), Number(read(join(d, "cpu.cfs_period_us")))),
    ),
  );
  return {
    version: 1,
    ...defined({ memoryLimitBytes: limit(), cpus }),
    memoryNow: () => memoryNow(memDirs[0], "memory.usage_in_bytes", 1, limit),
  };
}

function memoryNow(
  own: string | undefined,
  usageFile: string,
  version: 1 | 2,
  limit: () => number | undefined,
): MemoryNow {
  if (!own) return {};
  const usage = Number(read(join(own, usageFile)));
  return defined({
    workingSetBytes: Number.isFinite(usage)
      ? workingSet(usage, read(join(own, "memory.stat")), version)
      : undefined,
    limitBytes: limit(),
  });
}

/** The object without its undefined fields (exactOptionalPropertyTypes). */
const defined = <T extends Record<string, unknown>>(o: T) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
