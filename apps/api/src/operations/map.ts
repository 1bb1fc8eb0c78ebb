import { randomUUID } from "node:crypto";
import {
  type MapRequest,
  type MapResponse,
  type MapTask,
  mapRequest,
  mapResponse,
} from "@browserfleet/contracts";
import { definePrice, line, PRICES, total, usd } from "@browserfleet/pricing";
import { perDay } from "../allowance/index.ts";
import { type Caller, payFor } from "../billing/payment.ts";
import type { ApiContext } from "../context.ts";
import { defineOperation, READS_WEB } from "./operation.ts";
import { precheckUrl, sendBrowserTask, taskFailed } from "./shared.ts";

/** What one map may take on the worker: the page render (30 s at most) and the sitemaps run side by side. */
const MAP_BUDGET_MS = 60_000;
/** How much longer the api waits than the worker's deadline, for the reply to come back. */
const REPLY_SLACK_MS = 5_000;

export const mapPrice = definePrice<{ limit: number }>({
  brief: `${usd(PRICES.mapPer1000Urls)} per started 1000 URLs of limit`,
  words: `${usd(PRICES.mapPer1000Urls)} per started 1000 URLs of limit (default 1000, so ${usd(PRICES.mapPer1000Urls)}).`,
  quote: ({ limit }) =>
    total([line("map, per started 1000 URLs of limit", Math.ceil(limit / 1000), PRICES.mapPer1000Urls)]),
});
const allowance = perDay("map", 10, { what: "a map" });

export const map = defineOperation({
  name: "map",
  method: "POST",
  path: "/web/v1/map",
  summary: "List the URLs of a site from its sitemaps plus the links on the page itself.",
  request: mapRequest,
  response: mapResponse,
  priced: {
    price: mapPrice,
    allowance,
    payment: "any",
    limits: "limit default 1000, max 5000.",
    example: { url: "https://example.com/", limit: 100 },
  },
  tool: {
    name: "web_map",
    title: "List the URLs of a site",
    annotations: READS_WEB,
    description: `List the URLs of a site (up to limit, default 1000, max 5000): its sitemaps (robots.txt, /sitemap.xml, indexes) plus the links on the rendered page, normalized and de-duplicated, with the filters search, includePaths, excludePaths, includeSubdomains. ${mapPrice.brief}; keyless callers get ${allowance.limit} a day.`,
  },
  run: (ctx, req, call) => paidMap(ctx, req, call.caller),
});

/**
 * A priced map for any caller, REST or MCP: SSRF pre-check, the quote (per started 1000 URLs of
 * limit), payment, then one map task on a browser worker. A map that fails is not charged, and
 * neither is one that found no URL (`success: false`). `metadata.ms` is the caller's wall time.
 */
async function paidMap(ctx: ApiContext, req: MapRequest, caller: Caller): Promise<MapResponse> {
  const started = performance.now();
  await precheckUrl(ctx, req.url);
  const budget = Math.min(ctx.config.SCRAPE_TIMEOUT_MS, MAP_BUDGET_MS);
  const quote = mapPrice.quote(req);
  const result = await payFor(ctx, caller, {
    allowance,
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
      const reply = await sendBrowserTask(ctx, task, budget + REPLY_SLACK_MS, "map");
      if (!reply.ok) throw taskFailed(reply.error, "upstream_failed");
      return { result: reply.result, chargeMicros: reply.result.success ? quote.micros : 0 };
    },
  });
  result.metadata.ms = Math.round(performance.now() - started);
  return result;
}
