import { crawl } from "./crawl.ts";
import { jobStatusOperation } from "./jobs.ts";

export const crawlStatus = jobStatusOperation("crawl", crawl.path, "discovery", {
  name: "web_crawl_status",
  title: "Crawl job status and results",
});
