import { UsageRecorder } from "@browserfleet/billing";
import {
  connectBus,
  ensureResultsStream,
  ensureTaskQueue,
  JOBS_CONSUMER,
  JOBS_WAKE_SUBJECT,
  RESULTS_ACK_WAIT_MS,
  RESULTS_STREAM,
  taskBacklog,
} from "@browserfleet/bus";
import { completeChanges, PageSnapshots } from "@browserfleet/changes";
import type { Config } from "@browserfleet/config";
import type { PageResult, ScrapeResponse } from "@browserfleet/contracts";
import { connectDb, migrateDb } from "@browserfleet/db";
import { chooseEgress, poolOf } from "@browserfleet/egress";
import { completeJson, jsonDepsFrom } from "@browserfleet/extract";
import {
  deleteExpiredJobs,
  type JobRow,
  jobsByStatus,
  pageUrlOf,
  recordPageResult,
} from "@browserfleet/job-store";
import { pageQuote } from "@browserfleet/pricing";
import { serveProbes } from "@browserfleet/probes";
import { profileStoreFrom } from "@browserfleet/profiles";
import { budgetDeps, fitAnswer, isCacheable, RenderCache, renderOwner } from "@browserfleet/render-cache";
import { parseAllowList } from "@browserfleet/ssrf";
import { Deliverer, deleteDoneEvents, eventsByStatus, webhookSecretsFrom } from "@browserfleet/webhooks";
import { jetstreamManager } from "@nats-io/jetstream";
import { Dispatcher } from "./dispatcher.ts";
import { nextPages } from "./frontier.ts";
import { JobRequests, pageRequestOf } from "./job-requests.ts";
import { createJobsMetrics, RateWindow } from "./metrics.ts";
import { consumeResults } from "./results.ts";
import { Rounds } from "./rounds.ts";

export { pageRequest } from "./dispatcher.ts";
export { pickDispatches } from "./schedule.ts";

export interface JobsOptions {
  config: Config;
  natsUrl: string;
  databaseUrl: string;
  /** Serve /metrics and /healthz here (0: any free port; undefined: no server). */
  metricsPort?: number;
  log?: (msg: string) => void;
}

export interface JobsProgram {
  metricsUrl?: string;
  /** Run one dispatch round and look at the webhook outbox now (tests use it to avoid waiting for the poll). */
  poke(): void;
  stop(): Promise<void>;
}

/**
 * What a page that came out costs: the formats that came out, at the page price (cached ones at the cache
 * price). A format left out of a page cut to maxTokens came out too, when its cursor can read it.
 */
const formatsChargeOf = (r: ScrapeResponse) =>
  pageQuote(
    r.metadata.formats.filter(
      (f) =>
        f in r.data ||
        (r.metadata.truncated?.cursor !== undefined && r.metadata.truncated.omitted.includes(f)),
    ),
    r.metadata.cached ?? [],
  ).micros;

/**
 * The jobs program: drives batch and crawl jobs. State lives in Postgres; page tasks go to the browser
 * work queue; page results come back on the results stream and are recorded exactly once.
 */
export async function startJobs(opts: JobsOptions): Promise<JobsProgram> {
  const { config } = opts;
  const egress = { pools: config.EGRESS_PROXIES, callerProxies: config.CALLER_PROXIES === "on" };
  // The pool a job's pages go out through; none when the pool is no longer declared (the worker refuses it).
  const poolOfJob = (request: Parameters<typeof chooseEgress>[0]) => {
    try {
      return poolOf(chooseEgress(request, egress));
    } catch {
      return undefined;
    }
  };
  const log = opts.log ?? ((m: string) => console.error(`[jobs] ${m}`));
  await migrateDb(opts.databaseUrl);
  const db = connectDb(opts.databaseUrl, { name: "jobs", max: 6 });
  const nc = await connectBus({ servers: opts.natsUrl, name: "jobs" });
  const replicas = config.NATS_STREAM_REPLICAS;
  await ensureTaskQueue(nc, {
    maxPending: config.TASK_QUEUE_MAX,
    ackWaitMs: config.TASK_ACK_WAIT_MS,
    replicas,
  });
  await ensureResultsStream(nc, { ackWaitMs: RESULTS_ACK_WAIT_MS, replicas });
  const metrics = createJobsMetrics();
  const usage = new UsageRecorder(db.db);
  const crawlRate = new RateWindow(30_000);

  const ended = (job: JobRow, status: string) => {
    metrics.jobsEnded.inc({ kind: job.kind, status });
    usage.record({
      accountId: job.accountId,
      route: job.kind,
      status: 200,
      priceMicros: job.chargedMicros,
      requestId: job.requestId ?? job.id,
      ms: Date.now() - job.createdAt.getTime(),
    });
  };

  const jobRequests = new JobRequests(db);
  const snapshots = new PageSnapshots(db.db);
  const json = jsonDepsFrom(config);
  const cache = new RenderCache({
    database: db,
    retentionMs: config.CACHE_RETENTION_MS,
    maxEntryBytes: config.CACHE_MAX_ENTRY_BYTES,
    registry: metrics.registry,
    onError: (err, op) => log(`render cache ${op} failed: ${(err as Error).message}`),
  });
  const record = async (result: PageResult) => {
    const facts = await jobRequests.of(result.jobId);
    // The json format is made here from the page's markdown (see browserRequest), before the page is charged.
    const whole: PageResult =
      facts && result.reply.ok && facts.request.formats?.includes("json") && facts.request.json
        ? {
            ...result,
            reply: {
              ok: true,
              result: await completeJson(pageRequestOf(facts.request, ""), result.reply.result, json),
            },
          }
        : result;
    // The changes format: the page against the account's previous render of its URL.
    const compared: PageResult =
      facts && result.reply.ok && whole.reply.ok && facts.request.formats?.includes("changes")
        ? {
            ...whole,
            reply: {
              ok: true,
              result: await completeChanges(
                { formats: facts.request.formats, url: await pageUrlOf(db.db, result.pageId) },
                result.reply.result.data.markdown,
                whole.reply.result,
                snapshots,
                facts.accountId,
              ),
            },
          }
        : whole;
    // Counted, and cut to the job's per-page maxTokens (the whole page kept for its cursor).
    const r: PageResult =
      facts && compared.reply.ok
        ? {
            ...compared,
            reply: {
              ok: true,
              result: await fitAnswer(
                budgetDeps({ cache, config }),
                structuredClone(compared.reply.result),
                facts.request.maxTokens,
                renderOwner.account(facts.accountId),
              ),
            },
          }
        : whole;
    const done = await recordPageResult(db.db, r, {
      // A page that came out through an egress pool adds the pool's price (when any format was rendered).
      chargeOf: (result) => {
        const formats = formatsChargeOf(result);
        if (formats === 0 || !facts) return formats;
        const pool = poolOfJob(facts.request);
        const rendered = result.metadata.formats.some((f) => !result.metadata.cached?.includes(f));
        return formats + (rendered ? (pool?.priceMicros ?? 0) : 0);
      },
      retentionMs: config.JOB_RETENTION_MS,
      discover: (job, page, links) => {
        const rules = dispatcher.rulesFor(job);
        return rules ? nextPages(rules, config.CRAWL_USER_AGENT, page, links) : [];
      },
    });
    if (!done.recorded || !done.job) return;
    // The page's event (and the job's end) just committed to the outbox: send it before anything else.
    deliverer.poke();
    // Fresh renders fill the cache, so a later scrape or job with maxAge can use them.
    if (
      facts &&
      done.page &&
      whole.reply.ok &&
      r.reply.ok &&
      whole.reply.result.success &&
      !whole.reply.result.metadata.cached?.length
    ) {
      const req = pageRequestOf(facts.request, done.page.url);
      // A page cut to maxTokens was recorded in part: the cache gets the whole page, sent as it is.
      const cut = r.reply.result.metadata.truncated !== undefined;
      if (isCacheable(req))
        await cache.store(
          req,
          whole.reply.result,
          config.CACHE_SCOPE === "account" ? facts.accountId : undefined,
          cut ? undefined : done.page.id,
        );
    }
    const outcome = done.page?.status === "completed" ? "completed" : "failed";
    metrics.pages.inc({ kind: done.job.kind, outcome });
    if (done.job.kind === "crawl") crawlRate.hit();
    if (done.ended) ended(done.job, done.ended);
    wake();
  };

  // Webhook events: queued in the outbox by the transactions that make them, sent from here.
  const webhookSecrets = webhookSecretsFrom(config, db.db);
  const deliverer = new Deliverer({
    db: db.db,
    signing: (accountId) => webhookSecrets.signing(accountId),
    allow: parseAllowList(config.FLEET_ALLOW_PRIVATE),
    concurrency: config.WEBHOOK_CONCURRENCY,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    pollMs: config.WEBHOOK_POLL_MS,
    retry: {
      retryForMs: config.WEBHOOK_RETRY_FOR_MS,
      baseDelayMs: config.WEBHOOK_RETRY_BASE_MS,
      maxDelayMs: 3_600_000,
      maxRetryAfterMs: 6 * 3_600_000,
    },
    log,
    onAttempt: (event, _outcome, next) => {
      metrics.webhookAttempts.inc({ event: event.type, outcome: next.kind });
      if (next.kind === "delivered")
        metrics.webhookLatency.observe(
          { event: event.type },
          (Date.now() - event.createdAt.getTime()) / 1000,
        );
    },
  });

  const dispatcher = new Dispatcher({
    config,
    db,
    nc,
    metrics,
    log,
    cache,
    profiles: profileStoreFrom(config, db.db),
    cachedPage: (job, pageId, result, links) =>
      record({ jobId: job.id, pageId, taskId: "", reply: { ok: true, result }, ...(links ? { links } : {}) }),
    failPage: (job, pageId, code, message) =>
      record({ jobId: job.id, pageId, taskId: "", reply: { ok: false, error: { code, message } } }),
  });

  // Dispatch rounds: at once when woken (a job was created, a page finished), else after JOBS_POLL_MS.
  const rounds = new Rounds(
    async () => {
      await dispatcher.round();
    },
    config.JOBS_POLL_MS,
    log,
  );
  let stopping = false;
  const wake = () => rounds.wake();
  // The api wakes this program when it starts or cancels a job; a cancel queues a webhook event.
  const wakeSub = nc.subscribe(JOBS_WAKE_SUBJECT, {
    callback: () => {
      wake();
      deliverer.poke();
    },
  });
  const results = consumeResults(nc, record, log, (problem) => {
    metrics.malformedResults.inc();
    log(problem);
  });

  const sweep = setInterval(() => {
    // drizzle's "Failed query" says which statement; its cause says why.
    const why = (err: unknown) => {
      const e = err as Error & { cause?: Error };
      return e.cause ? `${e.message}: ${e.cause.message}` : e.message;
    };
    deleteExpiredJobs(db.db).catch((err) => log(`sweep failed: ${why(err)}`));
    deleteDoneEvents(db.db, new Date(Date.now() - config.WEBHOOK_RETENTION_MS)).catch((err) =>
      log(`webhook sweep failed: ${why(err)}`),
    );
  }, 60_000);
  sweep.unref();

  const probes = await serveProbes({
    port: opts.metricsPort,
    registry: metrics.registry,
    health: () => (stopping ? { ok: false, why: "stopping" } : { ok: true }),
    beforeMetrics: () => refreshGauges(),
  });
  const metricsUrl = probes?.metricsUrl;

  async function refreshGauges(): Promise<void> {
    const counts = await jobsByStatus(db.db);
    for (const s of ["queued", "running", "completed", "failed", "cancelled"])
      metrics.jobs.set({ status: s }, counts[s] ?? 0);
    const tasks = await taskBacklog(nc);
    metrics.queueDepth.set({ stream: "FLEET_TASKS" }, tasks.pending + tasks.ackPending);
    const jsm = await jetstreamManager(nc);
    const info = await jsm.consumers.info(RESULTS_STREAM, JOBS_CONSUMER);
    metrics.queueDepth.set({ stream: RESULTS_STREAM }, info.num_pending + info.num_ack_pending);
    metrics.crawlRate.set(crawlRate.perSecond());
    const events = await eventsByStatus(db.db);
    for (const state of ["pending", "delivered", "failed", "stopped"])
      metrics.webhookEvents.set({ state }, events[state] ?? 0);
  }

  // Before the first round, so a page claimed by a killed predecessor is queued before anything new.
  await dispatcher
    .resendClaimed()
    .catch((err) => log(`could not send claimed pages again: ${(err as Error).message}`));
  wake();
  deliverer.start();
  return {
    metricsUrl,
    poke: () => {
      wake();
      deliverer.poke();
    },
    async stop() {
      stopping = true;
      const roundsStopped = rounds.stop();
      await deliverer.stop();
      clearInterval(sweep);
      wakeSub.unsubscribe();
      await results.stop();
      await roundsStopped;
      await usage.close();
      await probes?.close();
      await nc.drain().catch(() => {});
      await db.close();
    },
  };
}
