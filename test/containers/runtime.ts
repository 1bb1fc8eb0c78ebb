/**
 * Containers for tests through testcontainers, over podman's Docker-compatible API: there is no Docker
 * engine here, so the test starts `podman system service` on a socket of its own and points
 * testcontainers at it (DOCKER_HOST).
 *
 * testcontainers' reaper (Ryuk) is a container pulled from a registry, which this machine cannot reach, so
 * it is turned off, and cleanup is guaranteed without it:
 * - every container a test starts carries the labels LABEL and PID_LABEL (the test process's pid);
 * - a test removes its own containers in its `after` hook;
 * - a test process that died before that (killed, crashed) leaves containers whose PID_LABEL names no
 *   running process: the next test run to start the runtime removes them first;
 * - the podman service itself is stopped with the test process (stop(), and SIGKILL on exit).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, rm } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getContainerRuntimeClient } from "testcontainers";
import { PODMAN_GLOBAL } from "../../scripts/images.ts";
import { waitFor } from "../helpers/wait-for.ts";

export const LABEL = "org.browserfleet.test";
export const PID_LABEL = "org.browserfleet.test.pid";

export interface ContainerRuntime {
  socket: string;
  stop(): Promise<void>;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
};

/** podman's API service on a socket of this process's, testcontainers pointed at it. */
export async function startContainerRuntime(): Promise<ContainerRuntime> {
  // One folder per test process: testcontainers keeps the client it made for the first socket.
  const dir = join(tmpdir(), `bf-podman-api-${process.pid}`);
  await mkdir(dir, { recursive: true });
  const socket = join(dir, "podman.sock");
  const service: ChildProcess = spawn(
    "podman",
    [...PODMAN_GLOBAL, "system", "service", "--time=0", `unix://${socket}`],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let log = "";
  service.stderr?.on("data", (d) => {
    log = (log + String(d)).slice(-4000);
  });
  const onExit = () => service.kill("SIGKILL");
  process.once("exit", onExit);
  await waitFor(
    "podman's API service",
    async () => {
      if (service.exitCode !== null) throw new Error(`podman system service exited: ${log}`);
      return (await ping(socket)) === 200;
    },
    30_000,
    100,
  );
  process.env.DOCKER_HOST = `unix://${socket}`;
  process.env.TESTCONTAINERS_RYUK_DISABLED = "true";
  await removeOrphans();
  return {
    socket,
    async stop() {
      process.removeListener("exit", onExit);
      if (service.exitCode === null) {
        const gone = new Promise((r) => service.once("exit", r));
        service.kill("SIGTERM");
        await Promise.race([gone, new Promise((r) => setTimeout(r, 5_000))]);
        if (service.exitCode === null) service.kill("SIGKILL");
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Containers of test processes that are gone (killed before their cleanup ran). */
async function removeOrphans(): Promise<void> {
  const client = await getContainerRuntimeClient();
  // Stopped ones too (testcontainers' own list() shows running ones only).
  const ours = await client.container.dockerode.listContainers({
    all: true,
    filters: { label: [`${LABEL}=true`] },
  });
  for (const c of ours) {
    const labels = c.Labels ?? {};
    if (labels[LABEL] !== "true") continue;
    const pid = Number(labels[PID_LABEL]);
    if (pid === process.pid || (Number.isFinite(pid) && alive(pid))) continue;
    await client.container
      .getById(c.Id)
      .remove({ force: true, v: true })
      .catch(() => {});
  }
}

/** The API's /_ping status (0 while nothing answers on the socket). */
function ping(socketPath: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ socketPath, path: "/_ping" }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", () => resolve(0));
    req.end();
  });
}
