import {
  type SearchRequest,
  type SearchResponse,
  searchRequest,
  searchResponse,
} from "@browserfleet/contracts";
import { definePrice, line, PRICES, total, usd } from "@browserfleet/pricing";
import {
  clampToProvider,
  configuredProviders,
  runSearch,
  type SearchProvider,
  SearchProviderError,
} from "@browserfleet/search";
import { ever } from "../allowance/index.ts";
import { type Caller, payFor } from "../billing/payment.ts";
import type { ApiContext } from "../context.ts";
import { ApiError } from "../errors.ts";
import { parseBody } from "../validate.ts";
import { defineOperation, READS_WEB } from "./operation.ts";

/** The path of one provider's search. */
export const providerPath = (name: string) => search.path.replace("{provider}", name);
/** The names of the search tools, one per provider. */
const TOOLS = "web_search_{provider}";
/** The MCP tool of one provider's search. */
export const searchTool = (provider: SearchProvider) => TOOLS.replace("{provider}", provider.name);

export const searchPrice = definePrice<{ limit: number }>({
  brief: `${usd(PRICES.searchPer10Results)} per started 10 results of limit`,
  words: `${usd(PRICES.searchPer10Results)} per started 10 results of limit (default 10, so ${usd(PRICES.searchPer10Results)}).`,
  quote: ({ limit }) =>
    total([
      line("search, per started 10 results of limit", Math.ceil(limit / 10), PRICES.searchPer10Results),
    ]),
});
const allowance = ever("search", 5, { what: "a search" });

export const search = defineOperation({
  name: "searchProvider",
  method: "POST",
  path: "/web/v1/search/{provider}",
  summary:
    "Search the web through an external search provider's index ({provider} is one of the providers this deployment configured; an unknown one answers 404 listing them). Answers ranked results with url, title, domain, snippet and publishedAt when known. domains, excludeDomains and since are passed to the provider where it supports them and applied to its results here as well. A provider failure is a 502 and is not charged; a search with no result is not charged.",
  params: {
    provider: "A configured search provider (GET /web/v1/search lists them), e.g. brave, tavily, searxng",
  },
  request: searchRequest,
  response: searchResponse,
  priced: {
    price: searchPrice,
    allowance,
    payment: "any",
    limits: "limit default 10, max 50 (lowered to the provider's maximum, and priced so).",
    example: { query: "headless browser scraping", limit: 10, domains: ["github.com"], since: "2025-01-01" },
    errors: [404],
    // GET /web/v1/search/{provider}: the route's self-description, with what this provider does.
    describePath: (ctx: ApiContext, params: Record<string, string>): Record<string, unknown> => {
      const provider = searchProvider(ctx, params.provider ?? "");
      return {
        provider: { name: provider.name, about: provider.about, maxResults: provider.maxResults },
        mcpTool: searchTool(provider),
      };
    },
  },
  // One tool per configured provider, each on the REST route's code path.
  tool: {
    name: TOOLS,
    each: (ctx) =>
      [...searchProviders(ctx).values()].map((provider) => ({
        name: searchTool(provider),
        title: `Search the web (${provider.name})`,
        annotations: READS_WEB,
        description: `Search the web with ${provider.about}. Returns ranked results, each with url, title, domain, a snippet (unless snippets: false) and publishedAt when known; read a page with web_scrape. limit: default 10, at most ${provider.maxResults} here. Filters: domains (only these sites, subdomains included), excludeDomains, since (ISO date: only pages published after it; pages with no known date are kept). ${searchPrice.words} A search with no result, or one the provider fails (an error that says so), is not charged. Keyless callers get ${allowance.limit} searches in all.`,
        toInput: (request: SearchRequest) => ({ provider, request }),
      })),
  },
  // The provider first: an unknown one is a 404 whatever the body.
  fromHttp: (http, ctx) => ({
    provider: searchProvider(ctx, String(http.params.provider)),
    request: parseBody(searchRequest, http.body),
  }),
  run: (ctx, input: { provider: SearchProvider; request: SearchRequest }, call): Promise<SearchResponse> =>
    paidSearch(ctx, input.provider, input.request, call.caller),
});

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
      ? `no search provider "${name}" on this deployment; configured: ${names.join(", ")} (POST ${providerPath(names[0]!)})`
      : `no search provider "${name}": this deployment has no search provider configured`,
  );
}

/**
 * A priced search for any caller, REST or MCP: the quote (per started 10 results of the limit, lowered to
 * the provider's maximum), payment, then the provider call under SEARCH_TIMEOUT_MS. A provider failure is
 * a 502 upstream_failed with the provider's reason and is refunded; a search with no result is not charged.
 */
async function paidSearch(
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
  const quote = searchPrice.quote({ limit });
  const { searchCalls, searchProviderDuration } = ctx.metrics;
  let providerFailed = false;
  try {
    const result = await payFor(ctx, caller, {
      allowance,
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
