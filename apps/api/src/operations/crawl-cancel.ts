import { crawl } from "./crawl.ts";
import { jobCancelOperation } from "./jobs.ts";

export const crawlCancel = jobCancelOperation("crawl", crawl.path);
