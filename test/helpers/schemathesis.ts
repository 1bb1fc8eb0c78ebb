import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** The version the fuzz test is written against; scripts/setup.mjs installs the same one. */
export const SCHEMATHESIS_VERSION = "4.32.5";
const VENV = join(process.env.BROWSERFLEET_TOOLS_DIR ?? join(ROOT, ".tools"), "schemathesis");
export const FUZZ_DIR = join(ROOT, "test", "e2e", "openapi-fuzz");

/**
 * The schemathesis CLI (`st`): SCHEMATHESIS_BIN, else the venv scripts/setup.mjs makes under .tools, which is
 * made here when it is missing. Throws with what to run when Python cannot make it.
 */
export function schemathesisBin(): string {
  if (process.env.SCHEMATHESIS_BIN) return process.env.SCHEMATHESIS_BIN;
  const bin = join(VENV, "bin", "st");
  if (existsSync(bin)) return bin;
  const steps: [string, string[]][] = [
    ["python3", ["-m", "venv", VENV]],
    [join(VENV, "bin", "pip"), ["install", "-q", `schemathesis==${SCHEMATHESIS_VERSION}`]],
  ];
  for (const [command, args] of steps) {
    const r = spawnSync(command, args, { stdio: "inherit" });
    if (r.status !== 0)
      throw new Error(
        `schemathesis is not installed and \`${command} ${args.join(" ")}\` failed; run \`node scripts/setup.mjs test\` (it needs python3 with venv and pip) or set SCHEMATHESIS_BIN`,
      );
  }
  return bin;
}

export interface FuzzRun {
  code: number | null;
  output: string;
}

/** Run `st run` on the document at `schemaUrl` with the repository's config and hooks; its exit code and output. */
export function runSchemathesis(schemaUrl: string, args: string[], cwd: string): Promise<FuzzRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      schemathesisBin(),
      [
        "--config-file",
        join(FUZZ_DIR, "schemathesis.toml"),
        "--no-color",
        "run",
        schemaUrl,
        "--output-truncate",
        "true",
        ...args,
      ],
      {
        cwd,
        env: {
          ...process.env,
          PYTHONPATH: FUZZ_DIR,
          SCHEMATHESIS_HOOKS: "hooks",
          // Hypothesis keeps its example database in the working directory; the run must not depend on it.
          HYPOTHESIS_STORAGE_DIRECTORY: join(cwd, ".hypothesis"),
        },
      },
    );
    let output = "";
    child.stdout.on("data", (d) => {
      output += d;
    });
    child.stderr.on("data", (d) => {
      output += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}
