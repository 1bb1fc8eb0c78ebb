/**
 * CPU time of a process and everything under it (Linux /proc): utime + stime of each live process in
 * the tree, plus cutime + cstime (its children that have exited and been waited for, such as Chromium
 * renderers that closed). Ours: the bench process, which holds the api, jobs program and worker and
 * spawned nats-server, Postgres and the worker's Chromium. Crawlee: its process and its Chromium.
 * Returns undefined where /proc cannot be read.
 */
import { readdirSync, readFileSync } from "node:fs";

const TICK_MS = 10; // CLK_TCK is 100 on Linux

function stat(pid: number): { ppid: number; ticks: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces), from field 3 (state) on.
    const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
    const n = (i: number) => Number(f[i - 3]);
    return { ppid: n(4), ticks: n(14) + n(15) + n(16) + n(17) };
  } catch {
    return undefined;
  }
}

export function treeCpuMs(root: number): number | undefined {
  let pids: number[];
  try {
    pids = readdirSync("/proc")
      .filter((d) => /^\d+$/.test(d))
      .map(Number);
  } catch {
    return undefined;
  }
  const info = new Map<number, { ppid: number; ticks: number }>();
  for (const pid of pids) {
    const s = stat(pid);
    if (s) info.set(pid, s);
  }
  if (!info.has(root)) return undefined;
  const children = new Map<number, number[]>();
  for (const [pid, s] of info) children.set(s.ppid, [...(children.get(s.ppid) ?? []), pid]);
  let ticks = 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    ticks += info.get(pid)?.ticks ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return ticks * TICK_MS;
}
