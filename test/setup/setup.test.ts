/**
 * `npm start` on a fresh clone: its set-up (scripts/setup.mjs) installs what is missing, then the service
 * answers; a start that fails says why in one line and leaves nothing running; a stop, by a signal to
 * npm alone or to its whole process group (a terminal's Ctrl-C), answers the calls in flight and leaves
 * nothing running, within its bound, and a second Ctrl-C forces it.
 *
 * The clone sits in a folder only its owner can enter (root's home is such a folder): run as root, the
 * embedded PostgreSQL runs as the `postgres` user, who cannot reach it, and must still start.
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
import { createServer as createHttpServer, type ServerResponse } from "node:http";
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

/** A process's start time (field 22 of /proc/PID/stat), which tells it from a later one with its pid. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[0] === "Z" ? undefined : fields[19];
  } catch {
    return undefined;
  }
}

/** Every process below `root` now (whatever process group it made for itself), by pid and start time. */
function processTree(root: number): Map<number, string> {
  const parentOf = new Map<number, number>();
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      parentOf.set(Number(pid), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const below = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of parentOf)
      if (!below.has(pid) && below.has(ppid)) {
        below.add(pid);
        grew = true;
      }
  }
  const tree = new Map<number, string>();
  for (const pid of below) {
    const start = startTime(pid);
    if (start) tree.set(pid, start);
  }
  return tree;
}

/** Those of `tree` still running, with their command lines (a short grace for the kernel's bookkeeping). */
async function stillRunning(tree: Map<number, string>): Promise<string[]> {
  const alive = () =>
    [...tree]
      .filter(([pid, start]) => startTime(pid) === start)
      .map(([pid]) => {
        try {
          return `${pid} ${readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").slice(0, 160)}`;
        } catch {
          return `${pid}`;
        }
      });
  for (let i = 0; i < 20 && alive().length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  return alive();
}

interface Run {
  pid: number;
  exit: Promise<number | null>;
  output: () => { stdout: string; stderr: string };
  kill: (sig: NodeJS.Signals) => void;
  /** Signal npm's whole process group, as a terminal's Ctrl-C does. */
  killGroup: (sig: NodeJS.Signals) => void;
}

describe("npm start on a fresh clone", { skip, timeout: 15 * 60_000 }, () => {
  let work: string;
  let copy: string;
  let installLog: string;
  let baseEnv: NodeJS.ProcessEnv;
  let pgHome: string;
  const runs: Run[] = [];

  before(() => {
    work = mkdtempSync(join(tmpdir(), "fleet-setup-")); // 0700, as root's home is
    // Where, as root, the embedded PostgreSQL's binaries and cluster go (in place of /var/lib/browserfleet).
    pgHome = mkdtempSync(join(tmpdir(), "fleet-setup-pg-"));
    chmodSync(pgHome, 0o755);
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
    for (const run of runs) run.killGroup("SIGKILL");
    if (work) rmSync(work, { recursive: true, force: true });
    if (pgHome) rmSync(pgHome, { recursive: true, force: true });
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
        BROWSER_SLOTS: "2",
        DATA_DIR: dataDir,
        EMBEDDED_POSTGRES_DIR: pgHome,
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true, // a process group of its own, like a command a terminal runs
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
      pid: child.pid!,
      exit,
      output: () => ({ stdout, stderr }),
      kill: (sig) => {
        if (child.exitCode === null && child.signalCode === null) child.kill(sig);
      },
      killGroup: (sig) => {
        try {
          process.kill(-child.pid!, sig);
        } catch {
          // the group is gone
        }
      },
    };
    runs.push(run);
    return { ...run, dataDir };
  }

  /** What the user reads on stderr, without npm's own lines about the failed script. */
  const ourLines = (stderr: string) =>
    stderr.split("\n").filter((l) => l.trim() && !/^npm (error|warn|notice)\b/.test(l));

  /** The api's address once `npm start` serves. */
  function served(start: Run): Promise<string> {
    return new Promise<string>((ok, fail) => {
      const timer = setInterval(() => {
        const m = /Browserfleet api on (http:\/\/[\d.]+:\d+)/.exec(start.output().stdout);
        if (m) {
          clearInterval(timer);
          ok(m[1]!.replace("0.0.0.0", "127.0.0.1"));
        }
      }, 200);
      void start.exit.then((code) => {
        clearInterval(timer);
        const { stdout, stderr } = start.output();
        fail(new Error(`npm start exited (${code}) before serving:\n${stdout}\n${stderr}`));
      });
    });
  }

  /** Resolves when `text` shows on the run's output (or rejects when it exits first). */
  function said(start: Run, text: RegExp): Promise<void> {
    return new Promise((ok, fail) => {
      const timer = setInterval(() => {
        const { stdout, stderr } = start.output();
        if (text.test(stdout + stderr)) {
          clearInterval(timer);
          ok();
        }
      }, 50);
      void start.exit.then(() => {
        clearInterval(timer);
        const { stdout, stderr } = start.output();
        if (text.test(stdout + stderr)) ok();
        else fail(new Error(`exited without saying ${text}:\n${stdout}\n${stderr}`));
      });
    });
  }

  /**
   * A site whose /slow page is held until release(): a scrape of it, and a session opened on it, are in
   * flight for as long as the test wants.
   */
  async function slowSite() {
    const held: ServerResponse[] = [];
    let waiting: { count: number; ok: () => void } | undefined;
    const page =
      "<html><head><title>Slow page</title></head><body><h1>Slow page</h1><p>Held until released.</p><button>Go</button></body></html>";
    const server = createHttpServer((req, res) => {
      res.setHeader("content-type", "text/html");
      if (req.url !== "/slow") return res.end(page);
      held.push(res);
      if (waiting && held.length >= waiting.count) waiting.ok();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    return {
      url,
      /** Resolves once `count` requests for /slow are held. */
      held: (count: number) =>
        new Promise<void>((ok) => {
          if (held.length >= count) ok();
          else waiting = { count, ok };
        }),
      release: () => {
        for (const res of held.splice(0)) res.end(page);
      },
      close: () => {
        server.closeAllConnections();
        server.close();
      },
    };
  }

  /** A keyless MCP tool call (the free allowance needs no key): its HTTP status and tool result. */
  async function mcpCall(api: string, name: string, args: Record<string, unknown>) {
    const res = await fetch(`${api}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name, arguments: args },
      }),
    });
    const body = (await res.json()) as { result?: { isError?: boolean; content: { text: string }[] } };
    return { status: res.status, result: body.result };
  }

  /**
   * A scrape and a session open both in flight on the held page when `signal` comes; the page is
   * released once the stop has begun, and both callers get their answer before the stack is gone.
   */
  async function stopWithCallsInFlight(start: Run, signal: () => void) {
    const api = await served(start);
    const site = await slowSite();
    try {
      const scrape = mcpCall(api, "web_scrape", { url: `${site.url}/slow`, formats: ["markdown"] });
      const session = mcpCall(api, "web_session_open", { url: `${site.url}/slow` });
      await site.held(2);
      const tree = processTree(start.pid);
      signal();
      await said(start, /shutting down/);
      site.release();
      const [scraped, opened] = await Promise.all([scrape, session]);
      assert.equal(scraped.status, 200);
      assert.equal(scraped.result?.isError, undefined, scraped.result?.content[0]?.text);
      assert.match(scraped.result!.content[0]!.text, /Held until released/);
      assert.equal(opened.status, 200);
      assert.equal(opened.result?.isError, undefined, opened.result?.content[0]?.text);
      assert.match(opened.result!.content[0]!.text, /sessionId/);
      return { tree, code: await start.exit };
    } finally {
      site.close();
    }
  }

  it("installs the dependencies and the missing nats-server, then serves from a folder only its owner enters; SIGTERM to npm stops it all, answering the calls in flight", async () => {
    assert.equal(existsSync(join(copy, "node_modules")), false);
    assert.equal(statSync(work).mode & 0o777, 0o700);
    const start = await npmStart("first", { FLEET_ALLOW_PRIVATE: "127.0.0.1/32" });
    const url = await served(start);
    const { stdout } = start.output();
    assert.match(stdout, /setup: node_modules is missing: installing the dependencies with npm ci/);
    assert.match(
      stdout,
      /setup: nats-server is missing: installing nats-server with `.*installer\.sh nats-server`/,
    );
    assert.equal(readFileSync(installLog, "utf8"), "nats-server\n", "only nats-server was missing");
    assert.ok(existsSync(join(copy, "node_modules", ".package-lock.json")));
    if (process.getuid?.() === 0) {
      // The postgres user cannot enter the clone: its cluster lives where it can, linked from DATA_DIR.
      assert.match(stdout, new RegExp(`PostgreSQL on .* \\(data in ${pgHome}/clusters/\\w+, linked from`));
    }

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

    // npm itself, as a process manager (or `timeout --foreground`) would.
    const { tree, code } = await stopWithCallsInFlight(start, () => start.kill("SIGTERM"));
    assert.equal(code, 0, start.output().stderr);
    assert.deepEqual(await stillRunning(tree), []);
    assert.doesNotMatch(start.output().stdout + start.output().stderr, /retrying/);
  });

  it("Ctrl-C (SIGINT to the whole process group) stops it in order, answering the calls in flight, and leaves nothing running", async () => {
    const start = await npmStart("ctrl-c", { FLEET_ALLOW_PRIVATE: "127.0.0.1/32" });
    const { tree, code } = await stopWithCallsInFlight(start, () => start.killGroup("SIGINT"));
    const { stdout, stderr } = start.output();
    assert.equal(code, 0, stderr);
    assert.deepEqual(await stillRunning(tree), []);
    assert.ok(
      tree.size >= 5,
      "npm, its supervisor, the service, nats-server, PostgreSQL, Chromium were seen",
    );
    // nats-server was not stopped under the parts that use it.
    assert.doesNotMatch(stdout + stderr, /retrying|did not stop/);
  });

  it("a second Ctrl-C forces the stop at once: exit status 1, nothing left running", async () => {
    const start = await npmStart("twice", { FLEET_ALLOW_PRIVATE: "127.0.0.1/32" });
    const api = await served(start);
    const site = await slowSite(); // never released: the stop would wait for the scrape
    try {
      const scrape = mcpCall(api, "web_scrape", { url: `${site.url}/slow` }).catch((err: Error) => err);
      await site.held(1);
      const tree = processTree(start.pid);
      start.killGroup("SIGINT");
      await said(start, /shutting down/);
      // A copy of the same Ctrl-C (npm passes its own on) comes within a second; a person's second is later.
      await new Promise((r) => setTimeout(r, 1200));
      start.killGroup("SIGINT");
      assert.equal(await start.exit, 1);
      assert.match(start.output().stderr, /a second SIGINT: forcing the stop/);
      assert.deepEqual(await stillRunning(tree), []);
      await scrape; // the caller is answered (the connection ends), not left hanging
    } finally {
      site.close();
    }
  });

  it("a stop that outlasts SHUTDOWN_TIMEOUT_MS is forced: it says which part, exits 1 and leaves nothing running", async () => {
    const start = await npmStart("bound", {
      FLEET_ALLOW_PRIVATE: "127.0.0.1/32",
      SHUTDOWN_TIMEOUT_MS: "3000",
    });
    const api = await served(start);
    const site = await slowSite(); // never released: the worker's scrape never ends by itself
    try {
      const scrape = mcpCall(api, "web_scrape", { url: `${site.url}/slow` }).catch((err: Error) => err);
      await site.held(1);
      const tree = processTree(start.pid);
      start.killGroup("SIGTERM");
      assert.equal(await start.exit, 1);
      assert.match(start.output().stderr, /(browser worker|api) did not stop within 3 s: forcing the stop/);
      assert.deepEqual(await stillRunning(tree), []);
      await scrape;
    } finally {
      site.close();
    }
  });

  it("starts again without installing anything, saying only that an old Node is old", async () => {
    const start = await npmStart("again", { PORT: "not-a-port" }); // stops right after the set-up
    assert.notEqual(await start.exit, 0);
    const setupLines = start
      .output()
      .stdout.split("\n")
      .filter((l) => l.startsWith("setup:"));
    const major = Number(process.versions.node.split(".")[0]);
    assert.deepEqual(
      setupLines.map((l) => /^setup: Node [\d.]+ is past its end of life/.test(l)),
      major < 22 ? [true] : [],
      setupLines.join("\n"),
    );
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
