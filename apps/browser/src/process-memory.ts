import { readdirSync, readFileSync } from "node:fs";

/** One process as /proc shows it: its parent, its name and its command line. */
export interface ProcessEntry {
  pid: number;
  ppid: number;
  name: string;
  cmdline: string;
}

/** Every process this one can see (Linux /proc); empty elsewhere. */
export function listProcesses(): ProcessEntry[] {
  let dirs: string[];
  try {
    dirs = readdirSync("/proc");
  } catch {
    return [];
  }
  const out: ProcessEntry[] = [];
  for (const d of dirs) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const ppid = Number(stat.slice(close + 2).split(" ")[1]);
      const cmdline = readFileSync(`/proc/${d}/cmdline`, "utf8").replaceAll("\0", " ");
      out.push({ pid: Number(d), ppid, name: stat.slice(stat.indexOf("(") + 1, close), cmdline });
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

/** The pids in `roots` and every process below them. */
export function descendantsOf(processes: ProcessEntry[], roots: number[]): number[] {
  const children = new Map<number, number[]>();
  for (const p of processes) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const seen = new Set<number>();
  const todo = [...roots];
  while (todo.length) {
    const pid = todo.pop() as number;
    if (seen.has(pid)) continue;
    seen.add(pid);
    todo.push(...(children.get(pid) ?? []));
  }
  return [...seen];
}

/**
 * Proportional set size of one process in bytes: its private pages plus its share of the pages it shares
 * (Chromium's processes share most of their code), so PSS summed over processes counts each page once.
 */
export function pssBytes(pid: number): number {
  try {
    const kb = /^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1];
    return Number(kb ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/**
 * PSS of one process split by kind of page, in bytes: `anon` is its own heap and stacks (where a leak
 * shows), `file` its share of mapped files (code), `shmem` its share of shared memory (PostgreSQL's buffer
 * cache, which fills up to shared_buffers as backends touch more of the data, and then stays).
 */
export function pssParts(pid: number): { anon: number; file: number; shmem: number } {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(text)?.[1] ?? 0) * 1024;
    return { anon: kb("Pss_Anon"), file: kb("Pss_File"), shmem: kb("Pss_Shmem") };
  } catch {
    return { anon: 0, file: 0, shmem: 0 };
  }
}

/** A Chromium's processes: the browser process whose command line carries `marker`, and all below it. */
export function chromiumProcesses(marker: string, processes = listProcesses()): number[] {
  const roots = processes.filter((p) => p.cmdline.includes(marker) && !p.cmdline.includes("--type="));
  return descendantsOf(
    processes,
    roots.map((p) => p.pid),
  );
}

/** PSS of a Chromium (every process of it), in bytes; 0 where /proc cannot tell. */
export function chromiumPss(marker: string): number {
  return chromiumProcesses(marker).reduce((sum, pid) => sum + pssBytes(pid), 0);
}
