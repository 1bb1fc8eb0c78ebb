/**
 * Cleanup without testcontainers' reaper: a container left by a test process that died before its
 * `after` hook (labelled with that process's pid) is removed when the next test run starts the runtime;
 * one of a process still running is left alone. Skips when podman is missing.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, describe, it } from "node:test";
import { getContainerRuntimeClient } from "testcontainers";
import { imageName } from "../../scripts/images.ts";
import { type ContainerRuntime, LABEL, PID_LABEL, startContainerRuntime } from "./runtime.ts";

const podmanThere = spawnSync("podman", ["--version"], { stdio: "ignore" }).status === 0;
const hasImage =
  podmanThere &&
  spawnSync("podman", ["image", "exists", imageName("nats")], { stdio: "ignore" }).status === 0;

describe("containers of dead test processes", {
  skip: (!podmanThere && "podman is not installed") || (!hasImage && "the nats image is not built"),
}, () => {
  let runtime: ContainerRuntime | undefined;
  after(async () => {
    await runtime?.stop();
  });

  it("are removed when the runtime starts; a live process's are kept", async () => {
    runtime = await startContainerRuntime();
    const client = await getContainerRuntimeClient();
    // A pid that was a test process and is gone now.
    const dead = spawnSync("true").pid;
    const make = async (name: string, pid: number) => {
      await client.container.dockerode
        .getContainer(name)
        .remove({ force: true })
        .catch(() => {});
      return client.container.dockerode.createContainer({
        name,
        Image: imageName("nats"),
        Cmd: ["--help"],
        Labels: { [LABEL]: "true", [PID_LABEL]: String(pid) },
      });
    };
    const orphan = await make(`bf-orphan-${process.pid}`, dead);
    const mine = await make(`bf-kept-${process.pid}`, process.pid);
    await runtime.stop();
    runtime = await startContainerRuntime();
    const names = (
      await client.container.dockerode.listContainers({ all: true, filters: { label: [`${LABEL}=true`] } })
    ).flatMap((c) => c.Names.map((n) => n.replace(/^\//, "")));
    assert.ok(!names.includes(`bf-orphan-${process.pid}`), `the orphan is gone: ${names.join(", ")}`);
    assert.ok(names.includes(`bf-kept-${process.pid}`), "a running process's container is kept");
    await mine.remove({ force: true });
    await orphan.remove({ force: true }).catch(() => {});
  });
});
