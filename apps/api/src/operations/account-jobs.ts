import { jobsPageQuery, jobsView } from "@browserfleet/contracts";
import { accountJobs as jobsOf } from "@browserfleet/job-store";
import { parseQuery } from "../validate.ts";
import { account } from "./account.ts";
import { money, requireKey, accountView as view } from "./account-access.ts";
import { defineOperation } from "./operation.ts";
import { timeCursor } from "./shared.ts";

export const accountJobs = defineOperation({
  name: "accountJobs",
  method: "GET",
  path: `${account.path}/jobs`,
  summary: "Batch and crawl jobs, newest first, with their progress",
  query: jobsPageQuery,
  response: jobsView,
  free: view("Batch and crawl jobs, newest first, with their progress", "AccountJobs"),
  fromHttp: (http) => http.query as unknown,
  run: async (ctx, query, { caller }) => {
    const auth = requireKey(caller);
    const q = parseQuery(jobsPageQuery, query);
    const cursor = timeCursor(q.cursor);
    const page = await jobsOf(ctx.db.db, auth.accountId, {
      limit: q.limit,
      ...(cursor ? { before: { createdAt: cursor.at, id: cursor.id } } : {}),
    });
    return {
      jobs: page.jobs.map((j) => {
        const req = j.request as { url?: string; urls?: string[] };
        return {
          jobId: j.id,
          kind: j.kind,
          status: j.status,
          url: req.url ?? req.urls?.[0] ?? null,
          ...(req.urls ? { urls: req.urls.length } : {}),
          limit: j.pageLimit,
          total: j.total,
          completed: j.completed,
          failed: j.failed,
          charged: money(j.chargedMicros),
          createdAt: j.createdAt.toISOString(),
          finishedAt: j.finishedAt?.toISOString() ?? null,
          statusPath: `/web/v1/${j.kind === "crawl" ? "crawl" : "scrape/batch"}/${j.id}`,
        };
      }),
      next: page.next ? `${page.next.createdAt.toISOString()}~${page.next.id}` : null,
    };
  },
});
