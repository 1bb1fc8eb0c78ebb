import type { SearchRequest } from "@browserfleet/contracts";
import { z } from "zod";
import { isoDate, plainText, sinceDay, siteOperators } from "./filters.ts";
import { malformedBody, providerJson } from "./http.ts";
import type { CallLimits, ProviderAnswer, ProviderHit, SearchProvider } from "./types.ts";

/** Brave's documented bounds: `count` at most 20 per page, `offset` (in pages) at most 9, `q` 400 chars / 50 words. */
const PAGE_MAX = 20;
const OFFSET_MAX = 9;
const Q_MAX_CHARS = 400;
const Q_MAX_WORDS = 50;

const braveResult = z.looseObject({
  url: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  page_age: z.string().optional(),
  age: z.string().optional(),
});
const braveBody = z.looseObject({
  type: z.literal("search"),
  query: z.looseObject({ more_results_available: z.boolean().optional() }).optional(),
  web: z.looseObject({ results: z.array(z.unknown()) }).optional(),
});
/** Brave's error body: { type: "ErrorResponse", error: { id, status, code, detail, meta }, time }. */
const braveError = z.looseObject({
  error: z.looseObject({ code: z.string().optional(), detail: z.string().optional() }),
});

function braveReason(_status: number, body: unknown): string | undefined {
  const e = braveError.safeParse(body);
  if (!e.success) return undefined;
  return [e.data.error.code, e.data.error.detail].filter(Boolean).join(": ") || undefined;
}

/**
 * Brave Search API, web search (GET /res/v1/web/search with X-Subscription-Token). domains and
 * excludeDomains become site: operators in q, since becomes a `freshness` date range, limit becomes
 * count and pages (offset).
 */
export function braveProvider(opts: { apiKey: string; baseUrl: string }): SearchProvider {
  const endpoint = `${opts.baseUrl.replace(/\/+$/, "")}/res/v1/web/search`;
  return {
    name: "brave",
    about: "Brave Search's own independent web index",
    maxResults: 50,
    queryProblem: (query) =>
      query.length > Q_MAX_CHARS || query.split(/\s+/).length > Q_MAX_WORDS
        ? `brave takes queries of at most ${Q_MAX_CHARS} characters and ${Q_MAX_WORDS} words`
        : undefined,
    async search(req: SearchRequest, limits: CallLimits): Promise<ProviderAnswer> {
      const warnings: string[] = [];
      let q = req.query;
      const ops = siteOperators(req);
      if (ops) {
        const withOps = `${q} ${ops}`;
        if (withOps.length <= Q_MAX_CHARS && withOps.split(/\s+/).length <= Q_MAX_WORDS) q = withOps;
        else
          warnings.push(
            "brave: too many domains for its 400-character query, so domains and excludeDomains were applied to its results only",
          );
      }
      let freshness: string | undefined;
      if (req.since) {
        const from = sinceDay(req.since);
        const today = new Date().toISOString().slice(0, 10);
        freshness = `${from}to${from > today ? from : today}`;
      }
      const count = Math.min(PAGE_MAX, req.limit);
      // Each page is a billed Brave query: the pages the limit needs, plus two when our filters drop results.
      const lastOffset = Math.min(OFFSET_MAX, Math.ceil(req.limit / count) + 1);
      const hits: ProviderHit[] = [];
      let kept = 0;
      for (let offset = 0; offset <= lastOffset && kept < req.limit; offset++) {
        const params = new URLSearchParams({
          q,
          count: String(count),
          offset: String(offset),
          result_filter: "web",
          text_decorations: "false",
          safesearch: "moderate",
        });
        if (freshness) params.set("freshness", freshness);
        const raw = await providerJson(
          "brave",
          `${endpoint}?${params}`,
          { method: "GET", headers: { "x-subscription-token": opts.apiKey } },
          limits,
          braveReason,
        );
        const body = braveBody.safeParse(raw);
        if (!body.success) throw malformedBody("brave", body.error);
        const page = body.data.web?.results ?? [];
        for (const item of page) {
          const r = braveResult.safeParse(item);
          if (!r.success) continue;
          const hit = {
            url: r.data.url,
            title: plainText(r.data.title, 500) ?? r.data.url,
            snippet: plainText(r.data.description),
            publishedAt: isoDate(r.data.page_age) ?? isoDate(r.data.age),
          };
          hits.push(hit);
          if (limits.keeps?.(hit) ?? true) kept++;
        }
        if (page.length < count || body.data.query?.more_results_available === false) break;
      }
      return { hits, warnings };
    },
  };
}
