/**
 * `npm start` on a fresh clone: its set-up (scripts/setup.mjs) installs what is missing, then the service
 * answers; a start that fails says why in one line and leaves nothing running.
 *
 * It runs in a copy of the repository's files without node_modules, so the copy's set-up does a real
 * `npm ci`. It never touches this machine's packages: BROWSERFLEET_SYSTEM_INSTALLER points at a script that
 * records what it is asked for, and nats-server is hidden from PATH until that script "installs" it (a link
 * to the real binary in a folder at the front of PATH).
 */
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { freePort } from "@browserfleet/bus";

const ROOT = resolve(import.meta.dirname, "../..");

function which(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const file = join(dir, name);
    if (dir && existsSync(file) && statSync(file).isFile()) return file;
  }
  return undefined;
}

const realNats = which("nats-server");
const skip = !realNats
  ? "nats-server is not installed (npm test's set-up installs it)"
  : !which("git")
    ? "git is not installed"
    : false;

/** The repository as a fresh clone would have it (committed or not, minus what git ignores). */
function copyRepository(dest: string): void {
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
  })
    .split("\0")
    .filter(Boolean);
  for (const file of files) {
    const from = join(ROOT, file);
    if (!existsSync(from)) continue; // deleted in the working tree
    mkdirSync(dirname(join(dest, file)), { recursive: true });
    copyFileSync(from, join(dest, file)); // keeps the mode, so scripts stay executable
  }
}

/** PATH with `binary` hidden: each folder that has it is replaced by links to everything else in it. */
function pathWithout(binary: string, shadows: string): string {
  return (process.env.PATH ?? "")
    .split(delimiter)
    .map((dir, i) => {
      if (!dir || !existsSync(join(dir, binary))) return dir;
      const shadow = join(shadows, String(i));
      mkdirSync(shadow, { recursive: true });
      for (const name of readdirSync(dir))
        if (name !== binary) symlinkSync(join(dir, name), join(shadow, name));
      return shadow;
    })
    .join(delimiter);
}

/** The processes whose command line mentions `text` (a data folder of one start). */
function processesMentioning(text: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
      if (cmd.includes(text)) found.push(`${pid} ${cmd}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** What a start left running: none, once it has exited (a short grace for the kernel's bookkeeping). */
async function leftRunning(dataDir: string): Promise<string[]> {
  for (let i = 0; i < 20; i++) {
    const left = processesMentioning(dataDir);
    if (left.length === 0) return left;
    await new Promise((r) => setTimeout(r, 100));
  }
  return processesMentioning(dataDir);
}

interface Run {
  exit: Promise<number | null>;
  output: () => { stdout: string; stderr: string };
  kill: (sig: NodeJS.Signals) => void;
}

describe("npm start on a fresh clone", { skip, timeout: 15 * 60_000 }, () => {
  let work: string;
  let copy: string;
  let installLog: string;
  let baseEnv: NodeJS.ProcessEnv;
  const runs: Run[] = [];

  before(() => {
    work = mkdtempSync(join(tmpdir(), "fleet-setup-"));
    chmodSync(work, 0o755); // as root, PostgreSQL runs as `postgres` and must reach its data and binaries
    copy = join(work, "clone");
    copyRepository(copy);
    const bin = join(work, "bin");
    mkdirSync(bin);
    installLog = join(work, "installed.log");
    const installer = join(work, "installer.sh");
    writeFileSync(
      installer,
      [
        "#!/bin/sh",
        `echo "$*" >> ${JSON.stringify(installLog)}`,
        'for p in "$@"; do',
        `  if [ "$p" = nats-server ]; then ln -sf ${JSON.stringify(realNats)} ${JSON.stringify(join(bin, "nats-server"))}; fi`,
        "done",
        "",
      ].join("\n"),
      { mode: 0o755 },
    );
    // A user's shell: none of the npm_* variables of an `npm test` around this, no settings of our own.
    baseEnv = Object.fromEntries(
      Object.entries(process.env).filter(
        ([k]) =>
          !k.startsWith("npm_") && !/^(NATS_URL|NATS_SERVER_BIN|DATABASE_URL|X402_.*|PORT|DEBUG)$/.test(k),
      ),
    );
    baseEnv.PATH = [bin, pathWithout("nats-server", join(work, "path"))].join(delimiter);
    baseEnv.BROWSERFLEET_SYSTEM_INSTALLER = installer;
  });

  after(() => {
    for (const run of runs) run.kill("SIGKILL");
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** `npm start` in the copy with its own ports and data folder. */
  async function npmStart(name: string, env: Record<string, string> = {}) {
    const dataDir = join(work, `data-${name}`);
    const child = spawn("npm", ["start"], {
      cwd: copy,
      env: {
        ...baseEnv,
        HOST: "127.0.0.1",
        PORT: String(await freePort()),
        BROWSER_METRICS_PORT: String(await freePort()),
        JOBS_METRICS_PORT: String(await freePort()),
        POSTGRES_PORT: String(await freePort()),
        BROWSER_SLOTS: "1",
        DATA_DIR: dataDir,
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const exit = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    const run: Run = {
      exit,
      output: () => ({ stdout, stderr }),
      kill: (sig) => {
        if (child.exitCode === null && child.signalCode === null) child.kill(sig);
      },
    };
    runs.push(run);
    return { ...run, dataDir };
  }

  /** What the user reads on stderr, without npm's own lines about the failed script. */
  const ourLines = (stderr: string) =>
    stderr.split("\n").filter((l) => l.trim() && !/^npm (error|warn|notice)\b/.test(l));

  it("installs the dependencies and the missing nats-server, then serves; SIGTERM stops it all", async () => {
    assert.equal(existsSync(join(copy, "node_modules")), false);
    const start = await npmStart("first");
    const url = await new Promise<string>((ok, fail) => {
      const timer = setInterval(() => {
        const m = /Browserfleet api on (http:\/\/[\d.]+:\d+)/.exec(start.output().stdout);
        if (m) {
          clearInterval(timer);
          ok(m[1]!);
        }
      }, 200);
      void start.exit.then((code) => {
        clearInterval(timer);
        const { stdout, stderr } = start.output();
        fail(new Error(`npm start exited (${code}) before serving:\n${stdout}\n${stderr}`));
      });
    });
    const { stdout } = start.output();
    assert.match(stdout, /setup: node_modules is missing: installing the dependencies with npm ci/);
    assert.match(
      stdout,
      /setup: nats-server is missing: installing nats-server with `.*installer\.sh nats-server`/,
    );
    assert.equal(readFileSync(installLog, "utf8"), "nats-server\n", "only nats-server was missing");
    assert.ok(existsSync(join(copy, "node_modules", ".package-lock.json")));

    const health = await fetch(`${url}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { ok: true });
    const scrape = await fetch(`${url}/web/v1/scrape`);
    assert.equal(scrape.status, 200);
    assert.equal(((await scrape.json()) as { route: string }).route, "/web/v1/scrape");
    assert.ok(
      processesMentioning(join(start.dataDir, "nats")).length > 0,
      "its own nats-server runs while it does",
    );

    start.kill("SIGTERM"); // npm itself, as a process manager would
    assert.equal(await start.exit, 0);
    assert.deepEqual(await leftRunning(start.dataDir), []);
  });

  it("starts again without installing anything", async () => {
    const start = await npmStart("again", { PORT: "not-a-port" }); // stops right after the set-up
    assert.notEqual(await start.exit, 0);
    assert.doesNotMatch(start.output().stdout, /setup:/);
    assert.equal(readFileSync(installLog, "utf8"), "nats-server\n");
  });

  describe("a start that fails says why in one line naming the setting, and leaves nothing running", () => {
    let taken: Server;
    let takenPort: number;
    before(async () => {
      takenPort = await freePort();
      taken = createServer();
      await new Promise<void>((r) => taken.listen(takenPort, "127.0.0.1", r));
    });
    after(() => taken?.close());

    async function failedStart(name: string, env: Record<string, string>) {
      const start = await npmStart(name, env);
      const code = await start.exit;
      const { stdout, stderr } = start.output();
      assert.notEqual(code, 0, stdout);
      const lines = ourLines(stderr);
      assert.equal(lines.length, 1, `one line on stderr, not:\n${stderr}`);
      assert.deepEqual(await leftRunning(start.dataDir), []);
      return { line: lines[0]!, stdout };
    }

    it("PORT in use", async () => {
      const { line } = await failedStart("port", { PORT: String(takenPort) });
      assert.match(line, new RegExp(`PORT ${takenPort} is already in use: set PORT to a free port`));
    });

    it("POSTGRES_PORT in use, after nats-server had started", async () => {
      const { line, stdout } = await failedStart("postgres", { POSTGRES_PORT: String(takenPort) });
      assert.match(line, new RegExp(`POSTGRES_PORT ${takenPort} is already in use: set POSTGRES_PORT`));
      assert.match(stdout, /nats-server with JetStream on/, "nats-server had started (and was stopped)");
    });

    it("a wallet address without a facilitator", async () => {
      const { line } = await failedStart("x402", { X402_PAY_TO: `0x${"1".repeat(40)}` });
      assert.match(line, /X402_PAY_TO is set but no facilitator is: set X402_FACILITATOR_URL/);
    });

    it("a setting that is not valid", async () => {
      const { line } = await failedStart("config", { BROWSER_SLOTS: "many" });
      assert.match(line, /BROWSER_SLOTS="many" is not valid .*: fix BROWSER_SLOTS/);
    });
  });
});
