/**
 * Browser memory: the PSS of every Chromium process of a browser worker (browser, zygotes, renderers,
 * utilities; read from /proc/<pid>/smaps_rollup, so pages Chromium's processes share count once), idle
 * and with N open sessions, with the pre-made contexts on and off. Prints the total, per idle slot and per
 * open session (what one more session adds), and what a session with a loaded profile adds against one
 * without. The worker runs in this process, so its Chromium is the one
 * below it; no other browser is started here.
 *
 *   npm run bench:browser-memory -- [--slots 4] [--sessions 4]
 */
import { parseArgs } from "node:util";
import { descendantsOf, listProcesses, pssBytes } from "../../apps/browser/src/process-memory.ts";
import { startStack } from "../../test/helpers/stack.ts";

const { values } = parseArgs({
  options: { slots: { type: "string", default: "4" }, sessions: { type: "string", default: "4" } },
});
const slots = Number(values.slots);
const sessionsN = Number(values.sessions);
const MiB = 1024 * 1024;

function chromiumMemory(): { pss: number; processes: number } {
  const all = listProcesses();
  const mine = new Set(descendantsOf(all, [process.pid]));
  const pids = all.filter((p) => mine.has(p.pid) && /chrom/i.test(p.name)).map((p) => p.pid);
  return { pss: pids.reduce((s, pid) => s + pssBytes(pid), 0) / MiB, processes: pids.length };
}

const settle = () => new Promise((r) => setTimeout(r, 2000));

async function measure(warm: boolean) {
  const stack = await startStack({ slots, jobs: false, worker: { warmContexts: warm } });
  try {
    // One scrape first, so the browser has done real work once (and the warm pool has refilled).
    await stack.post("/web/v1/scrape", { url: `${stack.site.url}/article` });
    await settle();
    const idle = chromiumMemory();
    const ids: string[] = [];
    for (let n = 0; n < sessionsN; n++) {
      const s = await stack.post("/web/v1/session", { url: `${stack.site.url}/article` });
      if (s.status !== 200) throw new Error(`session ${n + 1} failed: ${JSON.stringify(s.body)}`);
      ids.push(s.body.sessionId);
    }
    await settle();
    const busy = chromiumMemory();
    for (const id of ids) await stack.call("DELETE", `/web/v1/session/${id}`);
    return { idle, busy };
  } finally {
    await stack.stop();
  }
}

/**
 * Sessions with a loaded profile against sessions without, on one stack (pre-made contexts off: a profile's
 * context is always made for it), on the fixture site's account page, the profile a signed-in login.
 */
async function measureProfile() {
  const stack = await startStack({ slots, jobs: false, worker: { warmContexts: false } });
  const open = async (profile?: { name: string; save?: boolean }) => {
    const path = profile?.save ? "/login" : "/account";
    const s = await stack.post("/web/v1/session", {
      url: `${stack.site.url}${path}`,
      ...(profile ? { profile } : {}),
    });
    if (s.status !== 200) throw new Error(`session failed: ${JSON.stringify(s.body)}`);
    return s.body.sessionId as string;
  };
  const sessions = async (profile?: { name: string }) => {
    const ids: string[] = [];
    for (let n = 0; n < sessionsN; n++) ids.push(await open(profile));
    await settle();
    const m = chromiumMemory();
    for (const id of ids) await stack.call("DELETE", `/web/v1/session/${id}`);
    await settle();
    return m;
  };
  try {
    const login = await open({ name: "bench", save: true });
    await stack.post("/web/v1/act", {
      sessionId: login,
      actions: [
        { type: { ref: "#user", text: "alice" } },
        { type: { ref: "#password", text: "secret", submit: true } },
        { click: { ref: "#dark" } },
        { click: { ref: "#save-draft" } },
      ],
    });
    const closed = await stack.call("DELETE", `/web/v1/session/${login}`);
    if (!closed.body.profile?.saved) throw new Error(`profile not saved: ${JSON.stringify(closed.body)}`);
    await settle();
    const idle = chromiumMemory();
    const without = await sessions();
    const withProfile = await sessions({ name: "bench" });
    return { idle, without, withProfile, bytes: closed.body.profile.bytes as number };
  } finally {
    await stack.stop();
  }
}

const on = await measure(true);
await settle();
const off = await measure(false);
await settle();
const prof = await measureProfile();

console.log(
  `browser-memory: ${slots} slots, ${sessionsN} sessions; Chromium PSS of the worker, all its processes`,
);
for (const [name, m] of [
  ["warm contexts on ", on],
  ["warm contexts off", off],
] as const) {
  console.log(
    `  ${name}: idle ${m.idle.pss.toFixed(0)} MiB in ${m.idle.processes} processes, ${(m.idle.pss / slots).toFixed(0)} MiB per idle slot; ` +
      `${sessionsN} sessions ${m.busy.pss.toFixed(0)} MiB, ${((m.busy.pss - m.idle.pss) / sessionsN).toFixed(0)} MiB more per open session`,
  );
}
console.log(
  `  a ready context costs ${((on.idle.pss - off.idle.pss) / slots).toFixed(0)} MiB per free slot (idle on - off, per slot)`,
);
console.log(
  `  ${sessionsN} sessions with a loaded profile (${(prof.bytes / 1024).toFixed(1)} KiB): ${((prof.withProfile.pss - prof.idle.pss) / sessionsN).toFixed(1)} MiB more per session; without: ${((prof.without.pss - prof.idle.pss) / sessionsN).toFixed(1)} MiB (warm contexts off)`,
);
console.log(
  `  ratio with/without a profile, per session: ${((prof.withProfile.pss - prof.idle.pss) / (prof.without.pss - prof.idle.pss)).toFixed(2)}`,
);
