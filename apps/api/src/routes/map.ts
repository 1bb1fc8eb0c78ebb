import { randomUUID } from "node:crypto";
import {
  ERROR_STATUS,
  type ErrorCode,
  type MapRequest,
  type MapResponse,
  type MapTask,
  mapRequest,
} from "@browserfleet/contracts";
import { priceOf } from "@browserfleet/pricing";
import type { Router } from "express";
import { type Caller, payFor, restCaller } from "../billing/payment.ts";
import type { ApiContext } from "../context.ts";
import { ApiError } from "../errors.ts";
import { parseBody } from "../validate.ts";
import { browserTask, precheckUrl } from "./scrape.ts";

/** What one map may take on the worker: the page render (30 s at most) and the sitemaps run side by side. */
const MAP_BUDGET_MS = 60_000;
/** How much longer the api waits than the worker's deadline, for the reply to come back. */
const REPLY_SLACK_MS = 5_000;

/**
 * A priced map for any caller, REST or MCP: SSRF pre-check, the quote (per started 1000 URLs of
 * limit), payment, then one map task on a browser worker. A map that fails is not charged, and
 * neither is one that found no URL (`success: false`). `metadata.ms` is the caller's wall time.
 */
export async function paidMap(ctx: ApiContext, req: MapRequest, caller: Caller): Promise<MapResponse> {
  const started = performance.now();
  await precheckUrl(ctx, req.url);
  const budget = Math.min(ctx.config.SCRAPE_TIMEOUT_MS, MAP_BUDGET_MS);
  const quote = priceOf({ route: "map", request: req });
  const result = await payFor(ctx, caller, {
    route: "map",
    request: req,
    quote,
    description: `map the URLs of ${req.url} (up to ${req.limit})`,
    holdMs: budget + REPLY_SLACK_MS + 60_000,
    work: async () => {
      const task: MapTask = {
        kind: "map",
        taskId: randomUUID(),
        requestId: caller.requestId,
        deadline: Date.now() + budget,
        request: req,
        userAgent: ctx.config.CRAWL_USER_AGENT,
      };
      const reply = await browserTask(ctx, task, budget + REPLY_SLACK_MS, "map");
      if (!reply.ok) {
        const code = reply.error.code in ERROR_STATUS ? (reply.error.code as ErrorCode) : "upstream_failed";
        throw new ApiError(code, reply.error.message);
      }
      return { result: reply.result, chargeMicros: reply.result.success ? quote.micros : 0 };
    },
  });
  result.metadata.ms = Math.round(performance.now() - started);
  return result;
}

export function mountMap(router: Router, ctx: ApiContext): void {
  router.post("/web/v1/map", async (httpReq, res) => {
    const req = parseBody(mapRequest, httpReq.body);
    res.json(await paidMap(ctx, req, restCaller(ctx, httpReq, res)));
  });
}
