import type { JobPageResult, ScrapeResponse } from "@browserfleet/contracts";
import type { JobKind, JobPageRow } from "./jobs.ts";

/** A finished page as a job's status and its job.page event show it. */
export function pageResult(p: JobPageRow, kind: JobKind): JobPageResult {
  const base = { url: p.url, ...(kind === "crawl" ? { depth: p.depth } : {}) };
  const status = p.status === "completed" ? "completed" : "failed";
  const r = p.result as ScrapeResponse | null;
  const error = p.error as { code: string; message: string } | null;
  return {
    ...base,
    status,
    ...(r ? { data: r.data, errors: r.errors, metadata: r.metadata } : {}),
    ...(error ? { error } : {}),
  };
}
