import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { DEFAULT_SLOT_COSTS, planSlots, slotsSetBy, underPressure } from "../src/limits/admission.ts";
import {
  parseBytesLimit,
  parseCpuMax,
  parseProcCgroup,
  readCgroupLimits,
  workingSet,
} from "../src/limits/cgroup.ts";

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

describe("cgroup files", () => {
  it("finds the process's cgroup in each hierarchy, v2 and v1", () => {
    assert.deepEqual(parseProcCgroup("0::/kubepods/burstable/pod1/abc\n"), {
      unified: "/kubepods/burstable/pod1/abc",
    });
    assert.deepEqual(
      parseProcCgroup("12:cpu,cpuacct:/kubepods/x\n9:memory:/kubepods/x\n1:name=systemd:/\n0::/\n"),
      { cpu: "/kubepods/x", memory: "/kubepods/x", unified: "/" },
    );
  });

  it("reads no limit as none: v2's max, v1's page-rounded LONG_MAX", () => {
    assert.equal(parseBytesLimit("max\n"), undefined);
    assert.equal(parseBytesLimit("9223372036854771712\n"), undefined);
    assert.equal(parseBytesLimit("2147483648\n"), 2 * GiB);
    assert.equal(parseCpuMax("max 100000\n"), undefined);
    assert.equal(parseCpuMax("150000 100000\n"), 1.5);
  });

  it("counts the working set as the kubelet does: usage less inactive page cache", () => {
    assert.equal(workingSet(1000, "anon 600\ninactive_file 300\nactive_file 100\n", 2), 700);
    assert.equal(workingSet(1000, "cache 400\ntotal_inactive_file 250\n", 1), 750);
    assert.equal(workingSet(100, "inactive_file 300\n", 2), 0);
  });

  it("takes the tightest limit of the cgroup and its ancestors (v2 tree)", async () => {
    const root = await mkdtemp(join(tmpdir(), "bf-cgroup-"));
    try {
      const pod = join(root, "kubepods", "pod1");
      const ctr = join(pod, "ctr");
      await mkdir(ctr, { recursive: true });
      await writeFile(join(root, "cgroup.controllers"), "cpuset cpu io memory pids\n");
      await writeFile(join(root, "kubepods", "memory.current"), "1\n");
      await writeFile(join(root, "kubepods", "memory.max"), `${8 * GiB}\n`);
      await writeFile(join(pod, "memory.current"), "1\n");
      await writeFile(join(pod, "memory.max"), `${1 * GiB}\n`);
      await writeFile(join(pod, "cpu.max"), "200000 100000\n");
      await writeFile(join(ctr, "memory.current"), `${600 * MiB}\n`);
      await writeFile(join(ctr, "memory.max"), "max\n");
      await writeFile(join(ctr, "cpu.max"), "max 100000\n");
      await writeFile(join(ctr, "memory.stat"), `inactive_file ${100 * MiB}\n`);
      const self = join(root, "self-cgroup");
      await writeFile(self, "0::/kubepods/pod1/ctr\n");
      const limits = readCgroupLimits(root, self);
      assert.equal(limits.version, 2);
      assert.equal(limits.memoryLimitBytes, 1 * GiB, "the pod's limit binds its container");
      assert.equal(limits.cpus, 2);
      assert.deepEqual(limits.memoryNow(), { workingSetBytes: 500 * MiB, limitBytes: 1 * GiB });
      // In its own cgroup namespace the container sees "/" and its files at the root.
      await writeFile(self, "0::/\n");
      await writeFile(join(root, "memory.current"), `${300 * MiB}\n`);
      await writeFile(join(root, "memory.max"), `${768 * MiB}\n`);
      const namespaced = readCgroupLimits(root, self);
      assert.equal(namespaced.memoryLimitBytes, 768 * MiB);
      assert.equal(namespaced.memoryNow().workingSetBytes, 300 * MiB);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("reads nothing where there is no cgroup: the host sizes the worker", () => {
    const none = readCgroupLimits("/nonexistent-cgroup-root", "/nonexistent-proc-cgroup");
    assert.equal(none.memoryLimitBytes, undefined);
    assert.deepEqual(none.memoryNow(), {});
  });
});

describe("slots from limits", () => {
  it("sizes a worker left to choose by the tighter of memory and CPUs", () => {
    // 2 GiB: (2048 - 512) / 384 = 4 by memory; 8 CPUs would keep 16 busy.
    assert.deepEqual(planSlots({ memoryBytes: 2 * GiB, cpus: 8 }, DEFAULT_SLOT_COSTS), {
      slots: 4,
      by: "memory",
      capped: 0,
    });
    assert.deepEqual(planSlots({ memoryBytes: 64 * GiB, cpus: 1.5 }, DEFAULT_SLOT_COSTS), {
      slots: 3,
      by: "cpu",
      capped: 0,
    });
    assert.equal(
      planSlots({ memoryBytes: 256 * MiB, cpus: 0.25 }, DEFAULT_SLOT_COSTS).slots,
      1,
      "at least one",
    );
  });

  it("takes a setting as it is unless the memory cannot hold it; too few CPUs never cut it", () => {
    assert.deepEqual(planSlots({ memoryBytes: 2 * GiB, cpus: 1 }, DEFAULT_SLOT_COSTS, 3), {
      slots: 3,
      by: "setting",
      capped: 0,
    });
    const cut = planSlots({ memoryBytes: 1536 * MiB, cpus: 8 }, DEFAULT_SLOT_COSTS, 6);
    assert.deepEqual(cut, { slots: 2, by: "memory", capped: 4 });
    assert.match(slotsSetBy(cut), /asked for 6; the memory limit holds 2/);
  });

  it("stops taking tasks at the high mark and starts again only below the low one", () => {
    const t = { high: 0.85, low: 0.75 };
    assert.equal(underPressure(false, 800, 1000, t), false);
    assert.equal(underPressure(false, 850, 1000, t), true);
    assert.equal(underPressure(true, 800, 1000, t), true, "hovering under the high mark stays paused");
    assert.equal(underPressure(true, 740, 1000, t), false);
    assert.equal(underPressure(true, 10_000, undefined, t), false, "no limit: never");
    assert.equal(underPressure(false, undefined, 1000, t), false, "no reading: never");
  });
});
