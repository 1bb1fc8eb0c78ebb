import { randomUUID } from "node:crypto";
import { MalformedReplyError, QueueFullError, runTask, TaskTimeoutError } from "@browserfleet/bus";
import {
  type BrowserTask,
  ERROR_STATUS,
  type ErrorCode,
  type ReplyOf,
  type ScrapeRequest,
  type ScrapeResponse,
  type ScrapeTask,
  scrapeRequest,
  type TaskReply,
} from "@browserfleet/contracts";
import { browserRequest, completeJson, jsonDepsFrom, schemaProblem } from "@browserfleet/extract";
import { priceOf } from "@browserfleet/pricing";
import { type CacheHit, isCacheable, responseFromCache } from "@browserfleet/render-cache";
import { SsrfError } from "@browserfleet/ssrf";
import type { Router } from "express";
import { type Caller, payFor, restCaller } from "../billing/payment.ts";
import { malformedReply } from "../bus-replies.ts";
import type { ApiContext } from "../context.ts";
import { ApiError } from "../errors.ts";
import { parseBody } from "../validate.ts";

/** Time the browser gets beyond the page's own wait budget, to render the formats. */
const RENDER_ALLOWANCE_MS = 30_000;

/** A fast 400 for a URL the guard refuses, before any quote or payment (the worker's proxy checks every hop again). */
export async function precheckUrl(ctx: ApiContext, url: string | undefined, field = "url"): Promise<void> {
  if (!url) return;
  try {
    await ctx.guard.check(url);
  } catch (err) {
    if (err instanceof SsrfError)
      throw new ApiError(err.code, err.message, [{ field, message: err.message }]);
    throw err;
  }
}

/**
 * Send one task to the browser queue and wait for its reply, with the answers every synchronous route
 * gives: 503 when no worker runs or the bus is down, 429 when the queue is full, 504 when late, 500 when
 * the reply is not what the task table declares for the task's kind.
 */
export async function browserTask<T extends BrowserTask>(
  ctx: ApiContext,
  task: T,
  timeoutMs: number,
  what: string,
): Promise<ReplyOf<T["kind"]>> {
  if (!(await ctx.workers.anyAlive())) {
    throw new ApiError("unavailable", "no browser worker is running; try again shortly", undefined, {
      "Retry-After": "5",
    });
  }
  try {
    return await runTask(ctx.nc, task, timeoutMs);
  } catch (err) {
    if (err instanceof MalformedReplyError) throw malformedReply(ctx.metrics, err.kind, err.message, what);
    if (err instanceof QueueFullError) {
      throw new ApiError(
        "no_capacity",
        "every browser slot is busy and the queue is full; retry after a few seconds",
        undefined,
        { "Retry-After": "5" },
      );
    }
    if (err instanceof TaskTimeoutError)
      throw new ApiError("timeout", `the ${what} did not finish within ${timeoutMs} ms`);
    throw new ApiError("unavailable", `the work queue is unreachable: ${(err as Error).message}`, undefined, {
      "Retry-After": "5",
    });
  }
}

/** json options must say what to extract, with a schema a validator can compile. */
export function checkJsonOptions(json: ScrapeRequest["json"], field = "json"): void {
  if (!json) return;
  if (json.prompt === undefined && json.schema === undefined) {
    const message = "json needs a prompt, a schema, or both";
    throw new ApiError("invalid_request", message, [{ field, message }]);
  }
  const problem = json.schema ? schemaProblem(json.schema) : undefined;
  if (problem)
    throw new ApiError("invalid_request", problem, [{ field: `${field}.schema`, message: problem }]);
}

/** Run one scrape on a browser worker. The caller has already pre-checked the URL (paidScrape does). */
export async function scrape(ctx: ApiContext, req: ScrapeRequest, requestId: string): Promise<TaskReply> {
  const budget = Math.min(ctx.config.SCRAPE_TIMEOUT_MS, (req.wait?.timeout ?? 30_000) + RENDER_ALLOWANCE_MS);
  const task: ScrapeTask = {
    kind: "scrape",
    taskId: randomUUID(),
    requestId,
    deadline: Date.now() + budget,
    request: req,
  };
  return browserTask(ctx, task, budget, "scrape");
}

function chargeFor(result: ScrapeResponse): number {
  const out = result.metadata.formats.filter((f) => f in result.data);
  return priceOf({
    route: "scrape",
    request: { formats: out },
    cachedFormats: result.metadata.cached ?? [],
  }).micros;
}

/** Fold cache hits into a fresh render of the other formats, in the request's format order. */
function merge(req: ScrapeRequest, fresh: ScrapeResponse, hit: CacheHit): ScrapeResponse {
  if (hit.formats.length === 0) return fresh;
  const data: Record<string, unknown> = {};
  for (const f of req.formats) {
    if (f in hit.data) data[f] = hit.data[f];
    else if (f in fresh.data) data[f] = fresh.data[f];
  }
  return {
    success: Object.keys(data).length > 0,
    data,
    errors: fresh.errors,
    metadata: { ...fresh.metadata, formats: req.formats, cached: hit.formats },
  };
}

/**
 * A priced scrape for any caller, REST or MCP: SSRF pre-check, cache look-up, the exact quote, payment,
 * then render whatever the cache did not have. `metadata.ms` is the caller's wall time.
 */
export async function paidScrape(
  ctx: ApiContext,
  req: ScrapeRequest,
  caller: Caller,
): Promise<ScrapeResponse> {
  const started = performance.now();
  checkJsonOptions(req.json);
  await precheckUrl(ctx, req.url);
  const scope = ctx.config.CACHE_SCOPE === "account" ? (caller.auth?.accountId ?? null) : undefined;
  const hit: CacheHit =
    req.maxAge !== undefined && scope !== null
      ? await ctx.cache.lookup(req, req.maxAge, scope)
      : { data: {}, formats: [] };
  const quote = priceOf({ route: "scrape", request: req, cachedFormats: hit.formats });
  const missing = req.formats.filter((f) => !(f in hit.data));
  const end = ctx.metrics.scrapeDuration.startTimer();
  let result: ScrapeResponse;
  try {
    result = await payFor(ctx, caller, {
      route: "scrape",
      request: req,
      quote,
      description: `scrape ${req.url ?? "raw html"} as ${req.formats.join(", ")}`,
      keyOnly: req.formats.includes("json") ? "the json format needs an API key" : undefined,
      holdMs: ctx.config.SCRAPE_TIMEOUT_MS + 60_000,
      final: missing.length === 0,
      work: async () => {
        if (missing.length === 0) {
          const cached = responseFromCache(req, hit);
          return { result: cached, chargeMicros: chargeFor(cached) };
        }
        const wanted = { ...req, formats: missing };
        const reply = await scrape(ctx, browserRequest(wanted), caller.requestId);
        if (!reply.ok) {
          const code = reply.error.code in ERROR_STATUS ? (reply.error.code as ErrorCode) : "render_failed";
          throw new ApiError(code, reply.error.message);
        }
        const fresh = await completeJson(wanted, reply.result, jsonDepsFrom(ctx.config));
        // Awaited (store never throws) so the caller's next call with maxAge finds what it just paid for.
        if (scope !== null && isCacheable(req)) await ctx.cache.store(req, fresh, scope);
        const merged = merge(req, fresh, hit);
        return { result: merged, chargeMicros: chargeFor(merged) };
      },
    });
  } catch (err) {
    end({ outcome: err instanceof ApiError ? err.code : "error" });
    throw err;
  }
  result.metadata.ms = Math.round(performance.now() - started);
  for (const f of req.formats)
    ctx.metrics.formatsRendered.inc({
      format: f,
      outcome: result.metadata.cached?.includes(f) ? "cached" : f in result.data ? "ok" : "error",
    });
  end({ outcome: result.success ? "ok" : "all_formats_failed" });
  return result;
}

export function mountScrape(router: Router, ctx: ApiContext): void {
  router.post("/web/v1/scrape", async (httpReq, res) => {
    const req = parseBody(scrapeRequest, httpReq.body);
    res.json(await paidScrape(ctx, req, restCaller(ctx, httpReq, res)));
  });
}
