import type { PageResult, ScrapeRequest } from "@browserfleet/contracts";
import type { Database } from "@browserfleet/db";
import { schema } from "@browserfleet/db";
import { completeJson, type JsonDeps } from "@browserfleet/extract";
import { eq } from "drizzle-orm";

/**
 * The json format of batch and crawl pages: browsers render markdown for it (see browserRequest), and
 * the model runs here, before the page is recorded, so a page is charged for json only when it came out.
 */
export class JsonPages {
  /** A job's request never changes: job id → its render options when they ask for json, else null. */
  readonly #wanted = new Map<string, ScrapeRequest | null>();

  constructor(
    private readonly db: Database,
    private readonly deps: JsonDeps,
  ) {}

  async complete(r: PageResult): Promise<PageResult> {
    if (!r.reply.ok) return r;
    const req = await this.#requestOf(r.jobId);
    if (!req) return r;
    return { ...r, reply: { ok: true, result: await completeJson(req, r.reply.result, this.deps) } };
  }

  async #requestOf(jobId: string): Promise<ScrapeRequest | null> {
    let req = this.#wanted.get(jobId);
    if (req === undefined) {
      const [row] = await this.db.db
        .select({ request: schema.jobs.request })
        .from(schema.jobs)
        .where(eq(schema.jobs.id, jobId));
      const request = row?.request as ScrapeRequest | undefined;
      req = request?.formats?.includes("json") && request.json ? request : null;
      this.#wanted.set(jobId, req);
      if (this.#wanted.size > 5000) this.#wanted.delete(this.#wanted.keys().next().value as string);
    }
    return req;
  }
}
