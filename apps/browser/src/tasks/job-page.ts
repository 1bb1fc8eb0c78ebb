import { encodeJson, publishDurable, RESULTS_SUBJECT } from "@browserfleet/bus";
import type { PageResult, PageTask, TaskReply } from "@browserfleet/contracts";
import { linksInMarkdown } from "@browserfleet/site";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Browser, Page } from "playwright-core";
import linksAndTitle from "../injected/generated/links-and-title.ts";
import type { EgressRoute } from "../net/egress-routes.ts";
import type { JobContexts } from "../page/job-contexts.ts";
import { withSeenAs } from "../page/places.ts";
import { runScrape, type ScrapeHooks } from "./scrape.ts";

/**
 * Every link target on the page as the browser resolved it (script-built links included), and the
 * page's title in the same call (the reply's metadata would otherwise ask for it on its own).
 */
async function linksAndTitleOf(page: Page, max: number): Promise<{ links: string[]; title?: string }> {
  return page.evaluate(linksAndTitle, max).catch(() => ({ links: [] }));
}

/**
 * Answer a page task the worker refused (malformed) on the results stream when it names its job, page
 * and task, so the job records the page as failed instead of waiting for its timeout.
 */
export async function publishRefusedPage(
  nc: NatsConnection,
  value: unknown,
  reply: TaskReply,
): Promise<void> {
  const v = (typeof value === "object" && value !== null ? value : {}) as Partial<Record<string, unknown>>;
  if (typeof v.jobId !== "string" || !Number.isInteger(v.pageId) || typeof v.taskId !== "string") return;
  const result: PageResult = { jobId: v.jobId, pageId: v.pageId as number, taskId: v.taskId, reply };
  await publishDurable(nc, RESULTS_SUBJECT, encodeJson(result), { msgID: v.taskId });
}

/**
 * One page of a batch or crawl. The result goes to the results stream before the task is acked (the
 * slot loop acks after this returns), so a worker that dies before publishing leaves the task to be
 * redelivered, and one that dies after publishing leaves a duplicate the jobs program ignores.
 */
export async function runPageTask(
  nc: NatsConnection,
  browser: Browser,
  route: EgressRoute,
  task: PageTask,
  hooks: ScrapeHooks,
  contexts: JobContexts,
): Promise<TaskReply> {
  let links: string[] | undefined;
  const reply = withSeenAs(
    await runScrape(
      browser,
      route.guard,
      task.request,
      {
        ...hooks,
        ...(task.discoverLinks ? { links: task.discoverLinks } : {}),
        onPage: task.discoverLinks
          ? async (page, early) => {
              // Read beside the markdown or html when a format read the DOM; else a call of its own.
              const read = early ?? (await linksAndTitleOf(page, task.discoverLinks ?? 0));
              links = read.links;
              return read.title === undefined ? undefined : { title: read.title };
            }
          : undefined,
      },
      (b, req) =>
        contexts.lease(b, task.jobId, req, {
          ...(task.profileState ? { profileState: task.profileState } : {}),
          ...(route.server ? { egress: route.server } : {}),
        }),
    ),
    task.request,
    route,
  );
  // A document has no page to read links from: a crawl takes them from its markdown instead.
  if (task.discoverLinks && links === undefined && reply.ok && reply.result.metadata.document) {
    const markdown = reply.result.data.markdown;
    if (typeof markdown === "string")
      links = linksInMarkdown(markdown, reply.result.metadata.url, task.discoverLinks);
  }
  const maxPayload = nc.info?.max_payload ?? 1024 * 1024;
  let payload = encodeJson({ jobId: task.jobId, pageId: task.pageId, taskId: task.taskId, reply, links });
  if (payload.byteLength > maxPayload) {
    const tooLarge: PageResult = {
      jobId: task.jobId,
      pageId: task.pageId,
      taskId: task.taskId,
      reply: {
        ok: false,
        error: {
          code: "result_too_large",
          message: `the page's result is ${payload.byteLength} bytes, more than the bus carries; ask for fewer or smaller formats`,
          status: 502,
        },
      },
      links,
    };
    payload = encodeJson(tooLarge);
  }
  // A publish that fails throws: the slot loop naks the task and it runs again later.
  await publishDurable(nc, RESULTS_SUBJECT, payload, { msgID: task.taskId });
  return reply;
}
