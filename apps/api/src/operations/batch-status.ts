import { jobStatusOperation } from "./jobs.ts";
import { scrapeBatch } from "./scrape-batch.ts";

export const batchStatus = jobStatusOperation("batch", scrapeBatch.path, "URL", {
  name: "web_batch_status",
  title: "Batch job status and results",
});
