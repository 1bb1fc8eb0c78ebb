import type { z } from "zod";
import {
  batchRequest,
  crawlRequest,
  feedbackRequest,
  jobStartResponse,
  mapRequest,
  mapResponse,
} from "./jobs.ts";
import type { RoutePayment } from "./payment-terms.ts";
import { scrapeRequest, scrapeResponse } from "./scrape.ts";
import { searchRequest, searchResponse } from "./search.ts";
import { actRequest, actResponse, sessionRequest, sessionResponse } from "./session.ts";

export interface OperationRoute {
  path: string;
  summary: string;
  request: z.ZodType;
  response?: z.ZodType;
  /** Which pricing rule applies (the rules themselves live in @browserfleet/pricing). */
  pricing: "scrape" | "session" | "act" | "batch" | "map" | "crawl" | "search";
  /** Who may pay: anyone (key or wallet) or a key only; `paymentTerms` words it for a deployment. */
  payment: RoutePayment;
  /** The route takes the json format, which needs a key. */
  jsonFormat?: boolean;
  limits?: string;
  example: Record<string, unknown>;
  available: boolean;
}

/** The operation routes of the interface: the source of their GET self-descriptions and the OpenAPI document. */
export const OPERATION_ROUTES: OperationRoute[] = [
  {
    path: "/web/v1/scrape",
    summary:
      "Render one page (or raw HTML) in a real browser and return any of: markdown, html, links, screenshot, pdf, elements, json, accessibility, controls. All formats come from one navigation.",
    request: scrapeRequest,
    response: scrapeResponse,
    pricing: "scrape",
    payment: "any",
    jsonFormat: true,
    example: { url: "https://example.com/", formats: ["markdown", "links"] },
    available: true,
  },
  {
    path: "/web/v1/session",
    summary:
      "Open a live browser session on a page; returns sessionId and the page's controls map for /web/v1/act.",
    request: sessionRequest,
    response: sessionResponse,
    pricing: "session",
    payment: "any",
    jsonFormat: true,
    example: { url: "https://example.com/login" },
    available: true,
  },
  {
    path: "/web/v1/act",
    summary:
      "Run 1 to 25 actions (type, press, click, select, wait, ...) in an open session and return the page state after them.",
    request: actRequest,
    response: actResponse,
    pricing: "act",
    payment: "any",
    limits: "1 to 25 actions per call.",
    example: { sessionId: "s_...", actions: [{ type: { ref: "e5", text: "alice" } }, { press: "Enter" }] },
    available: true,
  },
  {
    path: "/web/v1/scrape/batch",
    summary:
      "Queue one scrape per URL (2 to 50) with shared options as a background job; answers jobId at once. GET /web/v1/scrape/batch/:id?cursor= answers { status: queued|running|completed|failed|cancelled, total, completed, failed, charged, expiresAt, data: [{ url, status, data, errors, metadata, error? }] in URL order, next }; DELETE cancels and gives back the unused hold.",
    request: batchRequest,
    response: jobStartResponse,
    pricing: "batch",
    payment: "key",
    limits: "2 to 50 urls.",
    example: { urls: ["https://example.com/a", "https://example.com/b"], formats: ["markdown"] },
    available: true,
  },
  {
    path: "/web/v1/map",
    summary: "List the URLs of a site from its sitemaps plus the links on the page itself.",
    request: mapRequest,
    response: mapResponse,
    pricing: "map",
    payment: "any",
    limits: "limit default 1000, max 5000.",
    example: { url: "https://example.com/", limit: 100 },
    available: true,
  },
  {
    path: "/web/v1/crawl",
    summary:
      "Crawl a site breadth-first from url within the site (robots.txt obeyed), scraping every page, as a background job; answers jobId at once. GET /web/v1/crawl/:id?cursor= answers { status: queued|running|completed|failed|cancelled, total, completed, failed, charged, expiresAt, data: [{ url, depth, status, data, errors, metadata, error? }] in discovery order, next }; DELETE cancels and gives back the unused hold.",
    request: crawlRequest,
    response: jobStartResponse,
    pricing: "crawl",
    payment: "key",
    limits: "limit default 25, max 200 pages; maxDepth default 2.",
    example: { url: "https://example.com/", limit: 25, maxDepth: 2 },
    available: true,
  },
  {
    path: "/web/v1/search/{provider}",
    summary:
      "Search the web through an external search provider's index ({provider} is one of the providers this deployment configured; an unknown one answers 404 listing them). Answers ranked results with url, title, domain, snippet and publishedAt when known. domains, excludeDomains and since are passed to the provider where it supports them and applied to its results here as well. A provider failure is a 502 and is not charged; a search with no result is not charged.",
    request: searchRequest,
    response: searchResponse,
    pricing: "search",
    payment: "any",
    limits: "limit default 10, max 50 (lowered to the provider's maximum, and priced so).",
    example: { query: "headless browser scraping", limit: 10, domains: ["github.com"], since: "2025-01-01" },
    available: true,
  },
];

export const FEEDBACK_ROUTE = { path: "/web/v1/feedback", request: feedbackRequest };
