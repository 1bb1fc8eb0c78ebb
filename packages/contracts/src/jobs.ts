import { z } from "zod";
import { httpUrl } from "./common.ts";
import { checkRenderRules, renderFields } from "./scrape.ts";

export const siteFilters = {
  search: z.string().min(1).max(1000).optional().describe("Keep only URLs containing this text"),
  includeSubdomains: z.boolean().default(false),
  includePaths: z.array(z.string().min(1).max(1000)).max(100).optional(),
  excludePaths: z.array(z.string().min(1).max(1000)).max(100).optional(),
};

export const batchRequest = z
  .strictObject({
    urls: z.array(httpUrl).min(2).max(50),
    ...renderFields,
  })
  .superRefine(checkRenderRules);
export type BatchRequest = z.infer<typeof batchRequest>;

export const crawlRequest = z
  .strictObject({
    url: httpUrl.describe("Start page"),
    limit: z.int().min(1).max(200).default(25).describe("Pages to scrape"),
    maxDepth: z.int().min(0).max(20).default(2),
    ...siteFilters,
    ...renderFields,
  })
  .superRefine(checkRenderRules);
export type CrawlRequest = z.infer<typeof crawlRequest>;

export const mapRequest = z.strictObject({
  url: httpUrl,
  limit: z.int().min(1).max(5000).default(1000),
  includePage: z.boolean().default(true).describe("Render the page too, to catch what the sitemap misses"),
  ...siteFilters,
});
export type MapRequest = z.infer<typeof mapRequest>;

export const searchRequest = z.strictObject({
  query: z.string().min(1).max(1000),
  limit: z.int().min(1).max(50).default(10),
  snippets: z.boolean().default(true),
  domains: z.array(z.string().min(1).max(255)).max(50).optional(),
  excludeDomains: z.array(z.string().min(1).max(255)).max(50).optional(),
  since: z.iso.date().or(z.iso.datetime()).optional().describe("ISO date; only results published after it"),
});
export type SearchRequest = z.infer<typeof searchRequest>;

export const feedbackRequest = z.strictObject({
  message: z.string().min(1).max(10_000),
  category: z.enum(["bug", "quality", "billing", "feature", "other"]).default("other"),
  url: httpUrl.optional(),
  requestId: z.string().max(200).optional(),
  jobId: z.string().max(200).optional(),
  sessionId: z.string().max(200).optional(),
});
export type FeedbackRequest = z.infer<typeof feedbackRequest>;
