import type { SearchRequest } from "@browserfleet/contracts";
import { z } from "zod";
import { isoDate, plainText, sinceDay } from "./filters.ts";
import { malformedBody, providerJson } from "./http.ts";
import type { CallLimits, ProviderAnswer, SearchProvider } from "./types.ts";

/** Tavily's documented bound on max_results. */
const MAX_RESULTS = 20;

const tavilyResult = z.looseObject({
  url: z.string(),
  title: z.string().nullish(),
  content: z.string().nullish(),
  score: z.number().nullish(),
  published_date: z.string().nullish(),
});
const tavilyBody = z.looseObject({ results: z.array(z.unknown()) });
/** Tavily's error body: { detail: { error: "..." } } (401, 400, 429, 432, 433, 500). */
const tavilyError = z.looseObject({
  detail: z.union([z.looseObject({ error: z.string() }), z.string()]),
});

function tavilyReason(_status: number, body: unknown): string | undefined {
  const e = tavilyError.safeParse(body);
  if (!e.success) return undefined;
  return typeof e.data.detail === "string" ? e.data.detail : e.data.detail.error;
}

/**
 * Tavily search (POST /search, Authorization: Bearer). limit is max_results, domains and excludeDomains
 * are include_domains and exclude_domains, since is start_date (a day).
 */
export function tavilyProvider(opts: { apiKey: string; baseUrl: string }): SearchProvider {
  const endpoint = `${opts.baseUrl.replace(/\/+$/, "")}/search`;
  return {
    name: "tavily",
    about:
      "Tavily's search engine built for AI agents (results ranked for relevance, with page-text snippets)",
    maxResults: MAX_RESULTS,
    async search(req: SearchRequest, limits: CallLimits): Promise<ProviderAnswer> {
      const body: Record<string, unknown> = {
        query: req.query,
        max_results: Math.min(MAX_RESULTS, req.limit),
        search_depth: "basic",
        topic: "general",
        include_answer: false,
        include_raw_content: false,
        include_images: false,
      };
      if (req.domains?.length) body.include_domains = req.domains;
      if (req.excludeDomains?.length) body.exclude_domains = req.excludeDomains;
      if (req.since) body.start_date = sinceDay(req.since);
      const raw = await providerJson(
        "tavily",
        endpoint,
        {
          method: "POST",
          headers: { authorization: `Bearer ${opts.apiKey}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        },
        limits,
        tavilyReason,
      );
      const parsed = tavilyBody.safeParse(raw);
      if (!parsed.success) throw malformedBody("tavily", parsed.error);
      const hits = [];
      for (const item of parsed.data.results) {
        const r = tavilyResult.safeParse(item);
        if (!r.success) continue;
        hits.push({
          url: r.data.url,
          title: plainText(r.data.title, 500) ?? r.data.url,
          snippet: plainText(r.data.content),
          publishedAt: isoDate(r.data.published_date),
          ...(typeof r.data.score === "number" ? { score: r.data.score } : {}),
        });
      }
      return { hits, warnings: [] };
    },
  };
}
