import type { SearchRequest, SearchResponse, SearchResult } from "@browserfleet/contracts";
import { hostOf, passes } from "./filters.ts";
import type { CallLimits, ProviderHit, SearchProvider } from "./types.ts";

/** The request a provider is asked: its limit lowered to what the provider can return. */
export function clampToProvider(provider: SearchProvider, req: SearchRequest): SearchRequest {
  return { ...req, limit: Math.min(req.limit, provider.maxResults) };
}

/**
 * One search, provider-neutral: ask the provider, then keep http(s) results only, drop repeated URLs, apply
 * domains, excludeDomains and since to what came back (whatever the provider did with them), cut at limit,
 * and leave snippets out unless asked. `metadata.ms` is set by the caller.
 */
export async function runSearch(
  provider: SearchProvider,
  request: SearchRequest,
  limits: CallLimits,
): Promise<SearchResponse> {
  const req = clampToProvider(provider, request);
  const warnings: string[] = [];
  if (req.limit < request.limit)
    warnings.push(
      `${provider.name} returns at most ${provider.maxResults} results: limit lowered from ${request.limit} to ${req.limit}`,
    );
  const started = performance.now();
  const keeps = (hit: ProviderHit) => {
    const host = hostOf(hit.url);
    return host !== undefined && passes(req, host, hit.publishedAt);
  };
  const answer = await provider.search(req, { keeps, ...limits });
  const providerMs = Math.round(performance.now() - started);
  warnings.push(...answer.warnings);

  const results: SearchResult[] = [];
  const seen = new Set<string>();
  let filteredOut = 0;
  for (const hit of answer.hits) {
    const domain = hostOf(hit.url);
    if (!domain || seen.has(hit.url)) continue;
    seen.add(hit.url);
    if (!passes(req, domain, hit.publishedAt)) {
      filteredOut++;
      continue;
    }
    if (results.length >= req.limit) continue;
    results.push({
      position: results.length + 1,
      url: hit.url,
      title: hit.title,
      domain,
      ...(req.snippets && hit.snippet ? { snippet: hit.snippet } : {}),
      ...(hit.publishedAt ? { publishedAt: hit.publishedAt } : {}),
      ...(hit.score !== undefined ? { score: hit.score } : {}),
    });
  }
  return {
    success: results.length > 0,
    provider: provider.name,
    query: req.query,
    results,
    metadata: {
      limit: req.limit,
      returned: results.length,
      filteredOut,
      ...(warnings.length ? { warnings } : {}),
      providerMs,
      ms: providerMs,
    },
  };
}
