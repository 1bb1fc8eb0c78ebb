/**
 * CPU time of a process and everything under it (Linux /proc): utime + stime of each live process in
 * the tree, plus cutime + cstime (its children that have exited and been waited for, such as Chromium
 * renderers that closed). Ours: the bench process, which holds the api, jobs program and worker and
 * spawned nats-server, Postgres and the worker's Chromium. Crawlee: its process and its Chromium.
 * Returns undefined where /proc cannot be read.
 *
 * treeCpuByKind splits the same total by kind of process (node, Chromium's browser, renderer, GPU and
 * utility processes, nats-server, postgres), to see which one a change should cut.
 */
import { readdirSync, readFileSync } from "node:fs";

const TICK_MS = 10; // CLK_TCK is 100 on Linux

interface Stat {
  ppid: number;
  ticks: number;
  comm: string;
}

function stat(pid: number): Stat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces), from field 3 (state) on.
    const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
    const n = (i: number) => Number(f[i - 3]);
    const comm = text.slice(text.indexOf("(") + 1, text.lastIndexOf(")"));
    return { ppid: n(4), ticks: n(14) + n(15) + n(16) + n(17), comm };
  } catch {
    return undefined;
  }
}

/** The processes of the tree under root (root included), each with its stat. */
function tree(root: number): Map<number, Stat> | undefined {
  let pids: number[];
  try {
    pids = readdirSync("/proc")
      .filter((d) => /^\d+$/.test(d))
      .map(Number);
  } catch {
    return undefined;
  }
  const info = new Map<number, Stat>();
  for (const pid of pids) {
    const s = stat(pid);
    if (s) info.set(pid, s);
  }
  if (!info.has(root)) return undefined;
  const children = new Map<number, number[]>();
  for (const [pid, s] of info) children.set(s.ppid, [...(children.get(s.ppid) ?? []), pid]);
  const out = new Map<number, Stat>();
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    const s = info.get(pid);
    if (s) out.set(pid, s);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

export function treeCpuMs(root: number): number | undefined {
  const t = tree(root);
  if (!t) return undefined;
  let ticks = 0;
  for (const s of t.values()) ticks += s.ticks;
  return ticks * TICK_MS;
}

/** What kind of process this is, for the breakdown. */
function kindOf(pid: number, s: Stat, root: number): string {
  if (pid === root) return "node";
  let cmd = "";
  try {
    cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {}
  if (/chrom/i.test(s.comm) || /chrom/i.test(cmd)) {
    const type = /--type=([\w-]+)/.exec(cmd)?.[1];
    if (!type) return "chromium-browser";
    if (type === "utility")
      return `chromium-${/--utility-sub-type=([\w.]+)/.exec(cmd)?.[1]?.split(".")[0] ?? "utility"}`;
    return `chromium-${type}`;
  }
  if (/nats/.test(s.comm)) return "nats-server";
  if (/postgres|postmaster/.test(s.comm) || /postgres/.test(cmd)) return "postgres";
  return s.comm;
}

/**
 * CPU ms per kind of process under root. A process's own ticks count under its kind; cutime + cstime
 * (exited children) under the parent's kind, which for Chromium's browser are mostly closed renderers.
 */
export function treeCpuByKind(root: number): Map<string, number> | undefined {
  const t = tree(root);
  if (!t) return undefined;
  const out = new Map<string, number>();
  for (const [pid, s] of t) {
    const k = kindOf(pid, s, root);
    out.set(k, (out.get(k) ?? 0) + s.ticks * TICK_MS);
  }
  return out;
}

/** after − before per kind, largest first. */
export function diffByKind(
  before: Map<string, number> | undefined,
  after: Map<string, number> | undefined,
): Array<[string, number]> {
  if (!before || !after) return [];
  const kinds = new Set([...before.keys(), ...after.keys()]);
  return [...kinds]
    .map((k): [string, number] => [k, (after.get(k) ?? 0) - (before.get(k) ?? 0)])
    .filter(([, ms]) => ms > 0)
    .sort((a, b) => b[1] - a[1]);
}
