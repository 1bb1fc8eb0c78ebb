/**
 * A worker in a real cgroup with real limits (made by the test under the machine's cgroup mount; skipped
 * where the test may not make one): it sizes its slots by the container's memory, not the host's, and when
 * its working set nears the limit it takes no new task, says so in its metrics and the workers bucket, and
 * takes tasks again once there is room. Chromium runs in the same cgroup, as in a pod.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, rmdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  connectBus,
  type LocalNats,
  listWorkers,
  openWorkersBucket,
  runTask,
  startLocalNats,
  TaskNotStartedError,
} from "@browserfleet/bus";
import { scrapeRequest } from "@browserfleet/contracts";
import type { NatsConnection } from "@nats-io/transport-node";
import { type FixtureSite, startFixtureSite } from "../../../test/fixture-site/server.ts";
import { spawnProgram } from "../../../test/helpers/programs.ts";
import { waitFor } from "../../../test/helpers/wait-for.ts";
import { workingSet } from "../src/limits/cgroup.ts";

const MiB = 1024 * 1024;
const MOUNT = "/sys/fs/cgroup";

/** A cgroup of our own with a memory and a CPU limit: v2 where the machine runs it, else v1's two hierarchies. */
interface TestCgroup {
  /** Where the worker's pid is written, one file per hierarchy. */
  procs: string[];
  setMemoryLimit(bytes: number): Promise<void>;
  workingSet(): Promise<number>;
  remove(): Promise<void>;
}

async function makeCgroup(name: string, memoryBytes: number, cpus: number): Promise<TestCgroup | string> {
  const v2 = existsSync(join(MOUNT, "cgroup.controllers"));
  const dirs = v2 ? [join(MOUNT, name)] : [join(MOUNT, "memory", name), join(MOUNT, "cpu", name)];
  try {
    for (const d of dirs) await mkdir(d);
  } catch (err) {
    for (const d of dirs) await rmdir(d).catch(() => {});
    return `no cgroup of our own here (${(err as Error).message})`;
  }
  const [mem, cpu] = v2 ? [dirs[0] as string, dirs[0] as string] : (dirs as [string, string]);
  const memFile = v2 ? "memory.max" : "memory.limit_in_bytes";
  const setMemoryLimit = (bytes: number) => writeFile(join(mem, memFile), String(bytes));
  try {
    await setMemoryLimit(memoryBytes);
    if (v2) await writeFile(join(cpu, "cpu.max"), `${Math.round(cpus * 100_000)} 100000`);
    else await writeFile(join(cpu, "cpu.cfs_quota_us"), String(Math.round(cpus * 100_000)));
  } catch (err) {
    for (const d of dirs) await rmdir(d).catch(() => {});
    return `cannot set limits on a cgroup here (${(err as Error).message})`;
  }
  const procs = [...new Set(dirs)].map((d) => join(d, "cgroup.procs"));
  // A process may be moved in (not so where the cgroup tree is not delegated to us).
  const trial = spawnSync("sh", ["-c", procs.map((f) => `echo $$ > ${f}`).join(" && ")], {
    encoding: "utf8",
  });
  if (trial.status !== 0) {
    for (const d of dirs) await rmdir(d).catch(() => {});
    return `cannot move a process into a cgroup here (${trial.stderr.trim()})`;
  }
  return {
    procs,
    setMemoryLimit,
    async workingSet() {
      const usage = Number(
        await readFile(join(mem, v2 ? "memory.current" : "memory.usage_in_bytes"), "utf8"),
      );
      return workingSet(usage, await readFile(join(mem, "memory.stat"), "utf8"), v2 ? 2 : 1);
    },
    async remove() {
      // Whatever is left in it (a Chromium of a killed worker) goes first: a cgroup with processes stays.
      for (const f of procs)
        for (const pid of (await readFile(f, "utf8").catch(() => "")).split("\n").filter(Boolean))
          try {
            process.kill(Number(pid), "SIGKILL");
          } catch {}
      for (const d of dirs)
        await waitFor(`cgroup ${d} removed`, () => rmdir(d).then(() => true), 10_000, 100).catch(() => {});
    },
  };
}

const metric = async (url: string, name: string) => {
  const text = await (await fetch(url)).text();
  const m = new RegExp(`^${name} (\\S+)$`, "m").exec(text);
  return m ? Number(m[1]) : undefined;
};

describe("a worker in a container with limits", () => {
  let dir: string;
  let nats: LocalNats;
  let nc: NatsConnection;
  let site: FixtureSite;
  let cg: TestCgroup | string;
  let worker: Awaited<ReturnType<typeof spawnProgram>> | undefined;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "bf-admission-"));
    // 1280 MiB holds the base (512) and two slots of 384; four CPUs would keep eight busy.
    cg = await makeCgroup(`bf-admission-${process.pid}`, 1280 * MiB, 4);
    if (typeof cg === "string") return;
    [nats, site] = await Promise.all([startLocalNats({ dataDir: join(dir, "nats") }), startFixtureSite()]);
    nc = await connectBus({ servers: nats.url, name: "admission-test" });
  });

  after(async () => {
    if (worker && worker.exitCode === null) {
      const gone = new Promise((r) => worker?.once("exit", r));
      worker.kill("SIGTERM");
      await Promise.race([gone, new Promise((r) => setTimeout(r, 15_000))]);
    }
    if (typeof cg !== "string") await cg?.remove();
    await nc?.close();
    await nats?.stop();
    await site?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("sizes its slots by the cgroup's memory, stops taking tasks near the limit, and takes them again once there is room", async (t) => {
    if (typeof cg === "string") return t.skip(cg);
    const group = cg;
    // The worker's process is put in the cgroup before it starts (Chromium, its child, follows it).
    const enter = `${group.procs.map((f) => `echo $$ > ${f}`).join(" && ")} && exec "$@"`;
    worker = await spawnProgram(
      "apps/browser/src/main.ts",
      {
        NATS_URL: nats.url,
        BROWSER_METRICS_PORT: "0",
        FLEET_ALLOW_PRIVATE: "127.0.0.1/32",
        BROWSER_SLOTS: undefined,
        WORKER_ID: "limited",
      },
      /slots: .*\n/,
      ["sh", "-c", enter, "sh"],
    );
    const out = worker.output();
    assert.match(out, /browser worker limited: 2 slots, metrics at/, out);
    assert.match(out, /sized by the container's memory/);
    const metricsUrl = /metrics at (\S+)\n/.exec(out)?.[1] as string;
    assert.equal(await metric(metricsUrl, "fleet_browser_slots"), 2);
    assert.equal(await metric(metricsUrl, "fleet_browser_memory_limit_bytes"), 1280 * MiB);
    const kv = await openWorkersBucket(nc);
    const state = async () => (await listWorkers(nc, kv)).find((w) => w.workerId === "limited");
    assert.equal(
      (await state())?.slots,
      2,
      "the workers bucket says 2 slots: the operator and the api count those",
    );

    const scrape = (path: string, startWithinMs?: number) =>
      runTask(
        nc,
        {
          kind: "scrape",
          taskId: `t-${path}-${Date.now()}`,
          requestId: "admission",
          deadline: Date.now() + 60_000,
          request: scrapeRequest.parse({ url: `${site.url}${path}`, formats: ["markdown"] }),
        },
        60_000,
        startWithinMs === undefined ? {} : { startWithinMs },
      );
    const before = await scrape("/article");
    assert.ok(before.ok, JSON.stringify(before));

    // The limit brought down to just above what the worker uses now: its working set is ~90% of it.
    const used = await group.workingSet();
    await group.setMemoryLimit(Math.ceil(used / 0.9 / 4096) * 4096);
    await waitFor(
      "the worker to report memory pressure",
      async () => (await state())?.memoryPressure === true,
    );
    assert.equal(await metric(metricsUrl, "fleet_browser_memory_pressure"), 1);
    assert.equal(await metric(metricsUrl, "fleet_browser_memory_pauses_total"), 1);
    await assert.rejects(
      scrape("/article?while-pressed", 4_000),
      TaskNotStartedError,
      "a task queued while the worker is near its limit is not started",
    );
    assert.equal(worker.exitCode, null, "the worker was not killed");

    await group.setMemoryLimit(1280 * MiB);
    await waitFor("the worker to take tasks again", async () => (await state())?.memoryPressure !== true);
    assert.equal(await metric(metricsUrl, "fleet_browser_memory_pressure"), 0);
    const afterwards = await scrape("/article?after");
    assert.ok(afterwards.ok, JSON.stringify(afterwards));
    assert.match(worker.output(), /taking no new task[\s\S]*taking tasks again/);
  });
});
