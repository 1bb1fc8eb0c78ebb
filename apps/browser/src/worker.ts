import { randomUUID } from "node:crypto";
import { availableParallelism, totalmem } from "node:os";
import {
  connectBus,
  ensureResultsStream,
  ensureTaskQueue,
  openWorkersBucket,
  putWorkerState,
  RESULTS_ACK_WAIT_MS,
  type SlotLoops,
  startSlotLoops,
} from "@browserfleet/bus";
import type { Config, EgressPool } from "@browserfleet/config";
import type { BrowserTask, ScrapeRequest, TaskReply } from "@browserfleet/contracts";
import { serveProbes } from "@browserfleet/probes";
import { parseAllowList } from "@browserfleet/ssrf";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Browser } from "playwright-core";
import { ChromiumKeeper, findChromium } from "./chromium.ts";
import { listenForDrain } from "./drain.ts";
import { failureOf } from "./errors.ts";
import {
  DEFAULT_SLOT_COSTS,
  planSlots,
  type SlotCosts,
  type SlotPlan,
  underPressure,
} from "./limits/admission.ts";
import { type CgroupLimits, readCgroupLimits } from "./limits/cgroup.ts";
import { type BrowserMetrics, createBrowserMetrics } from "./metrics.ts";
import { type EgressRoute, EgressRoutes } from "./net/egress-routes.ts";
import { startGuardProxy } from "./net/guard-proxy.ts";
import { freshContext, makeWarmContext, newTaskContext, warmOrFreshContext } from "./page/context.ts";
import { JobContexts } from "./page/job-contexts.ts";
import { withSeenAs } from "./page/places.ts";
import { setSettleDefaults } from "./page/settle.ts";
import { WarmContexts } from "./page/warm-contexts.ts";
import { type SandboxSetting, sandboxPlan } from "./sandbox.ts";
import { SessionHost } from "./session/host.ts";
import { type AnyReply, admitTasks, dispatchTask, type TaskHandlers } from "./tasks/dispatch.ts";
import { runFetchTask } from "./tasks/fetch.ts";
import type { ScrapeHooks } from "./tasks/hooks.ts";
import { publishRefusedPage, runPageTask } from "./tasks/job-page.ts";
import { runMapTask } from "./tasks/map.ts";
import { runScrape } from "./tasks/scrape.ts";

export interface BrowserWorkerOptions {
  natsUrl: string;
  /** Slots asked for (BROWSER_SLOTS); cut to what the memory holds. Undefined: sized from the limits. */
  slots?: number;
  /** What the worker and each slot cost (BROWSER_BASE_MEMORY_MB, BROWSER_SLOT_MEMORY_MB). */
  costs?: SlotCosts;
  /** BROWSER_MEMORY_HIGH_PERCENT: no new task at this share of the memory limit (default 85). */
  memoryHighPercent?: number;
  /** The container's limits (default: read from this process's cgroup). */
  limits?: CgroupLimits;
  ackWaitMs: number;
  queueMax: number;
  /** NATS_STREAM_REPLICAS: copies of the work streams a NATS cluster keeps. */
  streamReplicas?: number;
  allowPrivate?: string;
  workerId?: string;
  /** wait.until auto's budget when a request sets none (SETTLE_BUDGET_MS). */
  settleBudgetMs?: number;
  /** Serve /metrics on this port; 0 picks a free one, undefined serves none. */
  metricsPort?: number;
  /** Keep a fresh context ready in each free slot for scrapes (default true). */
  warmContexts?: boolean;
  /** Replace the browser after this many tasks, or past this PSS in bytes (0 or undefined: never). */
  recycleTasks?: number;
  recyclePssBytes?: number;
  /** EGRESS_PROXIES and CALLER_PROXIES: the ways out a request may pick with its proxy field. */
  egressPools?: EgressPool[];
  callerProxies?: boolean;
  /** BROWSER_SANDBOX (default off here; auto from the environment) and BROWSER_SANDBOX_USER. */
  sandbox?: SandboxSetting;
  sandboxUser?: string;
}

export function workerOptionsFrom(config: Config, natsUrl: string): BrowserWorkerOptions {
  return {
    natsUrl,
    ...(config.BROWSER_SLOTS === undefined ? {} : { slots: config.BROWSER_SLOTS }),
    costs: {
      ...DEFAULT_SLOT_COSTS,
      baseBytes: config.BROWSER_BASE_MEMORY_MB * 1024 * 1024,
      slotBytes: config.BROWSER_SLOT_MEMORY_MB * 1024 * 1024,
    },
    memoryHighPercent: config.BROWSER_MEMORY_HIGH_PERCENT,
    ackWaitMs: config.TASK_ACK_WAIT_MS,
    queueMax: config.TASK_QUEUE_MAX,
    streamReplicas: config.NATS_STREAM_REPLICAS,
    allowPrivate: config.FLEET_ALLOW_PRIVATE,
    workerId: config.WORKER_ID,
    settleBudgetMs: config.SETTLE_BUDGET_MS,
    metricsPort: config.BROWSER_METRICS_PORT,
    warmContexts: config.BROWSER_WARM_CONTEXTS === "on",
    recycleTasks: config.BROWSER_RECYCLE_TASKS,
    recyclePssBytes: config.BROWSER_RECYCLE_PSS_MB * 1024 * 1024,
    egressPools: config.EGRESS_PROXIES,
    callerProxies: config.CALLER_PROXIES === "on",
    sandbox: config.BROWSER_SANDBOX,
    ...(config.BROWSER_SANDBOX_USER ? { sandboxUser: config.BROWSER_SANDBOX_USER } : {}),
  };
}

export interface BrowserWorker {
  workerId: string;
  /** The slots it runs, and what set that number. */
  slots: SlotPlan;
  metrics: BrowserMetrics;
  metricsUrl?: string;
  chromium: ChromiumKeeper;
  /** The contexts kept ready for scrapes, when on. */
  warm?: WarmContexts;
  /** Stop taking tasks, finish the held ones, close Chromium and the bus. */
  stop(): Promise<void>;
}

export async function startBrowserWorker(opts: BrowserWorkerOptions): Promise<BrowserWorker> {
  const workerId = opts.workerId ?? `browser-${randomUUID().slice(0, 8)}`;
  const metrics = createBrowserMetrics();
  const limits = opts.limits ?? readCgroupLimits();
  const plan = planSlots(
    {
      memoryBytes: limits.memoryLimitBytes ?? totalmem(),
      cpus: limits.cpus ?? availableParallelism(),
    },
    opts.costs ?? DEFAULT_SLOT_COSTS,
    opts.slots,
  );
  if (plan.capped > 0)
    console.warn(
      `browser worker ${workerId}: ${opts.slots} slots asked for, ${plan.slots} fit in the memory limit of ${limits.memoryLimitBytes ?? totalmem()} bytes: running ${plan.slots}`,
    );
  const slots = plan.slots;
  setSettleDefaults({ budgetMs: opts.settleBudgetMs });
  const allow = parseAllowList(opts.allowPrivate);
  const proxy = await startGuardProxy(allow);
  const egress = new EgressRoutes(
    proxy,
    { pools: opts.egressPools ?? [], callerProxies: opts.callerProxies ?? false },
    allow,
    (route) => metrics.egressTasks.inc({ way: route.way, pool: route.pool ?? "" }),
  );
  // <-loopback> stops Chromium from bypassing the proxy for loopback addresses.
  let draining = false;
  let busyNow = 0;
  // One ready context per free slot; none while draining.
  const warm =
    opts.warmContexts === false
      ? undefined
      : new WarmContexts(makeWarmContext, () => (draining ? 0 : slots - busyNow));
  // Contexts are made again only after scrapes used them (or wanted one): a crawl's page tasks take none, and
  // making and closing ready ones as its busy slots rise and fall cost it CPU for nothing.
  let used = true;
  const refill = (make?: boolean) => {
    if (warm)
      void chromium.browser().then(
        (b) => {
          warm.fill(b, make ?? used);
          if (warm.full()) used = false;
        },
        () => {},
      );
  };
  const chromium = new ChromiumKeeper(
    findChromium()!,
    [`--proxy-server=${proxy.url}`, "--proxy-bypass-list=<-loopback>"],
    {
      onRestart: () => metrics.chromiumRestarts.inc(),
      onRetire: (browser, reason) => {
        metrics.chromiumRecycled.inc({ reason });
        warm?.drop(browser);
        refill(true);
      },
    },
    { maxTasks: opts.recycleTasks ?? 0, maxPssBytes: opts.recyclePssBytes ?? 0 },
    sandboxPlan(opts.sandbox ?? "off", opts.sandboxUser),
  );
  await chromium.browser();
  metrics.readers.chromiumPss = () => chromium.currentPss();
  metrics.readers.sandboxed = () => chromium.sandbox.on;
  if (warm) metrics.readers.contextsReady = () => warm.size();
  const nc: NatsConnection = await connectBus({ servers: opts.natsUrl, name: workerId });
  const replicas = opts.streamReplicas ?? 1;
  await ensureTaskQueue(nc, { maxPending: opts.queueMax, ackWaitMs: opts.ackWaitMs, replicas });
  await ensureResultsStream(nc, { ackWaitMs: RESULTS_ACK_WAIT_MS, replicas });
  const kv = await openWorkersBucket(nc, replicas);
  metrics.slotsTotal.set(slots);
  if (limits.memoryLimitBytes !== undefined) metrics.memoryLimit.set(limits.memoryLimitBytes);

  // Near its memory limit, the worker takes no new task until it is back under (see underPressure).
  let pressure = false;
  const thresholds = {
    high: (opts.memoryHighPercent ?? 85) / 100,
    low: ((opts.memoryHighPercent ?? 85) - 10) / 100,
  };
  const watchMemory = () => {
    const { workingSetBytes: ws, limitBytes } = limits.memoryNow();
    if (ws !== undefined) metrics.memoryWorkingSet.set(ws);
    if (limitBytes !== undefined) metrics.memoryLimit.set(limitBytes);
    const now = underPressure(pressure, ws, limitBytes, thresholds);
    if (now === pressure) return;
    pressure = now;
    metrics.memoryPressure.set(now ? 1 : 0);
    if (now) metrics.memoryPauses.inc();
    console.warn(
      `browser worker ${workerId}: working set ${ws} of ${limitBytes} bytes: ${now ? "taking no new task" : "taking tasks again"}`,
    );
    void publishState(busyNow);
  };
  const memoryTimer = setInterval(watchMemory, 1000);
  memoryTimer.unref();

  const publishState = (busy: number) =>
    putWorkerState(kv, {
      workerId,
      slots,
      busy,
      sessions: sessions.count(),
      draining,
      ...(pressure ? { memoryPressure: true } : {}),
      updatedAt: Date.now(),
    }).catch(() => {});
  const sessions: SessionHost = new SessionHost(nc, workerId, egress, chromium, metrics, () => {
    metrics.sessionsOpen.set(sessions.count());
    void publishState(busyNow);
    // A session holds its slot: that slot needs no ready context any more.
    refill(false);
  });

  // Pages of one job share a context on this worker (cache, cookies); a long job gets a new one now and then.
  const jobContexts = new JobContexts(newTaskContext, { idleMs: 15_000, maxPages: 250 });
  const hooks: ScrapeHooks = {
    onFormat: (format, ms, ok) =>
      metrics.formatDuration.observe({ format, outcome: ok ? "ok" : "error" }, ms / 1000),
  };
  const scrapeContext = warm
    ? warmOrFreshContext(warm, (origin, fits) => {
        metrics.contexts.inc({ origin });
        if (fits) used = true;
      })
    : (b: Browser, req: ScrapeRequest) => {
        metrics.contexts.inc({ origin: "made" });
        return freshContext(b, req);
      };
  // Each task holds the browser it started on until it ends, so a recycled browser closes only after it.
  const withBrowser = async <R>(run: (browser: Browser) => Promise<R>): Promise<R> => {
    const lease = await chromium.lease();
    try {
      return await run(lease.browser);
    } finally {
      lease.release();
    }
  };
  // The task's way out (its egress proxy, if any); a proxy that cannot be used is the task's answer (a job's
  // page has no inbox: `refused` publishes it, so the job hears of it now, not after its page timeout).
  const withEgress = async (
    req: ScrapeRequest,
    run: (route: EgressRoute) => Promise<TaskReply>,
    refused?: (reply: TaskReply) => Promise<void>,
  ) => {
    let route: EgressRoute;
    try {
      route = await egress.open(req);
    } catch (err) {
      const reply = { ok: false as const, error: failureOf(err) };
      await refused?.(reply).catch(() => {});
      return reply;
    }
    try {
      return await run(route);
    } finally {
      await route.release();
    }
  };
  const handlers: TaskHandlers = {
    session_open: (task) => sessions.open(task),
    scrape: (task) =>
      withEgress(task.request, (route) =>
        withBrowser(async (b) =>
          withSeenAs(
            await runScrape(
              b,
              route.guard,
              task.request,
              hooks,
              // A profile's state, or an egress proxy, goes into a context made for it, never a pre-made one.
              task.profileState === undefined && route.server === undefined
                ? scrapeContext
                : (br, req) =>
                    freshContext(br, req, {
                      ...(task.profileState ? { profileState: task.profileState } : {}),
                      ...(route.server ? { egress: route.server } : {}),
                    }),
            ),
            task.request,
            route,
          ),
        ),
      ),
    page: (task) =>
      withEgress(
        task.request,
        (route) => withBrowser((b) => runPageTask(nc, b, route, task, hooks, jobContexts)),
        (reply) => publishRefusedPage(nc, task, reply),
      ),
    map: (task) => withBrowser((b) => runMapTask(b, proxy, task)),
    fetch: (task) => runFetchTask(proxy, task),
  };
  const loops: SlotLoops = startSlotLoops<BrowserTask, AnyReply>(nc, {
    slots,
    ackWaitMs: opts.ackWaitMs,
    paused: () => pressure,
    maxPayload: nc.info?.max_payload ?? 1024 * 1024,
    admit: admitTasks(metrics, (value, reply) => publishRefusedPage(nc, value, reply)),
    deadlineOf: (t) => t.deadline,
    onExpired: (t) => metrics.tasks.inc({ kind: t.kind, outcome: "expired" }),
    onBusy: (busy) => {
      // A slot that came free gets a ready context (a task that just took a slot takes one, no need to act).
      const freed = busy < busyNow;
      busyNow = busy;
      if (freed) refill();
      metrics.slotsBusy.set(busy);
      void publishState(busy);
    },
    tooLarge: (_t, bytes) => ({
      ok: false,
      error: {
        code: "result_too_large",
        message: `the result is ${bytes} bytes, more than the bus carries; ask for fewer or smaller formats (e.g. no fullPage screenshot)`,
        status: 502,
      },
    }),
    handle: async (task) => {
      const end = metrics.taskDuration.startTimer({ kind: task.kind });
      const reply = await dispatchTask(handlers, task);
      end();
      metrics.tasks.inc({ kind: task.kind, outcome: reply.ok ? "ok" : reply.error.code });
      return reply;
    },
    // A session keeps its slot until it ends.
    holdSlot: (task, reply) =>
      task.kind === "session_open" && reply.ok ? sessions.held(task.sessionId) : undefined,
  });
  await publishState(0);
  refill(true);
  const heartbeat = setInterval(() => void publishState(loops.busy()), 5000);
  // The operator drains a pod before a scale-down removes it: no new tasks, held ones and sessions go on.
  const drainSub = listenForDrain(nc, workerId, async () => {
    draining = true;
    warm?.drop();
    await publishState(loops.busy());
    void loops.drain();
  });

  const probes = await serveProbes({
    port: opts.metricsPort,
    registry: metrics.registry,
    health: () => (draining ? { ok: false, why: "draining" } : { ok: true }),
  });
  const metricsUrl = probes?.metricsUrl;

  return {
    workerId,
    slots: plan,
    metrics,
    metricsUrl,
    chromium,
    ...(warm ? { warm } : {}),
    async stop() {
      draining = true;
      clearInterval(heartbeat);
      clearInterval(memoryTimer);
      drainSub.unsubscribe();
      await publishState(loops.busy());
      await Promise.all([loops.drain(), sessions.closeAll("worker_stopping")]);
      await jobContexts.closeAll();
      await warm?.closeAll();
      await kv.delete(workerId).catch(() => {});
      await chromium.close();
      await egress.close();
      await proxy.close();
      await nc.drain().catch(() => {});
      await probes?.close();
    },
  };
}
