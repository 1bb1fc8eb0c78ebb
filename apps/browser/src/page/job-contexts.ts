import type { ScrapeRequest } from "@browserfleet/contracts";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { skipMedia, textFormatsOnly } from "./block-rules.ts";
import { closePage } from "./close-page.ts";
import { type ContextExtras, contextOptionsFor } from "./context.ts";

/** A context lent to one task; `release` hands it back (it closes it when it is not shared). */
export interface ContextLease {
  context: BrowserContext;
  /** True when earlier pages of the same job used this context (cookies and HTTP cache carry over). */
  reused: boolean;
  /**
   * The page to navigate: one an earlier task of the same job left open (`pageReused`), or, for a job
   * whose formats need no media, a new one already set to skip them. Absent: the task opens its own.
   */
  page?: Page;
  /** True when `page` was left open by an earlier task of the same job. */
  pageReused?: boolean;
  /** `keep` is a page fit to serve the job's next task; without it the task's page is closed. */
  release(keep?: Page): Promise<void>;
}

export type ContextFactory = (
  browser: Browser,
  req: ScrapeRequest,
  extras?: Pick<ContextExtras, "profileState" | "egress">,
) => Promise<BrowserContext>;

export interface JobContextOptions {
  /** Close a job's context after this long without a page. */
  idleMs: number;
  /** Retire a context after this many pages, so one long crawl does not grow one context forever. */
  maxPages: number;
}

interface Entry {
  browser: Browser;
  shape: string;
  context: Promise<BrowserContext>;
  served: number;
  active: number;
  retired: boolean;
  idle?: NodeJS.Timeout;
  /** Pages left open by finished tasks. A new page costs a renderer process; navigating one does not. */
  spare: Page[];
  /** The job's formats need no images, fonts or media: its pages never fetch them. */
  textOnly: boolean;
}

/**
 * The request options a context is built from (all its creation options: viewport, device, location,
 * user agent, headers, credentials), its block rules and whether its pages skip media; pages of one job share
 * them, but check anyway.
 */
const shapeOf = (req: ScrapeRequest, egress?: string) =>
  JSON.stringify([contextOptionsFor(req, egress), req.block, textFormatsOnly(req)]);

/**
 * Browser contexts shared by the pages of one batch or crawl job on this worker, the way a crawler
 * keeps one browser profile per crawl: later pages reuse the HTTP cache (CSS, images, fonts), the
 * connections, the cookies the site set, and open pages (a new page costs a renderer process), which
 * makes a page several times cheaper than a fresh context. Jobs never share: a job belongs to one
 * caller, and the key is its id.
 */
export class JobContexts {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly create: ContextFactory,
    private readonly opts: JobContextOptions,
  ) {}

  /** Open jobs' contexts on this worker (for metrics and tests). */
  size(): number {
    return this.entries.size;
  }

  /**
   * `extras.profileState`: the job's profile, loaded when the job's context is made (its later pages share
   * it); `extras.egress`: the route to the job's egress proxy.
   */
  async lease(
    browser: Browser,
    jobId: string,
    req: ScrapeRequest,
    extras: Pick<ContextExtras, "profileState" | "egress"> = {},
  ): Promise<ContextLease> {
    let entry = this.entries.get(jobId);
    const usable =
      entry &&
      !entry.retired &&
      entry.browser === browser &&
      browser.isConnected() &&
      entry.shape === shapeOf(req, extras.egress) &&
      entry.served + entry.active < this.opts.maxPages;
    if (entry && !usable) this.retire(jobId, entry);
    const reused = Boolean(usable);
    if (!usable) {
      entry = {
        browser,
        shape: shapeOf(req, extras.egress),
        context: this.create(browser, req, extras).then(prepare),
        served: 0,
        active: 0,
        retired: false,
        spare: [],
        textOnly: textFormatsOnly(req),
      };
      this.entries.set(jobId, entry);
    }
    const e = entry as Entry;
    clearTimeout(e.idle);
    e.active++;
    let context: BrowserContext;
    try {
      context = await e.context;
    } catch (err) {
      e.active--;
      this.retire(jobId, e);
      throw err;
    }
    let page = e.spare.pop();
    while (page?.isClosed()) page = e.spare.pop();
    const pageReused = page !== undefined;
    if (!page && e.textOnly) {
      // Set up before its first navigation: a new page of a text-only job skips images, fonts and media.
      try {
        page = await context.newPage();
        await skipMedia(page);
      } catch (err) {
        if (page) await closePage(page);
        e.active--;
        this.retire(jobId, e);
        throw err;
      }
    }
    let released = false;
    return {
      context,
      reused,
      ...(page ? { page } : {}),
      pageReused,
      release: async (keep?: Page) => {
        if (released) return;
        released = true;
        e.active--;
        e.served++;
        if (e.retired) {
          if (keep) await closePage(keep);
          if (e.active === 0) await closeQuietly(e);
          return;
        }
        if (keep && !keep.isClosed()) e.spare.push(keep);
        if (e.active === 0) {
          e.idle = setTimeout(() => void this.retire(jobId, e), this.opts.idleMs);
          e.idle.unref();
        }
      },
    };
  }

  /** Close every context (worker stopping); pages still open in them fail, as the browser is going too. */
  async closeAll(): Promise<void> {
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(
      all.map((e) => {
        e.retired = true;
        clearTimeout(e.idle);
        return closeQuietly(e);
      }),
    );
  }

  private retire(jobId: string, e: Entry): void {
    e.retired = true;
    clearTimeout(e.idle);
    if (this.entries.get(jobId) === e) this.entries.delete(jobId);
    if (e.active === 0) void closeQuietly(e);
  }
}

/**
 * What a job's context adds to a task's: pages a site opens by itself (window.open), which have no task
 * to close them, closed at once.
 */
async function prepare(context: BrowserContext): Promise<BrowserContext> {
  context.on("page", (page) => {
    void page
      .opener()
      .then((opener) => (opener ? page.close() : undefined))
      .catch(() => {});
  });
  return context;
}

async function closeQuietly(e: Entry): Promise<void> {
  const context = await e.context.catch(() => undefined);
  await context?.close().catch(() => {});
}
