import type { ScrapeRequest, ScrapeResponse, TaskReply } from "@browserfleet/contracts";
import type { Browser, Page } from "playwright-core";
import { failureOf } from "../errors.ts";
import { renderFormats } from "../formats/render.ts";
import type { GuardProxy } from "../net/guard-proxy.ts";
import { closePage } from "../page/close-page.ts";
import { addRequestCookies, freshContext } from "../page/context.ts";
import { pageFacts } from "../page/facts.ts";
import type { ContextLease } from "../page/job-contexts.ts";
import { openPage, waitForSelector } from "../page/navigation.ts";
import { scrapeDocument } from "./document.ts";
import type { ScrapeHooks } from "./hooks.ts";

export type { ScrapeHooks } from "./hooks.ts";

/**
 * One scrape: one navigation, every requested format. The context is a fresh one unless `lease`
 * lends one (a job's pages share theirs); either way the page is closed and the lease returned.
 */
export async function runScrape(
  browser: Browser,
  proxy: GuardProxy,
  req: ScrapeRequest,
  hooks: ScrapeHooks = {},
  lease: (browser: Browser, req: ScrapeRequest) => Promise<ContextLease> = freshContext,
): Promise<TaskReply> {
  const started = performance.now();
  let held: ContextLease | undefined;
  let openedPage: Page | undefined;
  let reusable = false;
  try {
    held = await lease(browser, req);
    const { context } = held;
    if (held.reused) await addRequestCookies(context, req);
    const opened = await openPage(context, proxy, req, {
      documents: true,
      ...(held.page ? { page: held.page } : {}),
    });
    const { page, status, document } = opened;
    openedPage = page;
    if (document) {
      // A document is converted without the browser; undefined means its bytes were a page after all.
      const result = await scrapeDocument({ context, page, proxy, req, candidate: document, started, hooks });
      if (result) {
        reusable = false;
        return { ok: true, result };
      }
      await waitForSelector(page, req, req.wait?.timeout ?? 30_000, Date.now());
    }
    const outcome = await renderFormats(page, req, req.formats, hooks.links);
    for (const [f, ms] of Object.entries(outcome.timings)) hooks.onFormat?.(f, ms, f in outcome.data);
    const read = await hooks.onPage?.(page, outcome.read);
    const result: ScrapeResponse = {
      success: Object.keys(outcome.data).length > 0,
      data: outcome.data,
      errors: outcome.errors,
      metadata: {
        ...(await pageFacts(
          page,
          outcome,
          req.url !== undefined,
          opened,
          read ? Promise.resolve(read.title) : undefined,
        )),
        statusCode: status,
        formats: req.formats,
        renders: req.formats.length,
        browserMsUsed: Math.round(performance.now() - started),
        ms: 0,
      },
    };
    reusable = true;
    return { ok: true, result };
  } catch (err) {
    return { ok: false, error: failureOf(err) };
  } finally {
    // Only a page that rendered cleanly may serve the job's next task; any other is closed.
    const keep = reusable && openedPage && !openedPage.isClosed() ? openedPage : undefined;
    // A lease that owns its context closes the page with it.
    if (!keep && openedPage && !(held && "ownsContext" in held)) await closePage(openedPage);
    await held?.release(keep);
  }
}
