import { randomUUID } from "node:crypto";
import {
  encodeJson,
  publishDurable,
  runTask,
  TASK_DUPLICATE_WINDOW_MS,
  TASK_SUBJECT,
} from "@browserfleet/bus";
import type { Config } from "@browserfleet/config";
import type {
  CrawlRequest,
  FetchTask,
  PageTask,
  ScrapeRequest,
  ScrapeResponse,
} from "@browserfleet/contracts";
import type { Database } from "@browserfleet/db";
import { browserRequest } from "@browserfleet/extract";
import {
  activeJobs,
  claimedPagesSince,
  claimPage,
  endJobIn,
  inFlightPages,
  type JobRow,
  lockJob,
  markJobRunning,
  queuedPages,
  requeuePage,
  setRobots,
  stalePages,
  unclaimPage,
} from "@browserfleet/job-store";
import type { ProfileStore } from "@browserfleet/profiles";
import { isCacheable, type RenderCache, responseFromCache } from "@browserfleet/render-cache";
import { linksInMarkdown } from "@browserfleet/site";
import type { NatsConnection } from "@nats-io/transport-node";
import { sql } from "drizzle-orm";
import { type CrawlRules, crawlRules } from "./frontier.ts";
import { type JobRequest, pageRequestOf } from "./job-requests.ts";
import type { JobsMetrics } from "./metrics.ts";
import { type JobQueue, type LastStarts, pickDispatches } from "./schedule.ts";

/** Links a crawl page reports back at most (a huge link farm must not blow up one message). */
export const MAX_LINKS_PER_PAGE = 2000;
/** Serialises dispatch rounds across jobs replicas (pg advisory lock key). */
const DISPATCH_LOCK = 0x6a6f6273;
const ROBOTS_MAX_BYTES = 512 * 1024;
/**
 * How often a round also looks for lost pages. A page is lost only lostAfterMs after its
 * dispatch, so looking once a second delays no retry that matters, and a busy crawl (a round after every
 * result) no longer runs that query for every page.
 */
export const RETRY_LOST_EVERY_MS = 1000;
/** Claims this close to the end of the duplicate window are left to the lost-page sweep. */
const RESEND_MARGIN_MS = 30_000;

export interface DispatcherDeps {
  config: Config;
  db: Database;
  nc: NatsConnection;
  metrics: JobsMetrics;
  /** Record a page as failed without a browser (robots.txt refused it, or it ran out of attempts). */
  failPage(job: JobRow, pageId: number, code: string, message: string): Promise<void>;
  /** Saved browser states, for jobs that name a profile; absent, such jobs' pages render without it. */
  profiles?: ProfileStore;
  /** The render cache, for jobs that ask for maxAge; absent, every page renders. */
  cache?: RenderCache;
  /** Record a page served wholly from the cache, with the links a crawl follows from it. */
  cachedPage(job: JobRow, pageId: number, result: ScrapeResponse, links?: string[]): Promise<void>;
  log(msg: string): void;
  /** The clock the once-a-second look for lost pages reads (Date.now; a test steps its own). */
  clock?: () => number;
}

/** The fields of a batch or crawl request that describe one page's scrape. */
export function pageRequest(job: JobRow, url: string): ScrapeRequest {
  return pageRequestOf(job.request as JobRequest, url);
}

export class Dispatcher {
  readonly #deps: DispatcherDeps;
  readonly #lastStarts: LastStarts = new Map();
  readonly #rules = new Map<string, CrawlRules>();
  readonly #robotsPending = new Set<string>();
  /** Each job's profile state, opened once (see #profileOf). */
  readonly #profiles = new Map<string, Promise<string | undefined | null>>();
  readonly #robotsFailures = new Map<string, number>();
  #nextRetryLostAt = 0;

  constructor(deps: DispatcherDeps) {
    this.#deps = deps;
  }

  rulesFor(job: JobRow): CrawlRules | undefined {
    if (job.kind !== "crawl" || job.robotsTxt === null) return undefined;
    let r = this.#rules.get(job.id);
    if (!r) {
      r = crawlRules(job);
      this.#rules.set(job.id, r);
      if (this.#rules.size > 1000) this.#rules.delete(this.#rules.keys().next().value as string);
    }
    return r;
  }

  /** One round: end overdue jobs, retry lost pages (at most once a second), then send what the limits allow. */
  async round(): Promise<number> {
    const { db } = this.#deps;
    return db.db.transaction(async (tx) => {
      const [lock] = await tx.execute<{ ok: boolean }>(
        sql`select pg_try_advisory_xact_lock(${DISPATCH_LOCK}) as ok`,
      );
      if (!lock?.ok) return 0;
      const now = (this.#deps.clock ?? Date.now)();
      if (now >= this.#nextRetryLostAt) {
        this.#nextRetryLostAt = now + RETRY_LOST_EVERY_MS;
        await this.#retryLost();
      }
      const jobs = await activeJobs(db.db);
      const live: JobRow[] = [];
      for (const job of jobs) {
        if (job.deadlineAt.getTime() < Date.now()) await this.#endOverdue(job);
        else live.push(job);
      }
      return this.#dispatch(live);
    });
  }

  async #endOverdue(job: JobRow): Promise<void> {
    const { db, config } = this.#deps;
    await db.db.transaction(async (tx) => {
      const locked = await lockJob(tx, job.id);
      if (!locked) return;
      await endJobIn(tx, locked, locked.completed > 0 ? "completed" : "failed", config.JOB_RETENTION_MS, {
        code: "deadline",
        message: `the job ran longer than ${config.JOB_MAX_MS} ms; it ended with the pages it had`,
      });
    });
    this.#deps.metrics.jobsEnded.inc({ kind: job.kind, status: "deadline" });
  }

  async #retryLost(): Promise<void> {
    const { db, config } = this.#deps;
    const before = new Date(Date.now() - lostAfterMs(config));
    for (const page of await stalePages(db.db, before)) {
      if (page.attempts < config.JOB_PAGE_ATTEMPTS) {
        await requeuePage(db.db, page.id, page.taskId);
        continue;
      }
      const [job] = await activeJobs(db.db).then((all) => all.filter((j) => j.id === page.jobId));
      if (job)
        await this.#deps.failPage(
          job,
          page.id,
          "timeout",
          `no browser finished this page in ${page.attempts} attempts of ${config.JOB_PAGE_TIMEOUT_MS} ms`,
        );
    }
  }

  async #dispatch(jobs: JobRow[]): Promise<number> {
    const { db, config } = this.#deps;
    if (jobs.length === 0) return 0;
    const flying = await inFlightPages(
      db.db,
      jobs.map((j) => j.id),
    );
    const queues: JobQueue[] = [];
    const urls = new Map<number, string>();
    const byId = new Map(jobs.map((j) => [j.id, j]));
    const hostInFlight = new Map<string, number>();
    for (const f of flying) {
      const h = hostOf(f.url);
      hostInFlight.set(h, (hostInFlight.get(h) ?? 0) + 1);
    }
    for (const job of jobs) {
      if (job.kind === "crawl" && job.robotsTxt === null) {
        this.#fetchRobots(job);
        continue;
      }
      const mine = flying.filter((f) => f.jobId === job.id);
      const room = config.JOB_PAGE_CONCURRENCY - mine.length;
      if (room <= 0) continue;
      const candidates = (await queuedPages(db.db, job.id, room * 4)).map((p) => {
        urls.set(p.id, p.url);
        return { pageId: p.id, host: hostOf(p.url) };
      });
      if (candidates.length === 0) continue;
      const robotsDelay = this.rulesFor(job)?.robots.crawlDelayMs(config.CRAWL_USER_AGENT);
      queues.push({
        jobId: job.id,
        inFlight: mine.length,
        candidates,
        hostDelayMs: Math.max(
          config.CRAWL_HOST_DELAY_MS,
          Math.min(robotsDelay ?? 0, config.CRAWL_MAX_ROBOTS_DELAY_MS),
        ),
      });
    }
    const picks = pickDispatches(
      queues,
      {
        jobConcurrency: config.JOB_PAGE_CONCURRENCY,
        hostConcurrency: config.CRAWL_HOST_CONCURRENCY,
        budget: 200,
      },
      this.#lastStarts,
      Date.now(),
      hostInFlight,
    );
    let sent = 0;
    const started = new Set<string>();
    for (const pick of picks) {
      const job = byId.get(pick.jobId) as JobRow;
      const url = urls.get(pick.pageId) as string;
      const rules = this.rulesFor(job);
      if (rules && !rules.robots.isAllowed(url, config.CRAWL_USER_AGENT)) {
        await this.#deps.failPage(
          job,
          pick.pageId,
          "robots_disallowed",
          `robots.txt does not allow ${config.CRAWL_USER_AGENT} to fetch ${url}`,
        );
        continue;
      }
      if (await this.#fromCache(job, pick.pageId, url)) continue;
      const profile = await this.#profileOf(job);
      if (profile === null) {
        await this.#deps.failPage(
          job,
          pick.pageId,
          "profile_not_found",
          `the profile ${(job.request as { profile?: { name: string } }).profile?.name} was deleted after the job started`,
        );
        continue;
      }
      const outcome = await this.#send(job, pick.pageId, url, profile);
      // The bus took no task for as long as a publish waits: the rest of the round is left to the next.
      if (outcome === "unqueued") break;
      if (outcome === "sent") {
        sent++;
        if (!started.has(job.id) && job.status === "queued") {
          started.add(job.id);
          await markJobRunning(db.db, job.id);
        }
      }
    }
    return sent;
  }

  /**
   * With maxAge, a page whose every format is in the cache is recorded from it (at the cached price)
   * instead of going to a browser. A crawl takes its links from the cached links or markdown, so it
   * needs one of them among its formats.
   */
  async #fromCache(job: JobRow, pageId: number, url: string): Promise<boolean> {
    const { cache, config } = this.#deps;
    const maxAge = (job.request as JobRequest).maxAge;
    if (!cache || maxAge === undefined) return false;
    const req = pageRequest(job, url);
    const formats = [...new Set(req.formats)];
    if (!isCacheable(req)) return false;
    if (job.kind === "crawl" && !formats.some((f) => f === "markdown" || f === "links")) return false;
    const hit = await cache.lookup(req, maxAge, config.CACHE_SCOPE === "account" ? job.accountId : undefined);
    if (hit.formats.length < formats.length) return false;
    const result = responseFromCache(req, hit);
    await this.#deps.cachedPage(
      job,
      pageId,
      result,
      job.kind === "crawl" ? linksOfCached(hit.data, url) : undefined,
    );
    this.#deps.metrics.cachedPages.inc({ kind: job.kind });
    return true;
  }

  /**
   * The saved browser state of the job's profile, opened once per job (a job's pages all start from the
   * state it had when the first was sent); undefined when the job names none, null when it is gone.
   */
  #profileOf(job: JobRow): Promise<string | undefined | null> {
    const name = (job.request as { profile?: { name: string } }).profile?.name;
    if (name === undefined || !this.#deps.profiles) return Promise.resolve(undefined);
    let state = this.#profiles.get(job.id);
    if (!state) {
      state = this.#deps.profiles.load(job.accountId, name).then((p) => p?.state ?? null);
      // A failed read is tried again on the next round.
      state.catch(() => this.#profiles.delete(job.id));
      this.#profiles.set(job.id, state);
      if (this.#profiles.size > 1000) this.#profiles.delete(this.#profiles.keys().next().value as string);
    }
    return state;
  }

  /** "taken": another round claimed the page first; "unqueued": the bus did not take the task. */
  async #send(
    job: JobRow,
    pageId: number,
    url: string,
    profileState?: string,
  ): Promise<"sent" | "taken" | "unqueued"> {
    const { db, config, nc } = this.#deps;
    const taskId = randomUUID();
    if (!(await claimPage(db.db, pageId, taskId))) return "taken";
    const task = this.#task(job, pageId, url, taskId, Date.now() + config.JOB_PAGE_TIMEOUT_MS, profileState);
    try {
      await publishDurable(nc, TASK_SUBJECT, encodeJson(task), { msgID: taskId });
    } catch (err) {
      await unclaimPage(db.db, pageId, taskId);
      this.#deps.log(`could not queue page ${pageId} of ${job.id}: ${(err as Error).message}`);
      return "unqueued";
    }
    this.#deps.metrics.dispatched.inc({ kind: job.kind });
    return "sent";
  }

  #task(
    job: JobRow,
    pageId: number,
    url: string,
    taskId: string,
    deadline: number,
    profileState?: string,
  ): PageTask {
    return {
      kind: "page",
      taskId,
      requestId: job.requestId ?? job.id,
      deadline,
      jobId: job.id,
      pageId,
      request: browserRequest(pageRequest(job, url)),
      ...(profileState ? { profileState } : {}),
      ...(job.kind === "crawl" ? { discoverLinks: MAX_LINKS_PER_PAGE } : {}),
    };
  }

  /**
   * A page is claimed before its task is published, so a jobs program killed between the two leaves a
   * page that waits for the lost-page sweep (JOB_PAGE_TIMEOUT_MS + 30 s). At start, every page claimed
   * within the task stream's duplicate window is published again under its task id: the stream drops
   * the copy of a task it already has (queued, running or done), and queues the ones never sent.
   */
  async resendClaimed(): Promise<number> {
    const { db, config, nc } = this.#deps;
    // Older claims are the lost-page sweep's, or too old for the stream to tell a copy from a first send.
    const since = new Date(
      Date.now() - Math.min(lostAfterMs(config), TASK_DUPLICATE_WINDOW_MS - RESEND_MARGIN_MS),
    );
    const claimed = await claimedPagesSince(db.db, since);
    if (claimed.length === 0) return 0;
    const jobs = new Map((await activeJobs(db.db)).map((j) => [j.id, j]));
    let resent = 0;
    for (const page of claimed) {
      const job = jobs.get(page.jobId);
      if (!job || !page.taskId || !page.dispatchedAt) continue;
      const deadline = page.dispatchedAt.getTime() + config.JOB_PAGE_TIMEOUT_MS;
      const profile = await this.#profileOf(job);
      if (profile === null) continue;
      const task = this.#task(job, page.id, page.url, page.taskId, deadline, profile);
      const ack = await publishDurable(nc, TASK_SUBJECT, encodeJson(task), { msgID: page.taskId });
      if (!ack.duplicate) resent++;
    }
    if (resent > 0)
      this.#deps.log(`sent again ${resent} page task(s) claimed before a restart but never queued`);
    return resent;
  }

  /** robots.txt is fetched by a browser worker (through its SSRF guard), once per crawl job. */
  #fetchRobots(job: JobRow): void {
    if (this.#robotsPending.has(job.id)) return;
    this.#robotsPending.add(job.id);
    const { config, nc, db } = this.#deps;
    const url = `${new URL((job.request as CrawlRequest).url).origin}/robots.txt`;
    const task: FetchTask = {
      kind: "fetch",
      taskId: randomUUID(),
      requestId: job.requestId ?? job.id,
      deadline: Date.now() + 20_000,
      url,
      maxBytes: ROBOTS_MAX_BYTES,
      userAgent: config.CRAWL_USER_AGENT,
    };
    void runTask(nc, task, 25_000)
      .then(async (reply) => {
        // Only a 200 is a robots.txt; 4xx means none (everything allowed). A 5xx or a failure is also
        // read as "none": the crawl goes on, bounded by its limit, rather than failing outright.
        const body = reply.ok && reply.status === 200 ? reply.body : "";
        await setRobots(db.db, job.id, body);
      })
      .catch(async (err) => {
        // No worker answered (none running, or the bus is down): ask again next round, a few times.
        const failures = (this.#robotsFailures.get(job.id) ?? 0) + 1;
        this.#robotsFailures.set(job.id, failures);
        this.#deps.log(`robots.txt of ${job.id} (${url}), attempt ${failures}: ${(err as Error).message}`);
        if (failures >= 3) await setRobots(db.db, job.id, "").catch(() => {});
      })
      .finally(() => this.#robotsPending.delete(job.id));
  }
}

/** A page dispatched this long ago without a result is lost: its task cannot be running any more. */
const lostAfterMs = (config: Config) => config.JOB_PAGE_TIMEOUT_MS + 30_000;

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}

/** A cached page's links: its links format when cached, else the targets written in its markdown. */
function linksOfCached(data: ScrapeResponse["data"], base: string): string[] {
  const links = data.links;
  if (Array.isArray(links))
    return links
      .map((l) => (typeof l === "string" ? l : (l as { url?: string }).url))
      .filter((u): u is string => typeof u === "string")
      .slice(0, MAX_LINKS_PER_PAGE);
  return typeof data.markdown === "string" ? linksInMarkdown(data.markdown, base, MAX_LINKS_PER_PAGE) : [];
}
