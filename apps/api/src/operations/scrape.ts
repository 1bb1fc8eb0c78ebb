import { randomUUID } from "node:crypto";
import { completeChanges } from "@browserfleet/changes";
import {
  type Format,
  type ScrapeRequest,
  type ScrapeResponse,
  type ScrapeTask,
  scrapeRequest,
  scrapeResponse,
  type TaskReply,
} from "@browserfleet/contracts";
import { browserRequest, completeJson, jsonDepsFrom } from "@browserfleet/extract";
import {
  definePrice,
  line,
  POOL_WORDS,
  type PoolPrice,
  PRICES,
  pageLines,
  poolLines,
  total,
  usd,
} from "@browserfleet/pricing";
import {
  budgetDeps,
  type CacheHit,
  fitAnswer,
  isCacheable,
  responseFromCache,
} from "@browserfleet/render-cache";
import { scrapeAllowance } from "../allowance/index.ts";
import { filesByUrl, publicBase } from "../answers/artifacts.ts";
import { readOn } from "../answers/read-on.ts";
import { renderOwnerOf } from "../answers/render-owner.ts";
import { type Caller, payFor } from "../billing/payment.ts";
import type { ApiContext } from "../context.ts";
import { egressPoolFor } from "../egress/egress.ts";
import { ApiError } from "../errors.ts";
import { profileFor, profileKeyOnly } from "../profiles/profiles.ts";
import { defineOperation, READS_WEB } from "./operation.ts";
import { checkJsonOptions, precheckUrl, sendBrowserTask, taskFailed } from "./shared.ts";

/** Time the browser gets beyond the page's own wait budget, to render the formats. */
const RENDER_ALLOWANCE_MS = 30_000;

export const scrapePrice = definePrice<{
  formats: readonly Format[];
  cached?: readonly Format[];
  cursor?: string;
  /** The egress pool it goes out through: its price once, when any format is rendered (not all cached). */
  pool?: PoolPrice | undefined;
}>({
  brief: `${usd(PRICES.format)} per format`,
  words: `${usd(PRICES.format)} per format rendered (json ${usd(PRICES.jsonFormat)}, it includes the model call); a format served from cache (maxAge) costs ${usd(PRICES.cachedFormat)}, and so does reading on with a cursor (the next part of a render cut to maxTokens). Formats that fail are not charged: refunded to a key's balance, and not settled by a wallet paying with x402 upto; a wallet paying with x402 exact pays the whole quote, settled in full once any format came out. A call where every format fails costs nothing. ${POOL_WORDS}`,
  quote: ({ formats, cached, cursor, pool }) =>
    cursor !== undefined
      ? total([line("next part (cursor)", 1, PRICES.cachedFormat)])
      : total([
          ...pageLines(formats, cached),
          ...poolLines(pool, formats.some((f) => !cached?.includes(f)) ? 1 : 0),
        ]),
});
const allowance = scrapeAllowance(10, 3);

export const scrape = defineOperation({
  name: "scrape",
  method: "POST",
  path: "/web/v1/scrape",
  summary:
    "Render one page (or raw HTML) in a real browser and return any of: markdown, html, links, screenshot, pdf, elements, json, accessibility, controls. All formats come from one navigation.",
  request: scrapeRequest,
  response: scrapeResponse,
  priced: {
    price: scrapePrice,
    allowance,
    payment: "any",
    jsonFormat: true,
    example: { url: "https://example.com/", formats: ["markdown", "links"] },
    // A cursor that names no render of the caller's (404) or one that expired (410).
    errors: [403, 404, 410],
  },
  tool: {
    name: "web_scrape",
    title: "Scrape a web page",
    annotations: READS_WEB,
    description: `Render a page in a real browser and return markdown, html, links, screenshot, pdf, elements, json, accessibility or controls (what can be clicked or typed into, with refs for web_act). metadata.tokens counts each text format; maxTokens caps them together, and a cut answer's metadata.truncated.cursor, given back as { cursor }, reads on from the same render. ${scrapePrice.brief}; keyless callers get ${allowance.limit} free a day, at most ${allowance.perSite} distinct pages of a site, without screenshot, pdf or json.`,
  },
  run: (ctx, req, call) =>
    req.cursor !== undefined
      ? readOn(ctx, req.cursor, req.maxTokens, call.caller, {
          allowance,
          quote: scrapePrice.quote({ formats: [], cursor: req.cursor }),
        })
      : paidScrape(ctx, req, call.caller),
});

/** Run one scrape on a browser worker. The caller has already pre-checked the URL (paidScrape does). */
async function renderOnWorker(
  ctx: ApiContext,
  req: ScrapeRequest,
  requestId: string,
  profileState?: string,
): Promise<TaskReply> {
  const budget = Math.min(ctx.config.SCRAPE_TIMEOUT_MS, (req.wait?.timeout ?? 30_000) + RENDER_ALLOWANCE_MS);
  const task: ScrapeTask = {
    kind: "scrape",
    taskId: randomUUID(),
    requestId,
    deadline: Date.now() + budget,
    request: req,
    ...(profileState ? { profileState } : {}),
  };
  return sendBrowserTask(ctx, task, budget, "scrape");
}

function chargeFor(result: ScrapeResponse, pool: PoolPrice | undefined): number {
  const out = result.metadata.formats.filter((f) => f in result.data);
  return scrapePrice.quote({ formats: out, cached: result.metadata.cached ?? [], pool }).micros;
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
async function paidScrape(ctx: ApiContext, req: ScrapeRequest, caller: Caller): Promise<ScrapeResponse> {
  const started = performance.now();
  checkJsonOptions(req.json);
  await precheckUrl(ctx, req.url);
  const pool = await egressPoolFor(ctx, req);
  // A page seen through a profile (logged in) is never cached (isCacheable).
  const profile = await profileFor(ctx, caller, req.profile);
  const scope = ctx.config.CACHE_SCOPE === "account" ? (caller.auth?.accountId ?? null) : undefined;
  const hit: CacheHit =
    req.maxAge !== undefined && scope !== null
      ? await ctx.cache.lookup(req, req.maxAge, scope)
      : { data: {}, formats: [] };
  const quote = scrapePrice.quote({ formats: req.formats, cached: hit.formats, pool });
  const missing = req.formats.filter((f) => !(f in hit.data));
  const end = ctx.metrics.scrapeDuration.startTimer();
  let result: ScrapeResponse;
  try {
    result = await payFor(ctx, caller, {
      allowance,
      request: req,
      quote,
      description: `scrape ${req.url ?? "raw html"} as ${req.formats.join(", ")}`,
      keyOnly: req.formats.includes("json")
        ? "the json format needs an API key"
        : req.formats.includes("changes")
          ? "the changes format needs an API key: it compares with the account's previous render"
          : profileKeyOnly(req.profile),
      holdMs: ctx.config.SCRAPE_TIMEOUT_MS + 60_000,
      // Served wholly from cache, the quote is the charge; not when files are stored (one may fail).
      final: missing.length === 0 && req.binaryAs !== "url",
      work: async (payer) => {
        // Charged for every format that came out, before a budget leaves some for later parts.
        // Files stored first (a format whose file could not be stored is not charged), then charged for
        // every format that came out, then cut to maxTokens (what is left for later parts was paid for; if
        // the rest could not be kept for a cursor, only what was sent is charged).
        const finish = async (answer: ScrapeResponse) => {
          if (req.binaryAs === "url") {
            await filesByUrl(ctx.artifacts, answer, publicBase(ctx.config, caller.baseUrl), (err) =>
              console.error(`artifact store failed: ${(err as Error).message}`),
            );
            answer.success = Object.keys(answer.data).length > 0;
          }
          const whole = chargeFor(answer, pool);
          const result = await fitAnswer(budgetDeps(ctx), answer, req.maxTokens, renderOwnerOf(payer));
          const lost = result.metadata.truncated && !result.metadata.truncated.cursor;
          return { result, chargeMicros: lost ? chargeFor(result, pool) : whole };
        };
        if (missing.length === 0) return finish(responseFromCache(req, hit));
        const wanted = { ...req, formats: missing };
        const reply = await renderOnWorker(ctx, browserRequest(wanted), caller.requestId, profile?.state);
        if (!reply.ok) throw taskFailed(reply.error);
        const fresh = await completeJson(wanted, reply.result, jsonDepsFrom(ctx.config));
        // Awaited (store never throws) so the caller's next call with maxAge finds what it just paid for.
        if (scope !== null && isCacheable(req)) await ctx.cache.store(req, fresh, scope);
        const compared =
          payer.kind === "account"
            ? await completeChanges(wanted, reply.result.data.markdown, fresh, ctx.snapshots, payer.accountId)
            : fresh;
        return finish(merge(req, compared, hit));
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
