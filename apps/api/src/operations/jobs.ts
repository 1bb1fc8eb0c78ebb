import { newId, placeHold, settleHold } from "@browserfleet/billing";
import { JOBS_WAKE_SUBJECT } from "@browserfleet/bus";
import {
  type BatchRequest,
  type CrawlRequest,
  type Format,
  type JobStartResponse,
  type JobStatusResponse,
  jobQuery,
  jobStatusResponse,
  LINE,
  text,
} from "@browserfleet/contracts";
import { cancelJob, createJob, findJob, type JobKind, jobView, type NewPage } from "@browserfleet/job-store";
import {
  definePrice,
  line,
  POOL_WORDS,
  type PoolPrice,
  type PriceRule,
  pageMicros,
  poolLines,
  total,
  usd,
} from "@browserfleet/pricing";
import { normalizeUrl } from "@browserfleet/site";
import { z } from "zod";
import { filesByUrl, publicBase } from "../answers/artifacts.ts";
import { type Caller, HOW_TO_GET_A_KEY, paymentSetup } from "../billing/payment.ts";
import { paymentRequired } from "../billing/unpaid.ts";
import type { ApiContext } from "../context.ts";
import { egressPoolFor } from "../egress/egress.ts";
import { ApiError } from "../errors.ts";
import { profileFor } from "../profiles/profiles.ts";
import { parseQuery } from "../validate.ts";
import { defineOperation, STATUS, type ToolSpec } from "./operation.ts";
import { checkJsonOptions, numericCursor, precheckUrl } from "./shared.ts";

/* What batch and crawl share: starting a job, and the status and cancel operations of each kind. */

const JOB_ID = /^job_[0-9A-Za-z]{8,64}$/;
const money = (micros: number) => ({ usd: usd(micros), micros });

const needsKey = (kind: JobKind) =>
  `${kind === "crawl" ? "a crawl" : "a batch scrape"} needs an API key (it is not part of the keyless allowance or wallet payments)`;

function requireKey(caller: Caller, kind: JobKind): { accountId: string } {
  if (!caller.auth) throw new ApiError("key_required", `${needsKey(kind)}. ${HOW_TO_GET_A_KEY}`);
  return caller.auth;
}

function pagesOf(kind: JobKind, req: BatchRequest | CrawlRequest): NewPage[] {
  const urls = kind === "batch" ? (req as BatchRequest).urls : [(req as CrawlRequest).url];
  return urls.map((url) => {
    const key = normalizeUrl(url) ?? url;
    return { url, urlKey: key, depth: 0 };
  });
}

/** What a job holds up front: every page it may scrape at the page price. */
export type JobPrice = PriceRule<{ pages: number; formats: readonly Format[]; pool?: PoolPrice | undefined }>;

/** A job's price: `pages` (its urls, or its limit) at the price of a page with its formats. */
export const jobPrice = (brief: string, words: string): JobPrice =>
  definePrice({
    brief,
    words: `${words} ${POOL_WORDS}`,
    quote: ({ pages, formats, pool }) =>
      total([line(`page (${formats.join(", ")})`, pages, pageMicros(formats)), ...poolLines(pool, pages)]),
  });

/**
 * Start a batch or crawl: hold the most it can cost (every page at the page price), record the job and
 * its first pages, wake the jobs program, answer at once. Pages capture from the hold as they come out;
 * the rest goes back when the job ends or is cancelled.
 */
export async function startJob(
  ctx: ApiContext,
  caller: Caller,
  kind: JobKind,
  req: BatchRequest | CrawlRequest,
  /** Where the job was started: its status is at path/jobId. */
  path: string,
  price: JobPrice,
): Promise<JobStartResponse> {
  checkJsonOptions(req.json);
  if (kind === "batch") {
    for (const [i, url] of (req as BatchRequest).urls.entries()) await precheckUrl(ctx, url, `urls.${i}`);
  } else await precheckUrl(ctx, (req as CrawlRequest).url);
  // A receiver the service may never call is refused now (and checked again, after DNS, at every delivery).
  if (req.webhook) await precheckUrl(ctx, req.webhook.url, "webhook.url");
  // A profile the account does not have is refused now, not page by page.
  await profileFor(ctx, caller, req.profile);
  const pool = await egressPoolFor(ctx, req);
  const pages = pagesOf(kind, req);
  const distinct = new Set(pages.map((p) => p.urlKey)).size;
  const limit = kind === "batch" ? distinct : (req as CrawlRequest).limit;
  const perPage = pageMicros(req.formats) + (pool?.priceMicros ?? 0);
  const quote = price.quote({ pages: limit, formats: req.formats, pool });
  if (!caller.auth) {
    // Over REST the spec's 402 quote (what a key's balance would hold); over MCP the free allowance
    // does not cover jobs.
    if (caller.allowanceClient === undefined)
      throw paymentRequired({
        priceMicros: quote.micros,
        wallets: paymentSetup(ctx).wallets,
        keyOnly: needsKey(kind),
      });
    throw new ApiError("key_required", `${needsKey(kind)}. ${HOW_TO_GET_A_KEY}`, undefined, undefined, {
      price: money(quote.micros),
    });
  }
  const auth = caller.auth;
  const now = Date.now();
  const deadlineAt = new Date(now + ctx.config.JOB_MAX_MS);
  const hold = await placeHold(ctx.db.db, {
    accountId: auth.accountId,
    micros: quote.micros,
    route: kind,
    requestId: caller.requestId,
    // The jobs program closes the hold when the job ends; the reaper only steps in if it never does.
    ttlMs: ctx.config.JOB_MAX_MS + 15 * 60_000,
  });
  if (!hold.ok)
    throw new ApiError(
      "insufficient_balance",
      `this ${kind} may cost up to ${usd(quote.micros)} (${limit} pages at ${usd(perPage)}) and the balance is ${usd(hold.balanceMicros)}; top up or lower ${kind === "crawl" ? "limit" : "the number of urls"}`,
      undefined,
      undefined,
      { price: money(quote.micros), balance: money(hold.balanceMicros) },
    );
  const jobId = newId("job");
  const { webhook, ...request } = req;
  let expiresAt: Date;
  try {
    const job = await createJob(ctx.db.db, {
      id: jobId,
      kind,
      accountId: auth.accountId,
      requestId: caller.requestId,
      request,
      ...(webhook
        ? { webhook: { ...webhook, statusUrl: `${publicBase(ctx.config, caller.baseUrl)}${path}/${jobId}` } }
        : {}),
      holdId: hold.holdId,
      pageMicros: perPage,
      pageLimit: limit,
      pages,
      deadlineAt,
      expiresAt: new Date(deadlineAt.getTime() + ctx.config.JOB_RETENTION_MS),
    });
    expiresAt = job.expiresAt;
  } catch (err) {
    await settleHold(ctx.db.db, hold.holdId, 0, "the job could not be recorded");
    throw err;
  }
  ctx.nc.publish(JOBS_WAKE_SUBJECT);
  caller.setHeader("X-Held-Usd", usd(quote.micros));
  return {
    success: true,
    jobId,
    status: "queued",
    url: `${path}/${jobId}`,
    expiresAt: expiresAt.toISOString(),
    held: money(quote.micros),
  };
}

const notFound = (kind: JobKind, id: string) =>
  new ApiError(
    "not_found",
    `no ${kind} job ${id} for this key (jobs are kept for a while after they end, then deleted)`,
  );

async function jobStatus(
  ctx: ApiContext,
  caller: Caller,
  kind: JobKind,
  id: string,
  query: unknown,
): Promise<JobStatusResponse> {
  const auth = requireKey(caller, kind);
  const q = parseQuery(jobQuery, query);
  const cursor = numericCursor(q.cursor);
  const job = JOB_ID.test(id) ? await findJob(ctx.db.db, auth.accountId, kind, id) : undefined;
  if (!job) throw notFound(kind, id);
  const view = await jobView(ctx.db.db, job, { limit: q.limit, cursor });
  if ((job.request as { binaryAs?: string }).binaryAs === "url") {
    // Stored when first read, under names made from the job, page and format: read again, the same links.
    const base = publicBase(ctx.config, caller.baseUrl);
    for (const page of view.data)
      if (page.data)
        await filesByUrl(
          ctx.artifacts,
          page as Parameters<typeof filesByUrl>[1],
          base,
          (err) => console.error(`artifact store failed: ${(err as Error).message}`),
          { seed: `${job.id}\n${page.url}`, expiresAt: job.expiresAt.getTime() },
        );
  }
  return view;
}

async function jobCancel(ctx: ApiContext, caller: Caller, kind: JobKind, id: string) {
  const auth = requireKey(caller, kind);
  const job = JOB_ID.test(id)
    ? await cancelJob(ctx.db.db, auth.accountId, kind, id, ctx.config.JOB_RETENTION_MS)
    : undefined;
  if (!job) throw notFound(kind, id);
  ctx.nc.publish(JOBS_WAKE_SUBJECT);
  return jobView(ctx.db.db, job, { limit: 0 });
}

/** A job status tool's arguments: the GET status route's path and query. */
const statusArgs = z.strictObject({
  jobId: text(LINE).min(1).max(200),
  cursor: text(LINE)
    .max(100)
    .optional()
    .describe("The `next` value of the previous status, for more results"),
  limit: z.int().min(1).max(200).default(50).describe("Page results per call"),
});

/** GET <start path>/{id}: a job's status and its next finished pages (free, the job's key only). */
export function jobStatusOperation(
  kind: JobKind,
  startPath: string,
  order: string,
  tool: Pick<ToolSpec<unknown, unknown>, "name" | "title">,
) {
  return defineOperation({
    name: `${kind}Status`,
    method: "GET",
    path: `${startPath}/{id}`,
    summary: `Status, counts and the next finished pages of a ${kind} job (free; follow \`next\` as \`cursor\` for more)`,
    params: { id: `The jobId of the ${kind}` },
    request: statusArgs,
    query: jobQuery,
    response: jobStatusResponse,
    free: { tags: ["jobs"], auth: "key", ok: "The job", errors: [401, 404, 429], responseName: "JobStatus" },
    tool: {
      ...tool,
      annotations: STATUS,
      description: `Status, counts and the next finished page results of a ${kind} job, in ${order} order. Call again with cursor = next while status is queued or running. Free.`,
      toInput: (args) => ({ jobId: args.jobId, query: { cursor: args.cursor, limit: args.limit } }),
    },
    fromHttp: (http) => ({ jobId: String(http.params.id), query: http.query as unknown }),
    run: (ctx, input, call) => jobStatus(ctx, call.caller, kind, input.jobId, input.query),
  });
}

/** DELETE <start path>/{id}: cancel a job, giving back what its unused pages held (free, the job's key only). */
export function jobCancelOperation(kind: JobKind, startPath: string) {
  return defineOperation({
    name: `${kind}Cancel`,
    method: "DELETE",
    path: `${startPath}/{id}`,
    summary: `Cancel a ${kind} job: queued pages are dropped and their hold refunded (free)`,
    params: { id: `The jobId of the ${kind}` },
    response: jobStatusResponse,
    free: {
      tags: ["jobs"],
      auth: "key",
      ok: "The job after cancelling",
      errors: [401, 404, 429],
      responseName: "JobStatus",
    },
    fromHttp: (http) => ({ jobId: String(http.params.id) }),
    run: (ctx, input: { jobId: string }, call) => jobCancel(ctx, call.caller, kind, input.jobId),
  });
}
