import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";

/**
 * One of our programs (apps/<name>/src/main.ts) in its own process, so a test can kill -9 it.
 * Resolves once its stdout matches `ready`; rejects with its output if it exits first.
 */
export async function spawnProgram(
  main: string,
  env: Record<string, string | undefined>,
  ready: RegExp,
  /** A command that runs the program (its arguments follow), e.g. one that puts it in a cgroup first. */
  launcher: string[] = [],
): Promise<ChildProcess & { output(): string }> {
  const [cmd, ...args] = [...launcher, process.execPath, "--import", "tsx", resolve(main)];
  const child = spawn(cmd ?? process.execPath, args, {
    // As the images run them (Dockerfile): two malloc arenas.
    env: { MALLOC_ARENA_MAX: "2", ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  await new Promise<void>((ok, fail) => {
    child.stdout?.on("data", (d) => {
      out += d;
      if (ready.test(out)) ok();
    });
    child.stderr?.on("data", (d) => {
      out = (out + String(d)).slice(-8000);
    });
    child.once("exit", (code) => fail(new Error(`${main} exited (${code}): ${out}`)));
  });
  return Object.assign(child, { output: () => out });
}

/** Kill -9 and wait until the process is gone. */
export async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((r) => child.once("exit", () => r()));
  child.kill("SIGKILL");
  await gone;
}

/** A browser worker's process, and where it serves its metrics. */
export type BrowserWorkerProcess = ChildProcess & { metricsUrl: string };

/** A browser worker (apps/browser) in its own process, allowed to load the local fixture site. */
export async function spawnBrowserWorker(natsUrl: string, slots: number): Promise<BrowserWorkerProcess> {
  const child = await spawnProgram(
    "apps/browser/src/main.ts",
    {
      NATS_URL: natsUrl,
      BROWSER_SLOTS: String(slots),
      BROWSER_METRICS_PORT: "0",
      FLEET_ALLOW_PRIVATE: "127.0.0.1/32",
    },
    /browser worker .* slots, metrics at \S+\n/,
  );
  const metricsUrl = /browser worker .* slots, metrics at (\S+)\n/.exec(child.output())?.[1] ?? "";
  return Object.assign(child, { metricsUrl });
}
