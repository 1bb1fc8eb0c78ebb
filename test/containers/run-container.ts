/**
 * Our images run as the chart runs them, through testcontainers (over podman's API: see runtime.ts):
 * their own entry point and user, a read-only root with a writable /tmp (the chart's emptyDir), every
 * capability dropped, no privilege escalation, limits the machine allows; on the host network, so they
 * reach the local NATS, PostgreSQL and fixture site, and each other, on 127.0.0.1.
 */
import { GenericContainer, getContainerRuntimeClient, type StartedTestContainer } from "testcontainers";
import { containerUlimits } from "../../scripts/images.ts";
import { LABEL, PID_LABEL } from "./runtime.ts";

/** What the tests read of a container's inspection. */
export interface Inspected {
  State: { Pid: number; Running: boolean };
  Config: { User: string };
  HostConfig: { ReadonlyRootfs?: boolean };
}

export interface Container {
  name: string;
  id: string;
  logs(): Promise<string>;
  running(): Promise<boolean>;
  inspect(): Promise<Inspected>;
  /** Run a command inside (as the image's user); its exit code and what it printed. */
  exec(command: string[]): Promise<{ exitCode: number; output: string }>;
  /** Stopped with SIGTERM and `graceSeconds` to go (0: killed at once), then started again, same data. */
  restart(graceSeconds: number): Promise<void>;
  /** Stopped the same way, kept (its data too) until start() or remove(). */
  stop(graceSeconds: number): Promise<void>;
  start(): Promise<void>;
  remove(): Promise<void>;
}

export interface RunOptions {
  env?: Record<string, string>;
  /** Arguments after the image's entry point. */
  command?: string[];
  /** /dev/shm's size (Chromium needs more than the default 64 MB). */
  shmBytes?: number;
  /** A seccomp profile (JSON file) in place of the runtime's default. */
  seccompProfile?: string;
  /** host path → container path, read-only. */
  readOnlyMounts?: Record<string, string>;
  /** host path → container path, writable (a volume: kept across restarts of the container). */
  mounts?: Record<string, string>;
  /** Default true, as the chart runs our programs; a database writes its files into the container. */
  readOnlyRoot?: boolean;
}

/** Never pulled: the images are built here (`npm run images`), and no registry is reachable. */
const LOCAL_ONLY = { shouldPull: () => false };

/** GenericContainer with what its builder has no method for: a read-only root. */
class ChartLikeContainer extends GenericContainer {
  withReadOnlyRoot(on: boolean): this {
    this.hostConfig.ReadonlyRootfs = on;
    return this;
  }
}

export async function runContainer(name: string, image: string, opts: RunOptions = {}): Promise<Container> {
  const client = await getContainerRuntimeClient();
  // A container of this name left by an earlier run of this test.
  await client.container.dockerode
    .getContainer(name)
    .remove({ force: true })
    .catch(() => {});
  const { nofile, nproc } = containerUlimits();
  const readOnlyRoot = opts.readOnlyRoot ?? true;
  // podman's Docker-compatible API takes the profile's path here (Docker's takes its JSON).
  const seccomp = opts.seccompProfile ? [`seccomp=${opts.seccompProfile}`] : [];
  let builder = new ChartLikeContainer(image)
    .withName(name)
    .withNetworkMode("host")
    .withPullPolicy(LOCAL_ONLY)
    .withEnvironment(opts.env ?? {})
    .withLabels({ [LABEL]: "true", [PID_LABEL]: String(process.pid) })
    .withDroppedCapabilities("ALL")
    .withUlimits({ nofile: { soft: nofile, hard: nofile }, nproc: { soft: nproc, hard: nproc } })
    .withSecurityOpt("no-new-privileges", ...seccomp)
    .withReadOnlyRoot(readOnlyRoot);
  if (readOnlyRoot) builder = builder.withTmpFs({ "/tmp": "rw,exec" });
  if (opts.command) builder = builder.withCommand(opts.command);
  if (opts.shmBytes) builder = builder.withSharedMemorySize(opts.shmBytes);
  const binds = [
    ...Object.entries(opts.readOnlyMounts ?? {}).map(([source, target]) => ({
      source,
      target,
      mode: "ro" as const,
    })),
    ...Object.entries(opts.mounts ?? {}).map(([source, target]) => ({ source, target, mode: "rw" as const })),
  ];
  if (binds.length > 0) builder = builder.withBindMounts(binds);
  const started: StartedTestContainer = await builder.start();
  const id = started.getId();
  const handle = () => client.container.dockerode.getContainer(id);
  return {
    name,
    id,
    async logs() {
      const buf = (await handle().logs({ stdout: true, stderr: true, follow: false })) as unknown as Buffer;
      return demux(buf);
    },
    running: async () => (await handle().inspect()).State.Running,
    inspect: async () => (await handle().inspect()) as Inspected,
    exec: async (command) => {
      const r = await started.exec(command);
      return { exitCode: r.exitCode, output: r.output };
    },
    restart: async (graceSeconds) => {
      await handle().restart({ t: graceSeconds });
    },
    stop: async (graceSeconds) => {
      await handle().stop({ t: graceSeconds });
    },
    start: async () => {
      await handle().start();
    },
    remove: async () => {
      await handle()
        .remove({ force: true, v: true })
        .catch(() => {});
    },
  };
}

/** A log stream as the Docker API sends it (8-byte frame headers), as text. */
function demux(buf: Buffer): string {
  let out = "";
  let at = 0;
  while (at + 8 <= buf.length && (buf[at] === 1 || buf[at] === 2) && buf[at + 1] === 0) {
    const size = buf.readUInt32BE(at + 4);
    out += buf.subarray(at + 8, at + 8 + size).toString("utf8");
    at += 8 + size;
  }
  return at === 0 ? buf.toString("utf8") : out + buf.subarray(at).toString("utf8");
}

/** Poll `url` until it answers 200; fail with the container's log if it stops first or never does. */
export async function waitHealthy(c: Container, url: string, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await fetch(url).catch(() => undefined);
    if (r?.ok) return;
    if (!(await c.running())) throw new Error(`${c.name} stopped before ${url} answered:\n${await c.logs()}`);
    if (Date.now() > until)
      throw new Error(`${url} did not answer 200 in ${timeoutMs} ms (last ${r?.status}):\n${await c.logs()}`);
    await new Promise((res) => setTimeout(res, 500));
  }
}
