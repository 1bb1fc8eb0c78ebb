import { execFile } from "node:child_process";
import { PODMAN_GLOBAL, ulimitArgs } from "../../scripts/images.ts";

/** podman, asynchronously (the test process serves the fixture site, NATS and PostgreSQL meanwhile). */
export function podmanAsync(args: string[], timeoutMs = 120_000): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      "podman",
      [...PODMAN_GLOBAL, ...args],
      { timeout: timeoutMs, maxBuffer: 64 << 20 },
      (err, stdout, stderr) =>
        resolve({
          code: err ? Number((err as { code?: number }).code ?? 1) || 1 : 0,
          out: `${stdout}${stderr}`,
        }),
    );
  });
}

export interface Container {
  name: string;
  logs(): Promise<string>;
  running(): Promise<boolean>;
  remove(): Promise<void>;
}

/**
 * Run an image as the chart runs it: its own entry point and user, a read-only root with a writable /tmp
 * (podman's --read-only mounts tmpfs there, like the chart's emptyDir), every capability dropped, no
 * privilege escalation; on the host network so it reaches the local NATS, PostgreSQL and fixture site.
 */
export async function runContainer(
  name: string,
  image: string,
  env: Record<string, string>,
  extra: string[] = [],
): Promise<Container> {
  await podmanAsync(["rm", "-f", name]);
  const r = await podmanAsync([
    "run",
    "-d",
    "--name",
    name,
    "--network=host",
    "--read-only",
    "--cap-drop=ALL",
    "--security-opt=no-new-privileges",
    ...ulimitArgs(),
    ...Object.entries(env).flatMap(([k, v]) => ["-e", `${k}=${v}`]),
    ...extra,
    image,
  ]);
  if (r.code !== 0) throw new Error(`podman run ${image} failed: ${r.out}`);
  return {
    name,
    logs: async () => (await podmanAsync(["logs", name])).out,
    running: async () =>
      (await podmanAsync(["inspect", "--format", "{{.State.Running}}", name])).out.trim() === "true",
    remove: async () => {
      await podmanAsync(["rm", "-f", "-t", "10", name]);
    },
  };
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

/** The sum of a Prometheus sample over the series whose labels include `labels`. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  let seen = false;
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+([0-9.eE+-]+|NaN)$/.exec(line);
    if (!m || m[1] !== name) continue;
    if (Object.entries(labels).every(([k, v]) => (m[2] ?? "").includes(`${k}="${v}"`))) {
      sum += Number(m[3]);
      seen = true;
    }
  }
  return seen ? sum : Number.NaN;
}
