import type { SearchRequest } from "@browserfleet/contracts";
import { z } from "zod";
import { isoDate, plainText, sinceMs } from "./filters.ts";
import { excerpt, malformedBody, providerJson } from "./http.ts";
import {
  type CallLimits,
  type ProviderAnswer,
  type ProviderHit,
  type SearchProvider,
  SearchProviderError,
} from "./types.ts";

/** SearXNG has no page size (about 10 merged results a page); it is paged with pageno. */
const PER_PAGE = 10;
/** The most pages one call reads: what the limit needs, plus a few when our filters drop results. */
const MAX_PAGES = 8;
const DAY_MS = 86_400_000;

const searxResult = z.looseObject({
  url: z.string(),
  title: z.string().nullish(),
  content: z.string().nullish(),
  publishedDate: z.string().nullish(),
  score: z.number().nullish(),
});
const searxBody = z.looseObject({
  results: z.array(z.unknown()),
  unresponsive_engines: z.array(z.array(z.unknown())).optional(),
});

function searxReason(status: number, _body: unknown, text: string): string | undefined {
  if (status === 403)
    return "forbidden; is the json format enabled in the instance's settings.yml (search.formats)?";
  if (status === 429) return "too many requests (the instance's limiter)";
  return excerpt(text) || undefined;
}

/**
 * The smallest time_range SearXNG documents (day, month, year) that still holds `since`; undefined when
 * `since` is more than a year ago. The exact date is applied to the results afterwards.
 */
export function searxTimeRange(since: string, now = Date.now()): "day" | "month" | "year" | undefined {
  const age = now - sinceMs(since);
  if (age <= DAY_MS) return "day";
  if (age <= 31 * DAY_MS) return "month";
  if (age <= 366 * DAY_MS) return "year";
  return undefined;
}

/**
 * A self-hosted SearXNG's JSON API (GET /search?format=json). One domain becomes a site: operator (engines
 * that know it honour it); every domain filter and the exact since date are applied to the results. since
 * picks the smallest time_range that holds it. limit is reached by reading pages (pageno).
 */
export function searxngProvider(opts: { baseUrl: string }): SearchProvider {
  const endpoint = `${opts.baseUrl.replace(/\/+$/, "")}/search`;
  return {
    name: "searxng",
    about: "a self-hosted SearXNG metasearch engine (results merged from the engines its operator enabled)",
    maxResults: 50,
    async search(req: SearchRequest, limits: CallLimits): Promise<ProviderAnswer> {
      const warnings: string[] = [];
      const q = req.domains?.length === 1 ? `${req.query} site:${req.domains[0]}` : req.query;
      const timeRange = req.since ? searxTimeRange(req.since) : undefined;
      const hits: ProviderHit[] = [];
      const seen = new Set<string>();
      const failed = new Map<string, string>();
      let answered = 0;
      let kept = 0;
      const lastPage = Math.min(MAX_PAGES, Math.ceil(req.limit / PER_PAGE) + 3);
      for (let pageno = 1; pageno <= lastPage && kept < req.limit; pageno++) {
        const params = new URLSearchParams({ q, format: "json", pageno: String(pageno) });
        if (timeRange) params.set("time_range", timeRange);
        const raw = await providerJson(
          "searxng",
          `${endpoint}?${params}`,
          { method: "GET" },
          limits,
          searxReason,
        );
        const body = searxBody.safeParse(raw);
        if (!body.success) throw malformedBody("searxng", body.error);
        for (const e of body.data.unresponsive_engines ?? []) {
          if (typeof e[0] === "string") failed.set(e[0], typeof e[1] === "string" ? e[1] : "failed");
        }
        let fresh = 0;
        for (const item of body.data.results) {
          const r = searxResult.safeParse(item);
          if (!r.success || seen.has(r.data.url)) continue;
          seen.add(r.data.url);
          fresh++;
          const hit = {
            url: r.data.url,
            title: plainText(r.data.title, 500) ?? r.data.url,
            snippet: plainText(r.data.content),
            publishedAt: isoDate(r.data.publishedDate),
            ...(typeof r.data.score === "number" ? { score: r.data.score } : {}),
          };
          hits.push(hit);
          if (limits.keeps?.(hit) ?? true) kept++;
        }
        answered += body.data.results.length;
        if (fresh === 0) break;
      }
      const engines = [...failed].map(([name, why]) => `${name} (${why})`).join(", ");
      if (answered === 0 && failed.size > 0)
        throw new SearchProviderError("searxng", `searxng: every engine it asked failed: ${engines}`);
      if (failed.size > 0) warnings.push(`searxng: some engines did not answer: ${engines}`);
      return { hits, warnings };
    },
  };
}
