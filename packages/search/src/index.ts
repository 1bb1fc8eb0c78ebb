export { braveProvider } from "./brave.ts";
export { domainMatches, hostOf, isoDate, passes, plainText, sinceDay, siteOperators } from "./filters.ts";
export { providerJson } from "./http.ts";
export { configuredProviders, type SearchConfig } from "./providers.ts";
export { clampToProvider, runSearch } from "./run.ts";
export { searxngProvider, searxTimeRange } from "./searxng.ts";
export { tavilyProvider } from "./tavily.ts";
export {
  type CallLimits,
  type ProviderAnswer,
  type ProviderHit,
  type SearchProvider,
  SearchProviderError,
} from "./types.ts";
