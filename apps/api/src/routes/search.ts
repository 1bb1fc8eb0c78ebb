import {
  OPERATION_ROUTES,
  type SearchRequest,
  type SearchResponse,
  searchRequest,
} from "@browserfleet/contracts";
import { priceOf } from "@browserfleet/pricing";
import {
  clampToProvider,
  configuredProviders,
  runSearch,
  type SearchProvider,
  SearchProviderError,
} from "@browserfleet/search";
import type { RequestHandler, Router } from "express";
import { type Caller, payFor, paymentSetup, restCaller } from "../billing/payment.ts";
import type { ApiContext } from "../context.ts";
import { cachedJson, describeRoute } from "../describe.ts";
import { ApiError } from "../errors.ts";
import { parseBody } from "../validate.ts";

/** How long the hold may outlive the provider's deadline before the reaper refunds it. */
const HOLD_SLACK_MS = 60_000;

const byConfig = new WeakMap<ApiContext["config"], Map<string, SearchProvider>>();

/** The search providers this deployment configured (built once per configuration). */
export function searchProviders(ctx: ApiContext): Map<string, SearchProvider> {
  let providers = byConfig.get(ctx.config);
  if (!providers) {
    providers = configuredProviders(ctx.config);
    byConfig.set(ctx.config, providers);
  }
  return providers;
}

/** The provider named in the path, or a 404 that lists the configured ones. */
export function searchProvider(ctx: ApiContext, name: string): SearchProvider {
  const providers = searchProviders(ctx);
  const provider = providers.get(name);
  if (provider) return provider;
  const names = [...providers.keys()];
  throw new ApiError(
    "not_found",
    names.length
      ? `no search provider "${name}" on this deployment; configured: ${names.join(", ")} (POST /web/v1/search/${names[0]})`
      : `no search provider "${name}": this deployment has no search provider configured`,
  );
}

/**
 * A priced search for any caller, REST or MCP: the quote (per started 10 results of the limit, lowered to
 * the provider's maximum), payment, then the provider call under SEARCH_TIMEOUT_MS. A provider failure is
 * a 502 upstream_failed with the provider's reason and is refunded; a search with no result is not charged.
 */
export async function paidSearch(
  ctx: ApiContext,
  provider: SearchProvider,
  request: SearchRequest,
  caller: Caller,
): Promise<SearchResponse> {
  const started = performance.now();
  const problem = provider.queryProblem?.(request.query);
  if (problem)
    throw new ApiError("invalid_request", `invalid request: query: ${problem}`, [
      { field: "query", message: problem },
    ]);
  const limit = clampToProvider(provider, request).limit;
  const quote = priceOf({ route: "search", request: { limit } });
  const { searchCalls, searchProviderDuration } = ctx.metrics;
  let providerFailed = false;
  try {
    const result = await payFor(ctx, caller, {
      route: "search",
      request,
      quote,
      description: `web search with ${provider.name} (up to ${limit} results)`,
      holdMs: ctx.config.SEARCH_TIMEOUT_MS + HOLD_SLACK_MS,
      work: async () => {
        const end = searchProviderDuration.startTimer({ provider: provider.name });
        let answer: SearchResponse;
        try {
          answer = await runSearch(provider, request, {
            signal: AbortSignal.timeout(ctx.config.SEARCH_TIMEOUT_MS),
            maxBytes: ctx.config.SEARCH_MAX_RESPONSE_BYTES,
          });
        } catch (err) {
          if (!(err instanceof SearchProviderError)) throw err;
          end({ outcome: "error" });
          providerFailed = true;
          throw new ApiError(
            "upstream_failed",
            `the search provider failed, nothing was charged: ${err.message}. Try again later or use another provider.`,
          );
        }
        end({ outcome: "ok" });
        return { result: answer, chargeMicros: answer.success ? quote.micros : 0 };
      },
    });
    searchCalls.inc({ provider: provider.name, outcome: result.success ? "ok" : "empty" });
    result.metadata.ms = Math.round(performance.now() - started);
    return result;
  } catch (err) {
    searchCalls.inc({ provider: provider.name, outcome: providerFailed ? "provider_error" : "refused" });
    throw err;
  }
}

const SEARCH_ROUTE = OPERATION_ROUTES.find((r) => r.path === "/web/v1/search/{provider}")!;

/** GET /web/v1/search/{provider}: the route's self-description, with what this provider does. */
function describeProviders(ctx: ApiContext): Map<string, RequestHandler> {
  const handlers = new Map<string, RequestHandler>();
  for (const provider of searchProviders(ctx).values()) {
    const path = `/web/v1/search/${provider.name}`;
    handlers.set(
      provider.name,
      cachedJson({
        ...describeRoute(SEARCH_ROUTE, paymentSetup(ctx), path),
        provider: { name: provider.name, about: provider.about, maxResults: provider.maxResults },
        mcpTool: `web_search_${provider.name}`,
      }),
    );
  }
  return handlers;
}

/** Mount before the generic descriptions, so GET on a provider answers for that provider (or 404). */
export function mountSearch(router: Router, ctx: ApiContext): void {
  const descriptions = describeProviders(ctx);
  const providerList = cachedJson({
    route: "/web/v1/search/{provider}",
    providers: [...searchProviders(ctx).values()].map((p) => ({
      name: p.name,
      about: p.about,
      maxResults: p.maxResults,
      path: `/web/v1/search/${p.name}`,
      mcpTool: `web_search_${p.name}`,
    })),
  });
  router.get("/web/v1/search", providerList);
  router.get("/web/v1/search/:provider", (req, res, next) => {
    const provider = searchProvider(ctx, String(req.params.provider));
    descriptions.get(provider.name)!(req, res, next);
  });
  router.post("/web/v1/search/:provider", async (httpReq, res) => {
    const provider = searchProvider(ctx, String(httpReq.params.provider));
    const req = parseBody(searchRequest, httpReq.body);
    res.json(await paidSearch(ctx, provider, req, restCaller(ctx, httpReq, res)));
  });
}
