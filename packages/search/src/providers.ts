import { braveProvider } from "./brave.ts";
import { searxngProvider } from "./searxng.ts";
import { tavilyProvider } from "./tavily.ts";
import type { SearchProvider } from "./types.ts";

/** The configuration keys of web search (packages/config). */
export interface SearchConfig {
  SEARCH_BRAVE_API_KEY?: string;
  SEARCH_BRAVE_BASE_URL: string;
  SEARCH_TAVILY_API_KEY?: string;
  SEARCH_TAVILY_BASE_URL: string;
  SEARCH_SEARXNG_BASE_URL?: string;
}

/** The providers this deployment configured, by name, in a fixed order. */
export function configuredProviders(config: SearchConfig): Map<string, SearchProvider> {
  const list: SearchProvider[] = [];
  if (config.SEARCH_BRAVE_API_KEY)
    list.push(braveProvider({ apiKey: config.SEARCH_BRAVE_API_KEY, baseUrl: config.SEARCH_BRAVE_BASE_URL }));
  if (config.SEARCH_TAVILY_API_KEY)
    list.push(
      tavilyProvider({ apiKey: config.SEARCH_TAVILY_API_KEY, baseUrl: config.SEARCH_TAVILY_BASE_URL }),
    );
  if (config.SEARCH_SEARXNG_BASE_URL) list.push(searxngProvider({ baseUrl: config.SEARCH_SEARXNG_BASE_URL }));
  return new Map(list.map((p) => [p.name, p]));
}
