#!/usr/bin/env node
/**
 * `npm start`'s supervisor: runs the service (scripts/start.ts) in a process group of its own and owns
 * how it stops. Plain Node with only node: built-ins.
 *
 * A terminal's Ctrl-C (and `timeout`, and most supervisors) signals the whole foreground process group.
 * Left in that group, nats-server and PostgreSQL would get the signal too and stop at once, before the
 * api, the jobs program and the browser worker that use them. Here only this process gets it, and the
 * service is asked to stop in order: it stops its parts in the reverse order of their start.
 *
 * - The first SIGINT, SIGTERM or SIGHUP asks the service to stop. npm passes its own copy of a terminal's
 *   signal on to this process, so a copy within a second of the first is the same request.
 * - A later one (a second Ctrl-C) forces at once: every process of the service is killed.
 * - So does a stop that takes longer than SHUTDOWN_TIMEOUT_MS (15 s by default) plus a short grace (the
 *   service keeps that bound itself and says which part did not stop).
 * - Whatever the service leaves behind when it exits is killed, and said.
 * The exit status is the service's: 0 for a clean stop, 1 otherwise.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SAME_REQUEST_MS = 1000;
const BACKSTOP_GRACE_MS = 3000;
const boundMs = (() => {
  const n = Number(process.env.SHUTDOWN_TIMEOUT_MS ?? 15_000);
  return Number.isInteger(n) && n >= 1000 ? n : 15_000; // a bad value is the service's to report
})();

const service = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
  cwd: ROOT,
  detached: true, // a process group (and session) of its own: group signals stop here
  stdio: ["ignore", "inherit", "inherit"],
  // Two malloc arenas, as the images set (Dockerfile): less resident memory for the same work.
  env: { MALLOC_ARENA_MAX: "2", ...process.env, BROWSERFLEET_SUPERVISED: "1" },
});

let firstSignalAt;
let forced = false;

/** Every live process (Linux's /proc; elsewhere none, and only the group kill applies). */
function processes() {
  let entries = [];
  try {
    entries = readdirSync("/proc").filter((p) => /^\d+$/.test(p));
  } catch {
    return [];
  }
  const found = [];
  for (const pid of entries) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // state, ppid, pgrp, ..., starttime (field 22 of stat, 20th after the name)
      if (f[0] === "Z") continue;
      found.push({ pid: Number(pid), ppid: Number(f[1]), pgid: Number(f[2]), start: f[19] });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** The service's descendants, seen while it runs: after it dies its children are no longer its. */
const seen = new Map();
function look() {
  if (!service.pid || service.exitCode !== null) return;
  const all = processes();
  const below = new Set([service.pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of all)
      if (!below.has(p.pid) && below.has(p.ppid)) {
        below.add(p.pid);
        grew = true;
      }
  }
  for (const p of all) if (below.has(p.pid) && p.pid !== service.pid) seen.set(p.pid, p.start);
}
const looking = setInterval(look, 1000);
looking.unref();

/** What of the service still runs: its process group, and the descendants seen that are still the same processes. */
function leftOver() {
  return processes().filter(
    (p) => (service.pid && p.pgid === service.pid) || (seen.has(p.pid) && seen.get(p.pid) === p.start),
  );
}

function kill(pid, signal) {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Kill the service and everything it started: its group, and descendants in groups of their own (Chromium). */
function killAll() {
  look();
  if (service.pid) kill(-service.pid, "SIGKILL");
  for (const p of leftOver()) kill(p.pid, "SIGKILL");
}

function force(why) {
  if (forced) return;
  forced = true;
  console.error(`${why}: forcing the stop (every process of the service is killed)`);
  killAll();
}

function onSignal(signal) {
  const now = Date.now();
  if (firstSignalAt === undefined) {
    firstSignalAt = now;
    kill(service.pid, signal);
    setTimeout(
      () => force(`the service did not stop within ${boundMs / 1000} s`),
      boundMs + BACKSTOP_GRACE_MS,
    ).unref();
    return;
  }
  if (now - firstSignalAt < SAME_REQUEST_MS) return;
  force(`a second ${signal}`);
}

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, onSignal);

service.once("error", (err) => {
  console.error(`npm start: could not run the service: ${err.message}`);
  process.exit(1);
});

service.once("exit", (code, signal) => {
  clearInterval(looking);
  // Left behind: nats-server, PostgreSQL or Chromium of a service that was killed or stopped unclean.
  const left = leftOver();
  if (left.length > 0) {
    if (!forced) console.error(`the service left ${left.length} processes running: killed them`);
    killAll();
  }
  if (signal && !forced) console.error(`the service ended by ${signal}`);
  const clean = !forced && code === 0 && left.length === 0;
  process.exit(clean ? 0 : code || 1);
});
