import { batchRequest, type JobStartResponse, jobStartResponse } from "@browserfleet/contracts";
import { PRICES, usd } from "@browserfleet/pricing";
import { needsKey } from "../allowance/index.ts";
import { jobPrice, startJob } from "./jobs.ts";
import { defineOperation, STARTS } from "./operation.ts";

export const batchPrice = jobPrice(
  `${usd(PRICES.format)} per format per URL`,
  `${usd(PRICES.format)} per format per URL (json ${usd(PRICES.jsonFormat)}); the whole batch is held up front and pages that never ran are refunded.`,
);

export const scrapeBatch = defineOperation({
  name: "scrapeBatch",
  method: "POST",
  path: "/web/v1/scrape/batch",
  summary:
    "Queue one scrape per URL (2 to 50) with shared options as a background job; answers jobId at once. GET /web/v1/scrape/batch/:id?cursor= answers { status: queued|running|completed|failed|cancelled, total, completed, failed, charged, expiresAt, data: [{ url, status, data, errors, metadata, error? }] in URL order, next }; DELETE cancels and gives back the unused hold.",
  request: batchRequest,
  response: jobStartResponse,
  priced: {
    price: batchPrice,
    allowance: needsKey("batch", "batch scrape"),
    payment: "key",
    limits: "2 to 50 urls.",
    // A profile this account does not have.
    errors: [403, 404],
    example: { urls: ["https://example.com/a", "https://example.com/b"], formats: ["markdown"] },
  },
  tool: {
    name: "web_scrape_batch",
    title: "Scrape many pages (background job)",
    annotations: STARTS,
    description: `Scrape 2 to 50 URLs with the same options as one background job (needs an API key). Returns jobId at once; poll web_batch_status for progress and results. Holds the most it can cost (${batchPrice.brief}) and gives back what pages did not use.`,
  },
  run: (ctx, req, call): Promise<JobStartResponse> =>
    startJob(ctx, call.caller, "batch", req, scrapeBatch.path, batchPrice),
});
