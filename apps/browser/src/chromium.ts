import { randomUUID } from "node:crypto";
import { chownSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { chromiumPss } from "./process-memory.ts";
import { NO_SANDBOX, runAsLauncher, type SandboxPlan, sandboxFailed } from "./sandbox.ts";

export class ChromiumMissingError extends Error {}

/** CHROMIUM_PATH, else Debian's chromium, else Playwright's own install. */
export function findChromium(): string | undefined {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv))
      throw new ChromiumMissingError(`CHROMIUM_PATH points at ${fromEnv}, which does not exist.`);
    return fromEnv;
  }
  for (const candidate of ["/usr/bin/chromium", "/usr/bin/chromium-browser"]) {
    if (existsSync(candidate)) return candidate;
  }
  try {
    const own = chromium.executablePath();
    if (own && existsSync(own)) return own;
  } catch {
    // Playwright has no browser of its own installed.
  }
  throw new ChromiumMissingError(
    "Chromium was not found. Install it (Debian: apt-get install chromium) or set CHROMIUM_PATH to a Chromium or Chrome binary.",
  );
}

/**
 * Playwright (1.65) passes its own `--disable-features`, and Chromium keeps only the last such switch, so ours
 * repeats Playwright's list before adding to it (test/chromium-flags.test.ts fails when Playwright's grows).
 */
export const PLAYWRIGHT_DISABLED_FEATURES = [
  "AvoidUnnecessaryBeforeUnloadCheckSync",
  "DestroyProfileOnBrowserClose",
  "HttpsUpgrades",
  "HttpsFirstBalancedModeAutoEnable",
  "LensOverlay",
  "MediaRouter",
  "PaintHolding",
  "ThirdPartyStoragePartitioning",
  "AvoidCorsURLLoaderRestartOnRedirect",
  "TcpPortRandomizationWin",
  "OptimizationHints",
  "NetworkTimeServiceQuerying",
  "AimEnabled",
  "PreconnectToSearch",
  "msForceBrowserSignIn",
  "msEdgeUpdateLaunchServicesPreferredVersion",
];

/**
 * What a headless worker never shows: the address bar's popup, which Chromium 156 preloads as a WebUI page
 * in a renderer process of its own for every context (about 45 MiB PSS each, measured here).
 *
 * And RenderDocument: with it Chromium builds a new frame host, with its own widget and compositor, for
 * every navigation of a page, even to the same site; a job navigates one page from one page of a site to
 * the next, and that rebuild was about a quarter of a crawled page's CPU (renderer, browser and GPU
 * processes: 146-158 ms per page against 192-244, worker alone). Without it a same-site navigation reuses
 * the frame host, as Chromium did before; a page still gets a fresh document and JavaScript world.
 */
export const WORKER_DISABLED_FEATURES = [
  "WebUIOmniboxPopup",
  "WebUIOmniboxAimPopup",
  "WebUIOmniboxFullPopup",
  "RenderDocument",
];

const ARGS = [
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...WORKER_DISABLED_FEATURES].join(",")}`,
  "--disable-dev-shm-usage",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-default-apps",
  "--disable-extensions",
  "--mute-audio",
  "--hide-scrollbars",
];

/**
 * The only variables of the worker's environment Chromium sees: what it needs to find fonts, write its
 * caches and tell the time. Never the worker's own (NATS credentials, proxies' passwords, keys): a page
 * that took over a renderer could read its process's environment.
 */
const CHROMIUM_ENV =
  /^(PATH|HOME|TMPDIR|TZ|LANG|LANGUAGE|LC_[A-Z]+|FONTCONFIG_(FILE|PATH)|XDG_(CONFIG|CACHE|DATA)_(HOME|DIRS))$/;

export function chromiumEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && CHROMIUM_ENV.test(k)) out[k] = v;
  return out;
}

/** When a browser is replaced by a fresh one: after this many tasks, or past this much memory (PSS). */
export interface RecyclePolicy {
  /** Tasks one browser serves before it is replaced (0: never). */
  maxTasks: number;
  /** PSS of all the browser's processes, in bytes, past which it is replaced (0: never). */
  maxPssBytes: number;
  /** How often the memory is read, in ms. */
  checkEveryMs?: number;
  /**
   * How long a retired browser with no context left waits before it closes, in ms (1 s): a session may
   * have taken it a moment before it was retired and be making its context.
   */
  closeGraceMs?: number;
}

/** Why a browser was replaced, for the metric. */
export type RecycleReason = "tasks" | "memory";

interface Generation {
  browser: Promise<Browser>;
  /** Marks the browser process's command line, so its processes can be found for their memory. */
  marker: string;
  tasks: number;
  inFlight: number;
  retired: boolean;
}

/** A browser lent to one task; `release` says the task is done with it. */
export interface BrowserLease {
  browser: Browser;
  release(): void;
}

export interface KeeperEvents {
  onRestart?: () => void;
  /** A browser stops taking new work (it will close once its last context has). */
  onRetire?: (browser: Browser, reason: RecycleReason) => void;
}

/**
 * Keeps one Chromium alive: relaunches it when it dies, and counts the restarts. With a recycle policy a
 * browser that served enough tasks or grew past the memory ceiling is retired: new work goes to a fresh
 * browser launched at once, and the old one closes only when its tasks and contexts (sessions, a job's
 * shared context) are done, so nothing in flight fails.
 */
export class ChromiumKeeper {
  private current: Generation | undefined;
  private readonly all = new Set<Generation>();
  private closing = false;
  private memoryTimer: NodeJS.Timeout | undefined;
  private readonly events: KeeperEvents;
  /** Chromium's sandbox: as planned, or off once it failed to start with auto's fallback. */
  sandbox: SandboxPlan;
  /** A browser has started: a later failure is not the sandbox's. */
  private launched = false;
  /** Where Chromium is started from, and the folder downloads go to (its user's, when it runs as one). */
  private readonly launcher: { executablePath: string; downloadsPath?: string };
  /** Folders this keeper made (the launcher's, the downloads'): removed when it closes. */
  private readonly ownDirs: string[] = [];
  restarts = 0;
  recycled = 0;

  constructor(
    executablePath: string,
    private readonly extraArgs: string[],
    events: (() => void) | KeeperEvents = {},
    private readonly policy: RecyclePolicy = { maxTasks: 0, maxPssBytes: 0 },
    sandbox: SandboxPlan = NO_SANDBOX,
  ) {
    this.sandbox = sandbox;
    this.events = typeof events === "function" ? { onRestart: events } : events;
    const user = sandbox.runAs;
    if (user) {
      const downloadsPath = mkdtempSync(join(tmpdir(), "browserfleet-downloads-"));
      chownSync(downloadsPath, user.uid, user.gid);
      this.launcher = { executablePath: runAsLauncher(executablePath, user), downloadsPath };
      this.ownDirs.push(dirname(this.launcher.executablePath), downloadsPath);
    } else this.launcher = { executablePath };
    if (policy.maxPssBytes > 0) {
      this.memoryTimer = setInterval(() => void this.checkMemory(), policy.checkEveryMs ?? 5_000);
      this.memoryTimer.unref();
    }
  }

  browser(): Promise<Browser> {
    return this.generation().browser;
  }

  /** The current browser for one task; the task counts toward the browser's recycling once released. */
  async lease(): Promise<BrowserLease> {
    const gen = this.generation();
    gen.inFlight++;
    let browser: Browser;
    try {
      browser = await gen.browser;
    } catch (err) {
      gen.inFlight--;
      throw err;
    }
    let released = false;
    return {
      browser,
      release: () => {
        if (released) return;
        released = true;
        gen.inFlight--;
        gen.tasks++;
        if (!gen.retired && this.policy.maxTasks > 0 && gen.tasks >= this.policy.maxTasks)
          this.retire(gen, "tasks");
        else if (gen.retired) void this.closeWhenIdle(gen);
      },
    };
  }

  /** PSS of the current browser's processes, in bytes (0 where /proc cannot tell). */
  currentPss(): number {
    return this.current ? chromiumPss(this.current.marker) : 0;
  }

  /** Browsers still open: the current one and retired ones finishing their work. */
  open(): number {
    return this.all.size;
  }

  private generation(): Generation {
    if (!this.current) this.current = this.launch();
    return this.current;
  }

  private launch(): Generation {
    const marker = `--browserfleet-browser=${randomUUID()}`;
    const gen: Generation = { browser: undefined as never, marker, tasks: 0, inFlight: 0, retired: false };
    const start = () =>
      chromium.launch({
        ...this.launcher,
        args: [...ARGS, ...this.extraArgs, marker],
        // Without it Playwright adds --no-sandbox.
        chromiumSandbox: this.sandbox.on,
        env: chromiumEnv(process.env),
        headless: true,
      });
    const attempt = start()
      .catch((err) => {
        if (this.launched || !this.sandbox.on || !this.sandbox.fallback) throw err;
        this.sandbox = sandboxFailed(this.sandbox, err);
        return start();
      })
      .then((browser) => {
        this.launched = true;
        return browser;
      });
    gen.browser = attempt;
    this.all.add(gen);
    attempt.then(
      (browser) =>
        browser.on("disconnected", () => {
          this.all.delete(gen);
          if (this.closing || gen.retired) return;
          if (this.current === gen) this.current = undefined;
          this.restarts++;
          this.events.onRestart?.();
        }),
      () => {
        this.all.delete(gen);
        if (this.current === gen) this.current = undefined;
      },
    );
    return gen;
  }

  private checkMemory(): void {
    const gen = this.current;
    if (!gen || gen.retired || this.closing) return;
    if (chromiumPss(gen.marker) > this.policy.maxPssBytes) this.retire(gen, "memory");
  }

  /** Stop giving `gen` new work, launch its successor now, close it once nothing uses it. */
  private retire(gen: Generation, reason: RecycleReason): void {
    if (gen.retired || this.closing) return;
    gen.retired = true;
    if (this.current === gen) this.current = undefined;
    this.recycled++;
    void gen.browser.then((b) => this.events.onRetire?.(b, reason)).catch(() => {});
    // The successor starts now, so the next task does not wait for a launch.
    void this.generation().browser.catch(() => {});
    void this.closeWhenIdle(gen);
  }

  private async closeWhenIdle(gen: Generation): Promise<void> {
    const browser = await gen.browser.catch(() => undefined);
    if (!browser?.isConnected()) return;
    if (gen.inFlight > 0) return; // the last release calls again
    if (browser.contexts().length === 0) {
      // A session may have taken this browser a moment before it was retired and be making its context.
      await new Promise((r) => setTimeout(r, this.policy.closeGraceMs ?? 1_000).unref());
      if (gen.inFlight > 0 || browser.contexts().length > 0) return this.closeWhenIdle(gen);
      await browser.close().catch(() => {});
      return;
    }
    // A session or a job's shared context is still open on it: look again once one closes.
    await Promise.race(browser.contexts().map((c) => new Promise<void>((r) => c.once("close", () => r()))));
    await this.closeWhenIdle(gen);
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.memoryTimer);
    const gens = [...this.all];
    await Promise.all(
      gens.map(async (g) => {
        const b = await g.browser.catch(() => undefined);
        await b?.close().catch(() => {});
      }),
    );
    // The launcher's folder and the downloads folder are this keeper's alone: a worker started and
    // stopped many times (a pod's restarts, tests) would otherwise leave two folders in /tmp each time.
    for (const dir of this.ownDirs) rmSync(dir, { recursive: true, force: true });
  }
}
