import type { BatchRequest, CrawlRequest, ScrapeRequest } from "@browserfleet/contracts";
import type { Database } from "@browserfleet/db";
import { schema } from "@browserfleet/db";
import { eq } from "drizzle-orm";

export type JobRequest = Partial<CrawlRequest & BatchRequest>;

/** The scrape request of one page of a job: the job's render options, for that url. */
export function pageRequestOf(request: JobRequest, url: string): ScrapeRequest {
  const {
    urls: _urls,
    url: _url,
    limit: _limit,
    maxDepth: _maxDepth,
    search: _search,
    includeSubdomains: _sub,
    includePaths: _inc,
    excludePaths: _exc,
    maxAge: _maxAge,
    ...render
  } = request;
  return { ...(render as Omit<ScrapeRequest, "url">), url };
}

export interface JobFacts {
  request: JobRequest;
  accountId: string;
}

/** A job's request and owner never change: read once per job, then kept (bounded). */
export class JobRequests {
  readonly #known = new Map<string, JobFacts | null>();

  constructor(private readonly db: Database) {}

  async of(jobId: string): Promise<JobFacts | null> {
    let facts = this.#known.get(jobId);
    if (facts === undefined) {
      const [row] = await this.db.db
        .select({ request: schema.jobs.request, accountId: schema.jobs.accountId })
        .from(schema.jobs)
        .where(eq(schema.jobs.id, jobId));
      facts = row ? { request: row.request as JobRequest, accountId: row.accountId } : null;
      this.#known.set(jobId, facts);
      if (this.#known.size > 5000) this.#known.delete(this.#known.keys().next().value as string);
    }
    return facts;
  }
}
