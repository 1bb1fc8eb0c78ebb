import { z } from "zod";
import { httpUrl, rowCursor } from "./common.ts";
import { checkRenderRules, RENDER_RULES_SCHEMA, renderFields } from "./scrape.ts";
import { LINE, storedText, text } from "./text.ts";
import { webhookDeliveries, webhookSpec } from "./webhook-spec.ts";

export const siteFilters = {
  search: text(LINE).min(1).max(1000).optional().describe("Keep only URLs containing this text"),
  includeSubdomains: z.boolean().default(false),
  includePaths: z.array(text(LINE).min(1).max(1000)).max(100).optional(),
  excludePaths: z.array(text(LINE).min(1).max(1000)).max(100).optional(),
};

/** A job's files by link last as long as its results. */
const jobBinaryAs = z
  .enum(["base64", "url"])
  .default("base64")
  .describe(
    "How pages' screenshots and PDFs come back: base64, or url: links under this api that serve each file without a key until the job expires (its expiresAt); stored when a status first returns the page",
  );

export const batchRequest = z
  .strictObject({
    urls: z.array(httpUrl).min(2).max(50),
    ...renderFields,
    binaryAs: jobBinaryAs,
    webhook: webhookSpec.optional(),
  })
  .superRefine(checkRenderRules)
  .meta(RENDER_RULES_SCHEMA);
export type BatchRequest = z.infer<typeof batchRequest>;

export const crawlRequest = z
  .strictObject({
    url: httpUrl.describe("Start page"),
    limit: z.int().min(1).max(200).default(25).describe("Pages to scrape"),
    maxDepth: z.int().min(0).max(20).default(2),
    ...siteFilters,
    ...renderFields,
    binaryAs: jobBinaryAs,
    webhook: webhookSpec.optional(),
  })
  .superRefine(checkRenderRules)
  .meta(RENDER_RULES_SCHEMA);
export type CrawlRequest = z.infer<typeof crawlRequest>;

export const mapRequest = z.strictObject({
  url: httpUrl,
  limit: z.int().min(1).max(5000).default(1000),
  includePage: z.boolean().default(true).describe("Render the page too, to catch what the sitemap misses"),
  ...siteFilters,
});
export type MapRequest = z.infer<typeof mapRequest>;

/**
 * A report is stored as it came: its free text is never refused for what it holds, only cleaned of what
 * PostgreSQL cannot store (storedText). Its url is a URL like any other.
 */
export const feedbackRequest = z.strictObject({
  message: storedText().min(1).max(10_000),
  category: z.enum(["bug", "quality", "billing", "feature", "other"]).default("other"),
  url: httpUrl.optional(),
  requestId: storedText().max(200).optional(),
  jobId: storedText().max(200).optional(),
  sessionId: storedText().max(200).optional(),
});
export type FeedbackRequest = z.infer<typeof feedbackRequest>;

export const mapLink = z.object({ url: z.string(), title: z.string().optional() });
export const mapResponse = z.object({
  success: z.boolean(),
  links: z.array(mapLink).describe("Normalized, de-duplicated URLs of the site, sitemap entries first"),
  metadata: z.object({
    url: z.string().describe("The site's start URL after redirects"),
    sitemaps: z.int().describe("Sitemap files read (robots.txt Sitemap: lines, /sitemap.xml, indexes)"),
    fromSitemaps: z.int().describe("URLs found in sitemaps, after filters"),
    fromPage: z.int().describe("URLs found only on the rendered page, after filters"),
    truncated: z.boolean().describe("More URLs matched than limit (or a sitemap bound was hit)"),
    warnings: z.array(z.string()).optional().describe("Sitemaps that could not be read, and why"),
    ms: z.int(),
  }),
});
export type MapResponse = z.infer<typeof mapResponse>;

export const JOB_STATUSES = ["queued", "running", "completed", "failed", "cancelled"] as const;
export const jobStatus = z.enum(JOB_STATUSES);
export type JobStatus = z.infer<typeof jobStatus>;

export const jobStartResponse = z.object({
  success: z.literal(true),
  jobId: z.string(),
  status: jobStatus,
  url: z.string().describe("Where to poll the job (GET) or cancel it (DELETE)"),
  expiresAt: z.string().describe("When the job and its results are deleted"),
  held: z
    .object({ usd: z.string(), micros: z.int() })
    .describe("Reserved for the most pages the job may scrape; what is not used goes back at the end"),
});
export type JobStartResponse = z.infer<typeof jobStartResponse>;

export const jobQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50).describe("Page results per response"),
  cursor: rowCursor.optional().describe("The `next` value of the previous response"),
});

export const jobPageResult = z.object({
  url: z.string().describe("The page as it was queued"),
  depth: z.int().optional().describe("Links followed from the start page (crawl)"),
  status: z.enum(["completed", "failed"]),
  data: z.record(z.string(), z.unknown()).optional(),
  errors: z.record(z.string(), z.object({ code: z.string(), message: z.string() })).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  error: z
    .object({ code: z.string(), message: z.string() })
    .optional()
    .describe("Why the page as a whole failed"),
});
export type JobPageResult = z.infer<typeof jobPageResult>;

export const jobStatusResponse = z.object({
  success: z.literal(true),
  jobId: z.string(),
  kind: z.enum(["crawl", "batch"]),
  status: jobStatus,
  total: z.int().describe("Pages taken into the job so far"),
  completed: z.int(),
  failed: z.int(),
  charged: z.object({ usd: z.string(), micros: z.int() }),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  expiresAt: z.string(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  webhook: webhookDeliveries.optional().describe("How the job's webhook deliveries stand, when it has one"),
  data: z.array(jobPageResult).describe("Finished pages, in queue order"),
  next: z.string().nullable().describe("Pass as cursor for the next results; null when none are left yet"),
});
export type JobStatusResponse = z.infer<typeof jobStatusResponse>;

export const feedbackResponse = z.object({
  success: z.literal(true),
  feedbackId: z.string(),
  receivedAt: z.string(),
});
export type FeedbackResponse = z.infer<typeof feedbackResponse>;
