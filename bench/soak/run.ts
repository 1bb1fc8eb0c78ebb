/**
 * Soak: the local stack under a mixed paid load for a long while (60 minutes by default), each program in
 * its own process as it is deployed: the api, a browser worker (with its Chromium), the jobs program, NATS
 * and PostgreSQL. Keyed callers keep up rendered scrapes, cached scrapes, sessions with acts, and a small
 * crawl now and then. The memory of each process (PSS, its children included: Chromium's for the worker,
 * the backends for PostgreSQL) is sampled every 15 s.
 *
 * Prints, per process: its memory over the 10 minutes after the first 10 (the baseline: what a warmed-up
 * process holds) and over the last 10, the growth from one to the other (goal: at most 5%), and the slope
 * of a least-squares line through the samples after 10 minutes (MiB per hour, and what it rises over
 * those minutes against the baseline: the same goal read from every sample); then the calls made and the
 * errors (goal: none), and the Chromium processes left once everything has stopped (goal: none). Means over
 * ten minutes, not single samples: a garbage-collected process (V8, Go) moves 10-30% within minutes.
 *
 * Besides the processes, from the api's /metrics: its V8 heap in use and its render cache's memory tier,
 * which fills up to CACHE_MEMORY_BYTES (64 MiB) and so grows the api's memory without a leak: told apart
 * (the api's goal is judged without it, as PostgreSQL's is without its buffer cache).
 *
 * With --heap-snapshots DIR, the api writes a V8 heap snapshot into DIR at each of --snapshot-at's minutes
 * (default 12 and the last minute), to compare in DevTools' Memory panel what it retains as it runs, and
 * NATS's Go heap profile is saved beside it (nats-heap-<minute>.txt: in-use bytes by allocation site, one
 * sample per 512 KiB allocated at Go's default rate: coarse for a heap of a few MiB).
 *
 *   npm run bench:soak -- [--minutes 60] [--callers 4] [--out samples.json] [--heap-snapshots DIR]
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createAccount, issueKey } from "@browserfleet/billing";
import { freePort, startLocalNats } from "@browserfleet/bus";
import { descendantsOf, listProcesses, pssParts } from "../../apps/browser/src/process-memory.ts";
import { startFixtureSite } from "../../test/fixture-site/server.ts";
import { paidCall } from "../../test/helpers/paid-load.ts";
import { startTestPostgres } from "../../test/helpers/postgres.ts";
import { spawnProgram } from "../../test/helpers/programs.ts";

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "60" },
    callers: { type: "string", default: "4" },
    out: { type: "string" },
    "heap-snapshots": { type: "string" },
    "snapshot-at": { type: "string" },
  },
});
const minutes = Number(values.minutes);
const callers = Number(values.callers);
const BASELINE_MIN = Math.min(10, minutes / 3);
/** The baseline and the end are means over this long (10 minutes, less in a short run). */
const WINDOW_MIN = BASELINE_MIN;
const SAMPLE_MS = 15_000;
const MiB = 1024 * 1024;
const ALLOW = "127.0.0.1/32";

const chromiumCount = () => listProcesses().filter((p) => /chrom/i.test(p.name)).length;
const strayBefore = chromiumCount();

const dir = await mkdtemp(join(tmpdir(), "bf-soak-"));
const site = await startFixtureSite();
const natsProfPort = await freePort();
const nats = await startLocalNats({ dataDir: join(dir, "nats"), profPort: natsProfPort });
/** NATS's heap profile as text: its runtime.MemStats at the end, allocation sites sampled above it. */
const natsHeapProfile = (timeoutMs = 5_000) =>
  fetch(`http://127.0.0.1:${natsProfPort}/debug/pprof/heap?debug=1`, {
    signal: AbortSignal.timeout(timeoutMs),
  }).then((r) => r.text());
const pg = await startTestPostgres();
// One account and key per caller, as separate clients are: each key has its own rate limit.
const keys: Array<{ key: string; accountId: string }> = [];
for (let c = 0; c < callers; c++) {
  const { accountId } = await createAccount(pg.database.db, { balanceMicros: 10_000_000_000 });
  keys.push({ accountId, key: (await issueKey(pg.database.db, accountId, `soak-${c}`)).key });
}
const env = { NATS_URL: nats.url, DATABASE_URL: pg.url, FLEET_ALLOW_PRIVATE: ALLOW };
const heapDir = values["heap-snapshots"];
if (heapDir) await mkdir(heapDir, { recursive: true });
const api = await spawnProgram(
  "apps/api/src/main.ts",
  {
    ...env,
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: join(dir, "api"),
    ...(heapDir
      ? {
          NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${heapDir}`,
        }
      : {}),
  },
  /api listening on \S+\n/,
);
const apiUrl = /api listening on (\S+)\n/.exec(api.output())?.[1] as string;
const worker = await spawnProgram(
  "apps/browser/src/main.ts",
  { ...env, BROWSER_SLOTS: "4", BROWSER_METRICS_PORT: "0" },
  /metrics at \S+\n/,
);
const jobs = await spawnProgram(
  "apps/jobs/src/main.ts",
  { ...env, JOBS_METRICS_PORT: "0" },
  /jobs program running/,
);

/** The processes watched: each with every process below it. */
const postmaster = () =>
  listProcesses().find(
    (p) => /postgres/.test(p.cmdline) && p.cmdline.includes(" -D ") && p.cmdline.includes("fleet-pg-"),
  )?.pid;
const watched: Record<string, () => number | undefined> = {
  api: () => api.pid,
  "browser worker (with Chromium)": () => worker.pid,
  jobs: () => jobs.pid,
  NATS: () => nats.process.pid,
  PostgreSQL: postmaster,
};
/** Figures read from the api's /metrics, in MiB (not processes: not part of the 5% goal). */
const apiFigures: Record<string, string> = {
  "api: V8 heap in use": "fleet_api_nodejs_heap_size_used_bytes",
  "api: V8 heap reserved": "fleet_api_nodejs_heap_size_total_bytes",
  "api: external (buffers)": "fleet_api_nodejs_external_memory_bytes",
  "api: render cache memory tier": "fleet_cache_memory_bytes",
};
/**
 * NATS's own Go runtime figures (runtime.MemStats from its pprof port), in MiB: what its heap holds live
 * and what the runtime keeps from the system without what it gave back. A Go process's resident memory
 * follows its collector and scavenger by a few MiB either way; these tell a leak (live heap rising) from
 * that breathing.
 */
const natsFigures: Record<string, (m: Record<string, number>) => number> = {
  "NATS: Go heap live (HeapAlloc)": (m) => m.HeapAlloc ?? 0,
  "NATS: Go heap in use (HeapInuse)": (m) => m.HeapInuse ?? 0,
  "NATS: Go runtime held (Sys - HeapReleased)": (m) => (m.Sys ?? 0) - (m.HeapReleased ?? 0),
};
/**
 * Each process's PSS is also kept split: its anonymous pages (its own heap: where a leak shows), its shared
 * memory, and the rest without it. PostgreSQL's shared memory is one segment sized at start, mostly its
 * buffer cache (shared_buffers); its pages count as they are first touched, so it fills as the backends read
 * more of a growing database, up to that size, and stops: a cache filling, not a leak. PostgreSQL's goal is
 * judged on its memory without that segment, the api's without its render cache (above), every other one on its
 * whole PSS.
 */
const PARTS = { anon: "anonymous (own heap)", shmem: "shared memory", own: "without shared memory" } as const;
const partName = (name: string, part: keyof typeof PARTS) => `${name}: ${PARTS[part]}`;
const API_LESS_CACHE = "api: without its render cache's memory tier";
const judged = new Set([
  API_LESS_CACHE,
  "browser worker (with Chromium)",
  "jobs",
  "NATS",
  partName("PostgreSQL", "own"),
]);
const samples = new Map<string, Array<{ min: number; mib: number }>>(
  [
    ...Object.keys(watched).flatMap((k) => [
      k,
      ...Object.keys(PARTS).map((p) => partName(k, p as keyof typeof PARTS)),
    ]),
    ...Object.keys(apiFigures),
    ...Object.keys(natsFigures),
  ].map((k) => [k, []]),
);
const sharedBuffers = String(
  ((await pg.database.sql`select current_setting('shared_buffers') as v`)[0] as { v: string }).v,
);
const started = Date.now();
const elapsedMin = () => (Date.now() - started) / 60_000;
function sampleMemory() {
  const all = listProcesses();
  for (const [name, pidOf] of Object.entries(watched)) {
    const pid = pidOf();
    if (!pid) continue;
    const sum = { anon: 0, file: 0, shmem: 0 };
    for (const p of descendantsOf(all, [pid])) {
      const parts = pssParts(p);
      sum.anon += parts.anon;
      sum.file += parts.file;
      sum.shmem += parts.shmem;
    }
    const min = elapsedMin();
    samples.get(name)?.push({ min, mib: (sum.anon + sum.file + sum.shmem) / MiB });
    samples.get(partName(name, "anon"))?.push({ min, mib: sum.anon / MiB });
    samples.get(partName(name, "shmem"))?.push({ min, mib: sum.shmem / MiB });
    samples.get(partName(name, "own"))?.push({ min, mib: (sum.anon + sum.file) / MiB });
  }
  const at = elapsedMin();
  void fetch(`${apiUrl}/metrics`, { signal: AbortSignal.timeout(5_000) })
    .then((r) => r.text())
    .then((text) => {
      for (const [name, metric] of Object.entries(apiFigures)) {
        const line = text.split("\n").find((l) => l.startsWith(`${metric} `));
        if (line) samples.get(name)?.push({ min: at, mib: Number(line.split(" ")[1]) / MiB });
      }
    })
    .catch(() => {});
  void natsHeapProfile()
    .then((text) => {
      const stats = Object.fromEntries(
        [...text.matchAll(/^# (\w+) = (\d+)$/gm)].map((m) => [m[1] as string, Number(m[2])]),
      );
      for (const [name, figure] of Object.entries(natsFigures))
        samples.get(name)?.push({ min: at, mib: figure(stats) / MiB });
    })
    .catch(() => {});
}
const sampler = setInterval(sampleMemory, SAMPLE_MS);
const snapshotTimers = heapDir
  ? (values["snapshot-at"] ?? `${Math.min(12, minutes / 2)},${minutes - 1}`)
      .split(",")
      .map(Number)
      .map((at) =>
        setTimeout(() => {
          process.stderr.write(`soak: api heap snapshot and NATS heap profile at ${at} min\n`);
          api.kill("SIGUSR2");
          void natsHeapProfile(30_000)
            .then((text) => writeFile(join(heapDir, `nats-heap-${at}.txt`), text))
            .catch((err) => process.stderr.write(`soak: NATS heap profile failed: ${err}\n`));
        }, at * 60_000),
      )
  : [];

// The load: each caller in turn makes a rendered scrape, a cached one, and a session with three acts;
// the first caller also starts a small crawl every five minutes and waits for it.
const counts = { calls: 0, errors: 0, crawls: 0, limited: 0 };
const errors = new Map<string, number>();
/**
 * Counts a call. A 429 is the rate limit doing its job, not an error: the caller waits a second, as a
 * client told Retry-After would, and it is counted apart.
 */
const note = async (status: number, what: string, body?: unknown) => {
  counts.calls++;
  if (status === 200) return;
  if (status === 429) {
    counts.limited++;
    await new Promise((r) => setTimeout(r, 1_000));
    return;
  }
  counts.errors++;
  const k = `${what} ${status} ${(body as { error?: { code?: string } })?.error?.code ?? ""}`.trim();
  errors.set(k, (errors.get(k) ?? 0) + 1);
};
const until = started + minutes * 60_000;
let n = 0;
async function loop(c: number) {
  const caller = keys[c] as { key: string; accountId: string };
  const { key } = caller;
  let lastCrawl = 0;
  while (Date.now() < until) {
    const i = n++;
    const rendered = await paidCall(apiUrl, caller, "/web/v1/scrape", {
      url: `${site.url}/article?soak=${i}`,
      formats: ["markdown", "links"],
    });
    await note(rendered.outcome.status, "scrape", rendered.body);
    const cached = await paidCall(
      apiUrl,
      caller,
      "/web/v1/scrape",
      {
        url: `${site.url}/article`,
        formats: ["markdown"],
        maxAge: 600_000,
      },
      true,
    );
    await note(cached.outcome.status, "cached scrape", cached.body);
    const opened = await paidCall(apiUrl, caller, "/web/v1/session", { url: `${site.url}/form` });
    await note(opened.outcome.status, "session", opened.body);
    if (opened.outcome.status === 200) {
      const id = opened.body.sessionId as string;
      for (const actions of [[{ press: "Tab" }], [{ press: "Tab" }], [{ scroll: {} }]]) {
        const acted = await paidCall(apiUrl, caller, "/web/v1/act", { sessionId: id, actions });
        await note(acted.outcome.status, "act", acted.body);
      }
      const closed = await fetch(`${apiUrl}/web/v1/session/${id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${key}` },
      });
      await note(closed.status, "session close", await closed.json().catch(() => undefined));
    }
    if (c === 0 && Date.now() - lastCrawl > 5 * 60_000) {
      lastCrawl = Date.now();
      const crawl = await paidCall(apiUrl, caller, "/web/v1/crawl", {
        url: `${site.url}/crawl/`,
        limit: 8,
        formats: ["markdown"],
      });
      await note(crawl.outcome.status, "crawl", crawl.body);
      if (crawl.outcome.status === 200) {
        counts.crawls++;
        for (;;) {
          await new Promise((r) => setTimeout(r, 2_000));
          const r = await fetch(`${apiUrl}/web/v1/crawl/${crawl.body.jobId}?limit=1`, {
            headers: { authorization: `Bearer ${key}` },
          });
          const job = (await r.json()) as { status?: string };
          if (job.status !== "running" && job.status !== "queued") {
            await note(job.status === "completed" ? 200 : 500, "crawl job", job);
            break;
          }
        }
      }
    }
  }
}
process.stderr.write(`soak: ${minutes} min, ${callers} callers, memory every ${SAMPLE_MS / 1000} s\n`);
sampleMemory();
await Promise.all(Array.from({ length: callers }, (_, c) => loop(c)));
clearInterval(sampler);
for (const t of snapshotTimers) clearTimeout(t);
sampleMemory();

// Everything stops, as a deployment's processes do (SIGTERM), then the Chromium processes are counted.
for (const p of [jobs, worker, api]) {
  const gone = new Promise((r) => p.once("exit", r));
  p.kill("SIGTERM");
  await Promise.race([gone, new Promise((r) => setTimeout(r, 30_000))]);
}
await nats.stop();
await pg.stop();
await site.close();
await new Promise((r) => setTimeout(r, 2_000));
const stray = chromiumCount() - strayBefore;
await rm(dir, { recursive: true, force: true });

/** Least-squares slope of mib over min, in MiB per hour. */
function slopePerHour(points: Array<{ min: number; mib: number }>): number {
  if (points.length < 2) return 0;
  const mx = points.reduce((s, p) => s + p.min, 0) / points.length;
  const my = points.reduce((s, p) => s + p.mib, 0) / points.length;
  const num = points.reduce((s, p) => s + (p.min - mx) * (p.mib - my), 0);
  const den = points.reduce((s, p) => s + (p.min - mx) ** 2, 0);
  return den === 0 ? 0 : (num / den) * 60;
}

const cacheTier = samples.get("api: render cache memory tier") ?? [];
samples.set(
  API_LESS_CACHE,
  (samples.get("api") ?? []).flatMap((p) => {
    const cache = cacheTier.find((c) => Math.abs(c.min - p.min) < SAMPLE_MS / 60_000 / 2);
    return cache ? [{ min: p.min, mib: p.mib - cache.mib }] : [];
  }),
);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const ended = elapsedMin();
console.log(
  `soak: ${minutes} min, ${counts.calls} calls (${counts.crawls} crawls); baseline the mean of ${BASELINE_MIN.toFixed(1)}-${(BASELINE_MIN + WINDOW_MIN).toFixed(1)} min, end the mean of the last ${WINDOW_MIN.toFixed(1)} min`,
);
for (const [name, points] of samples) {
  // A process's shared-memory parts say nothing when it has none.
  if (name.endsWith(PARTS.own) && samples.get(name.replace(PARTS.own, PARTS.shmem))?.every((p) => p.mib < 1))
    continue;
  if (name.endsWith(PARTS.shmem) && points.every((p) => p.mib < 1)) continue;
  const within = (from: number, to: number) =>
    mean(points.filter((p) => p.min >= from && p.min <= to).map((p) => p.mib));
  const base = within(BASELINE_MIN, BASELINE_MIN + WINDOW_MIN);
  const end = within(ended - WINDOW_MIN, ended);
  const after = points.filter((p) => p.min >= BASELINE_MIN);
  const growth = base > 0 ? ((end - base) / base) * 100 : 0;
  const slope = slopePerHour(after);
  // The least-squares line's rise over the minutes after the baseline's start, against the baseline: a
  // reading of the same goal that every sample after 10 minutes weighs in, not two windows' means.
  const slopeGrowth = base > 0 ? ((slope * (ended - BASELINE_MIN)) / 60 / base) * 100 : 0;
  console.log(
    `  ${name}: ${base.toFixed(1)} MiB at the baseline, ${end.toFixed(1)} MiB at the end: growth ${growth.toFixed(1)}%${judged.has(name) ? " (goal <= 5%)" : ""}${name === partName("PostgreSQL", "shmem") ? ` (its buffer cache, at most shared_buffers ${sharedBuffers}, plus fixed tables)` : ""}, slope ${slope.toFixed(1)} MiB/h (${slopeGrowth.toFixed(1)}% over the ${(ended - BASELINE_MIN).toFixed(0)} minutes after ${BASELINE_MIN.toFixed(0)})`,
  );
}
console.log(
  `  errors: ${counts.errors} of ${counts.calls} calls (goal 0)${[...errors].map(([k, v]) => `; ${v} x ${k}`).join("")}`,
);
console.log(`  rate-limited (429: waited a second and went on): ${counts.limited}`);
console.log(`  Chromium processes left after the stop: ${stray} (goal 0)`);
if (values.out) {
  await writeFile(values.out, JSON.stringify(Object.fromEntries(samples)));
  console.log(`  samples written to ${values.out}`);
}
