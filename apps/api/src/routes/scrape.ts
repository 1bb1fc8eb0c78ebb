import { randomUUID } from "node:crypto";
import { QueueFullError, runTask, TaskTimeoutError } from "@browserfleet/bus";
import {
  ERROR_STATUS,
  type ErrorCode,
  type ScrapeRequest,
  type ScrapeTask,
  scrapeRequest,
  type TaskReply,
} from "@browserfleet/contracts";
import { SsrfError } from "@browserfleet/ssrf";
import type { Router } from "express";
import type { ApiContext } from "../context.ts";
import { ApiError } from "../errors.ts";
import { parseBody } from "../validate.ts";

/** Time the browser gets beyond the page's own wait budget, to render the formats. */
const RENDER_ALLOWANCE_MS = 30_000;

export async function scrape(ctx: ApiContext, req: ScrapeRequest, requestId: string): Promise<TaskReply> {
  if (req.url) {
    try {
      await ctx.guard.check(req.url);
    } catch (err) {
      if (err instanceof SsrfError)
        throw new ApiError(err.code, err.message, [{ field: "url", message: err.message }]);
      throw err;
    }
  }
  if (!(await ctx.workers.anyAlive())) {
    throw new ApiError("unavailable", "no browser worker is running; try again shortly", undefined, {
      "Retry-After": "5",
    });
  }
  const budget = Math.min(ctx.config.SCRAPE_TIMEOUT_MS, (req.wait?.timeout ?? 30_000) + RENDER_ALLOWANCE_MS);
  const task: ScrapeTask = {
    kind: "scrape",
    taskId: randomUUID(),
    requestId,
    deadline: Date.now() + budget,
    request: req,
  };
  try {
    return await runTask<TaskReply, ScrapeTask>(ctx.nc, task, budget);
  } catch (err) {
    if (err instanceof QueueFullError) {
      throw new ApiError(
        "no_capacity",
        "every browser slot is busy and the queue is full; retry after a few seconds",
        undefined,
        {
          "Retry-After": "5",
        },
      );
    }
    if (err instanceof TaskTimeoutError)
      throw new ApiError("timeout", `the scrape did not finish within ${budget} ms`);
    throw new ApiError("unavailable", `the work queue is unreachable: ${(err as Error).message}`, undefined, {
      "Retry-After": "5",
    });
  }
}

export function mountScrape(router: Router, ctx: ApiContext): void {
  router.post("/web/v1/scrape", async (httpReq, res) => {
    const started = performance.now();
    const req = parseBody(scrapeRequest, httpReq.body);
    const end = ctx.metrics.scrapeDuration.startTimer();
    let reply: TaskReply;
    try {
      reply = await scrape(ctx, req, httpReq.requestId);
    } catch (err) {
      end({ outcome: err instanceof ApiError ? err.code : "error" });
      throw err;
    }
    if (!reply.ok) {
      end({ outcome: reply.error.code });
      const code = reply.error.code in ERROR_STATUS ? (reply.error.code as ErrorCode) : "render_failed";
      throw new ApiError(code, reply.error.message);
    }
    const result = reply.result;
    result.metadata.ms = Math.round(performance.now() - started);
    for (const f of req.formats)
      ctx.metrics.formatsRendered.inc({ format: f, outcome: f in result.data ? "ok" : "error" });
    end({ outcome: result.success ? "ok" : "all_formats_failed" });
    res.json(result);
  });
}
