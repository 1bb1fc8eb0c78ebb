import { jobCancelOperation } from "./jobs.ts";
import { scrapeBatch } from "./scrape-batch.ts";

export const batchCancel = jobCancelOperation("batch", scrapeBatch.path);
