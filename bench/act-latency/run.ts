/**
 * Act latency: one `type` + `press` act through our API (api → NATS → the worker holding the session →
 * actions, settle, the controls map of the result) against the same two actions and the same controls
 * snapshot done by a bare Playwright script on the same page in a warm browser, interleaved. Prints the
 * medians and the ratio ours/bare, then the same act with changesOnly (time and answer size).
 *
 * Then the same act on two sessions of the same page, interleaved, one of them with a live viewer attached
 * (its events read as a browser would): the ratio watched/unwatched. And what a viewer of an animated page
 * costs: the CPU of Chromium and of this process (api and worker) over 10 s, watched and not, and the
 * frames sent.
 *
 * Then the same act on a recorded session (record: true: rrweb in the page, its events sent to the api as
 * it runs) against one that is not, interleaved: the ratio recorded/unrecorded.
 *
 * Then the memory of the browser worker's Chromium (RSS summed over its processes) with 0, 1 and N
 * open sessions.
 *
 *   npm run bench:act-latency -- [--rounds 40] [--sessions 4]
 */
import { readdirSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { findChromium } from "@browserfleet/browser";
import { chromium } from "playwright-core";
import { descendantsOf, listProcesses } from "../../apps/browser/src/process-memory.ts";
import { startStack } from "../../test/helpers/stack.ts";

const { values } = parseArgs({
  options: { rounds: { type: "string", default: "40" }, sessions: { type: "string", default: "4" } },
});
const rounds = Number(values.rounds);
const sessionsN = Number(values.sessions);

const stack = await startStack({ slots: sessionsN + 1 });
const formUrl = `${stack.site.url}/form`;

// biome-ignore lint/suspicious/noExplicitAny: bench reads the JSON the route answered
type Json = any;
const closeSession = (id: string) =>
  fetch(`${stack.api.url}/web/v1/session/${id}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${stack.key}` },
  });

const opened = await stack.post("/web/v1/session", { url: formUrl });
if (opened.status !== 200) throw new Error(`session open failed: ${JSON.stringify(opened.body)}`);
const sessionId: string = opened.body.sessionId;
const username: string = opened.body.data.controls.find((c: Json) => c.name === "Username").ref;

const browser = await chromium.launch({
  executablePath: findChromium(),
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
});
const page = await (await browser.newContext()).newPage();
await page.goto(formUrl);
await page.ariaSnapshot({ mode: "ai" });

async function ours(i: number): Promise<number> {
  const t = performance.now();
  const r = await stack.post("/web/v1/act", {
    sessionId,
    actions: [{ type: { ref: username, text: `user${i}` } }, { press: "Tab" }],
    formats: ["controls"],
  });
  if (r.status !== 200 || !r.body.success) throw new Error(`act failed: ${JSON.stringify(r.body)}`);
  return performance.now() - t;
}

/** The same act asking only for what changed; its time and the size of its answer. */
async function oursChanges(i: number): Promise<{ ms: number; bytes: number }> {
  const t = performance.now();
  const r = await stack.post("/web/v1/act", {
    sessionId,
    actions: [{ type: { ref: username, text: `user${i}` } }, { press: "Tab" }],
    changesOnly: true,
  });
  if (r.status !== 200 || !r.body.success) throw new Error(`act failed: ${JSON.stringify(r.body)}`);
  return { ms: performance.now() - t, bytes: JSON.stringify(r.body).length };
}

async function bare(i: number): Promise<number> {
  const t = performance.now();
  await page.locator("#username").fill(`user${i}`);
  await page.keyboard.press("Tab");
  const snapshot = await page.ariaSnapshot({ mode: "ai" });
  if (!snapshot) throw new Error("no snapshot");
  return performance.now() - t;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)] as number;

for (let i = 0; i < 5; i++) {
  await ours(i);
  await bare(i);
}
const a: number[] = [];
const b: number[] = [];
for (let i = 0; i < rounds; i++) {
  if (i % 2 === 0) {
    a.push(await ours(i));
    b.push(await bare(i));
  } else {
    b.push(await bare(i));
    a.push(await ours(i));
  }
}
const fullBytes = JSON.stringify(
  (
    await stack.post("/web/v1/act", {
      sessionId,
      actions: [{ type: { ref: username, text: "full" } }, { press: "Tab" }],
      formats: ["controls"],
    })
  ).body,
).length;
const c: Array<{ ms: number; bytes: number }> = [];
for (let i = 0; i < Math.min(rounds, 20); i++) c.push(await oursChanges(i));
await browser.close();

/** A live viewer of a session: reads its event stream as the viewer page does; counts frames and bytes. */
function watch(liveViewUrl: string): { frames: () => number; bytes: () => number; stop: () => void } {
  const ctl = new AbortController();
  let frames = 0;
  let bytes = 0;
  void (async () => {
    const res = await fetch(`${liveViewUrl}/events`, { signal: ctl.signal });
    const reader = res.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      bytes += value.length;
      frames += new TextDecoder().decode(value).split("event: frame").length - 1;
    }
  })().catch(() => {});
  return { frames: () => frames, bytes: () => bytes, stop: () => ctl.abort() };
}

const watchedOpen = await stack.post("/web/v1/session", { url: formUrl });
const watchedId: string = watchedOpen.body.sessionId;
const watchedRef: string = watchedOpen.body.data.controls.find((x: Json) => x.name === "Username").ref;
const viewer = watch(watchedOpen.body.liveViewUrl);
async function actOn(id: string, ref: string, i: number): Promise<number> {
  const t = performance.now();
  const r = await stack.post("/web/v1/act", {
    sessionId: id,
    actions: [{ type: { ref, text: `user${i}` } }, { press: "Tab" }],
    formats: ["controls"],
  });
  if (r.status !== 200 || !r.body.success) throw new Error(`act failed: ${JSON.stringify(r.body)}`);
  return performance.now() - t;
}
for (let i = 0; i < 5; i++) {
  await actOn(watchedId, watchedRef, i);
  await actOn(sessionId, username, i);
}
/** The same act on session `a` and on the plain session, `rounds` times, taking turns at going first. */
async function interleaved(a: { id: string; ref: string }): Promise<[number[], number[]]> {
  const onA: number[] = [];
  const plain: number[] = [];
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) {
      onA.push(await actOn(a.id, a.ref, i));
      plain.push(await actOn(sessionId, username, i));
    } else {
      plain.push(await actOn(sessionId, username, i));
      onA.push(await actOn(a.id, a.ref, i));
    }
  }
  return [onA, plain];
}
const [watched, unwatched] = await interleaved({ id: watchedId, ref: watchedRef });
const watchedFrames = viewer.frames();
viewer.stop();
await closeSession(watchedId);

const recordedOpen = await stack.post("/web/v1/session", { url: formUrl, record: true, liveView: "off" });
const recordedId: string = recordedOpen.body.sessionId;
const recordedRef: string = recordedOpen.body.data.controls.find((x: Json) => x.name === "Username").ref;
for (let i = 0; i < 5; i++) await actOn(recordedId, recordedRef, i);
const [recorded, unrecorded] = await interleaved({ id: recordedId, ref: recordedRef });
await closeSession(recordedId);
const recording = (await stack.call("GET", "/web/v1/account/sessions?limit=10")).body.sessions.find(
  (s: Json) => s.sessionId === recordedId,
)?.recording;
await closeSession(sessionId);

/** CPU seconds used so far by the Chromium processes under this one (the worker's, not others'). */
function chromiumCpuSeconds(): number {
  const all = listProcesses();
  const mine = new Set(descendantsOf(all, [process.pid]));
  let ticks = 0;
  for (const p of all) {
    if (!mine.has(p.pid) || !/chrom/i.test(p.name)) continue;
    try {
      const stat = readFileSync(`/proc/${p.pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {}
  }
  return ticks / 100;
}
const ANIMATED = `<!doctype html><title>spinner</title><style>
  div { width: 200px; height: 200px; background: #36c; animation: spin 1s linear infinite; }
  @keyframes spin { to { transform: rotate(360deg); } }
</style><div></div>`;
const animated = await stack.post("/web/v1/session", { html: ANIMATED });
async function cpuOver(ms: number): Promise<{ chromium: number; node: number }> {
  const c0 = chromiumCpuSeconds();
  const n0 = process.cpuUsage();
  await new Promise((r) => setTimeout(r, ms));
  const n = process.cpuUsage(n0);
  return {
    chromium: (chromiumCpuSeconds() - c0) / (ms / 1000),
    node: (n.user + n.system) / 1e6 / (ms / 1000),
  };
}
const CPU_MS = 10_000;
const idleCpu = await cpuOver(CPU_MS);
const animatedViewer = watch(animated.body.liveViewUrl);
await new Promise((r) => setTimeout(r, 2000));
const f0 = animatedViewer.frames();
const b0 = animatedViewer.bytes();
const watchedCpu = await cpuOver(CPU_MS);
const fps = (animatedViewer.frames() - f0) / (CPU_MS / 1000);
const frameKiB = (animatedViewer.bytes() - b0) / Math.max(1, animatedViewer.frames() - f0) / 1024;
animatedViewer.stop();
await closeSession(animated.body.sessionId);

/**
 * Memory (MiB) of every Chromium process under this one (the worker's browser): RSS, and PSS, which
 * counts pages shared between Chromium's processes once.
 */
function chromiumMemoryMiB(): { rss: number; pss: number } {
  const parent = new Map<number, number>();
  const rss = new Map<number, number>();
  const names = new Map<number, string>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const fields = stat.slice(close + 2).split(" ");
      const pid = Number(d);
      parent.set(pid, Number(fields[1]));
      names.set(pid, stat.slice(stat.indexOf("(") + 1, close));
      rss.set(pid, Number(fields[21]) * 4096);
    } catch {}
  }
  const under = (pid: number): boolean => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p))
      if (p === process.pid) return true;
    return false;
  };
  let total = 0;
  let pss = 0;
  for (const [pid, bytes] of rss) {
    if (!/chrom/i.test(names.get(pid) ?? "") || !under(pid)) continue;
    total += bytes;
    try {
      const kb = /^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1];
      pss += Number(kb ?? 0) * 1024;
    } catch {}
  }
  return { rss: total / 1024 / 1024, pss: pss / 1024 / 1024 };
}

const settle = () => new Promise((r) => setTimeout(r, 1500));
await settle();
const memory: Array<[number, { rss: number; pss: number }]> = [[0, chromiumMemoryMiB()]];
const ids: string[] = [];
for (let n = 1; n <= sessionsN; n++) {
  const s = await stack.post("/web/v1/session", { url: `${stack.site.url}/article` });
  if (s.status !== 200) throw new Error(`session ${n} failed: ${JSON.stringify(s.body)}`);
  ids.push(s.body.sessionId);
  if (n === 1 || n === sessionsN) {
    await settle();
    memory.push([n, chromiumMemoryMiB()]);
  }
}
for (const id of ids) await closeSession(id);
await stack.stop();

console.log(`${rounds} rounds, interleaved; act = type + press, then the controls map`);
console.log(
  `ours (HTTP → api → NATS → session's worker): median ${median(a).toFixed(1)} ms, p95 ${p95(a).toFixed(1)} ms`,
);
console.log(
  `bare Playwright (fill + press + AI snapshot): median ${median(b).toFixed(1)} ms, p95 ${p95(b).toFixed(1)} ms`,
);
console.log(`ratio ours/bare at the median: ${(median(a) / median(b)).toFixed(2)}`);
console.log(
  `ours with changesOnly (what changed since the previous act): median ${median(c.map((x) => x.ms)).toFixed(1)} ms, answer ${median(c.map((x) => x.bytes))} bytes against ${fullBytes} with the whole controls map`,
);
console.log(
  `watched (a live viewer attached, ${watchedFrames} frames sent): median ${median(watched).toFixed(1)} ms, p95 ${p95(watched).toFixed(1)} ms; unwatched: median ${median(unwatched).toFixed(1)} ms, p95 ${p95(unwatched).toFixed(1)} ms`,
);
console.log(`ratio watched/unwatched at the median: ${(median(watched) / median(unwatched)).toFixed(2)}`);
console.log(
  `recorded (rrweb in the page, ${recording?.events ?? "?"} events in ${((recording?.bytes ?? 0) / 1024).toFixed(1)} KiB stored so far): median ${median(recorded).toFixed(1)} ms, p95 ${p95(recorded).toFixed(1)} ms; unrecorded: median ${median(unrecorded).toFixed(1)} ms, p95 ${p95(unrecorded).toFixed(1)} ms`,
);
console.log(`ratio recorded/unrecorded at the median: ${(median(recorded) / median(unrecorded)).toFixed(2)}`);
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
console.log(
  `live view of an animated page (share of one core): Chromium ${pct(watchedCpu.chromium)} watched against ${pct(idleCpu.chromium)} unwatched, api and worker ${pct(watchedCpu.node)} against ${pct(idleCpu.node)}; ${fps.toFixed(1)} frames a second of ${frameKiB.toFixed(0)} KiB`,
);
console.log(
  `worker Chromium memory (PSS / RSS): ${memory.map(([n, m]) => `${n} session(s) ${m.pss.toFixed(0)} / ${m.rss.toFixed(0)} MiB`).join(", ")}`,
);
