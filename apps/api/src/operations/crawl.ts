import { crawlRequest, type JobStartResponse, jobStartResponse } from "@browserfleet/contracts";
import { PRICES, usd } from "@browserfleet/pricing";
import { needsKey } from "../allowance/index.ts";
import { jobPrice, startJob } from "./jobs.ts";
import { defineOperation, STARTS } from "./operation.ts";

export const crawlPrice = jobPrice(
  `${usd(PRICES.format)} per format per page scraped`,
  `${usd(PRICES.format)} per format per page (json ${usd(PRICES.jsonFormat)}); limit × that is held up front and pages that never ran are refunded.`,
);

export const crawl = defineOperation({
  name: "crawl",
  method: "POST",
  path: "/web/v1/crawl",
  summary:
    "Crawl a site breadth-first from url within the site (robots.txt obeyed), scraping every page, as a background job; answers jobId at once. GET /web/v1/crawl/:id?cursor= answers { status: queued|running|completed|failed|cancelled, total, completed, failed, charged, expiresAt, data: [{ url, depth, status, data, errors, metadata, error? }] in discovery order, next }; DELETE cancels and gives back the unused hold.",
  request: crawlRequest,
  response: jobStartResponse,
  priced: {
    price: crawlPrice,
    allowance: needsKey("crawl", "crawl"),
    payment: "key",
    limits: "limit default 25, max 200 pages; maxDepth default 2.",
    // A profile this account does not have.
    errors: [403, 404],
    example: { url: "https://example.com/", limit: 25, maxDepth: 2 },
  },
  tool: {
    name: "web_crawl",
    title: "Crawl a site (background job)",
    annotations: STARTS,
    description: `Crawl a site breadth-first from url, following links within the site (limit default 25, max 200 pages; maxDepth default 2; robots.txt obeyed), scraping every page with the given formats, as a background job (needs an API key). Returns jobId at once; poll web_crawl_status. ${crawlPrice.brief}.`,
  },
  run: (ctx, req, call): Promise<JobStartResponse> =>
    startJob(ctx, call.caller, "crawl", req, crawl.path, crawlPrice),
});
