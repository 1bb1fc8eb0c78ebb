import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { after, before, describe, test } from "node:test";
import type { ScrapeRequest } from "@browserfleet/contracts";
import { parseAllowList } from "@browserfleet/ssrf";
import type { Browser, Page } from "playwright-core";
import { waitFor } from "../../../test/helpers/wait-for.ts";
import { ChromiumKeeper, findChromium } from "../src/chromium.ts";
import { type GuardProxy, startGuardProxy } from "../src/net/guard-proxy.ts";
import { newTaskContext } from "../src/page/context.ts";
import { type ContextLease, JobContexts } from "../src/page/job-contexts.ts";
import { runScrape } from "../src/tasks/scrape.ts";

let server: Server;
let base: string;
let proxy: GuardProxy;
let chromium: ChromiumKeeper;
let browser: Browser;

const html = (body: string) =>
  `<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`;

before(async () => {
  server = createServer((req, res) => {
    res.setHeader("content-type", "text/html");
    if (req.url === "/set") {
      res.setHeader("set-cookie", "visit=job-a; Path=/");
      res.end(html("<p>cookie set</p>"));
    } else if (req.url === "/echo") res.end(html(`<p>cookie value ${req.headers.cookie ?? "none"}</p>`));
    else if (req.url === "/popup") res.end(html(`<p>popup</p><script>window.open("/echo")</script>`));
    else res.end(html("<p>plain</p>"));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  proxy = await startGuardProxy(parseAllowList("127.0.0.1/32"));
  chromium = new ChromiumKeeper(findChromium()!, [
    `--proxy-server=${proxy.url}`,
    "--proxy-bypass-list=<-loopback>",
  ]);
  browser = await chromium.browser();
});
after(async () => {
  await chromium.close();
  await proxy.close();
  server.close();
});

const request = (path: string): ScrapeRequest =>
  ({ url: `${base}${path}`, formats: ["markdown"] }) as ScrapeRequest;

/** Scrape one page of `jobId` through the pool, and say whether the task got a page left by an earlier one. */
async function scrapeFor(pool: JobContexts, jobId: string, path: string) {
  let lent: ContextLease | undefined;
  const reply = await runScrape(browser, proxy, request(path), {}, async (b, req) => {
    lent = await pool.lease(b, jobId, req);
    return lent;
  });
  return { reply, reusedContext: lent?.reused, reusedPage: lent?.pageReused, context: lent?.context };
}

const markdownOf = (r: Awaited<ReturnType<typeof scrapeFor>>) =>
  r.reply.ok ? String(r.reply.result.data.markdown) : `error: ${r.reply.error.message}`;

describe("job contexts", () => {
  test("pages of one job share cookies and pages; another job sees none of them", async () => {
    const pool = new JobContexts(newTaskContext, { idleMs: 60_000, maxPages: 100 });
    try {
      const first = await scrapeFor(pool, "job-a", "/set");
      assert.equal(first.reusedContext, false);
      const second = await scrapeFor(pool, "job-a", "/echo");
      assert.match(markdownOf(second), /cookie value visit=job-a/);
      assert.equal(second.reusedContext, true);
      assert.equal(second.reusedPage, true, "the finished page serves the next task of the job");

      const other = await scrapeFor(pool, "job-b", "/echo");
      assert.match(markdownOf(other), /cookie value none/);
      assert.equal(other.reusedContext, false);
      assert.equal(pool.size(), 2);
    } finally {
      await pool.closeAll();
    }
  });

  test("a page whose navigation failed is closed, not handed to the next task", async () => {
    const pool = new JobContexts(newTaskContext, { idleMs: 60_000, maxPages: 100 });
    try {
      await scrapeFor(pool, "job", "/plain");
      let lent: ContextLease | undefined;
      const refused = await runScrape(
        browser,
        proxy,
        { url: "http://127.0.0.1:9/", formats: ["markdown"] } as ScrapeRequest,
        {},
        async (b, req) => {
          lent = await pool.lease(b, "job", req);
          return lent;
        },
      );
      assert.equal(refused.ok, false);
      assert.ok(lent?.page, "the failed task got the page the first one left");
      assert.ok(lent.page.isClosed(), "and it was closed after the failure");
      const next = await scrapeFor(pool, "job", "/plain");
      assert.equal(next.reusedContext, true);
      assert.equal(next.reusedPage, false, "no page was left to reuse");
      assert.match(markdownOf(next), /plain/);
    } finally {
      await pool.closeAll();
    }
  });

  test("a context retires after maxPages, and closes when the job goes idle", async () => {
    const pool = new JobContexts(newTaskContext, { idleMs: 400, maxPages: 2 });
    try {
      await scrapeFor(pool, "job", "/set");
      assert.equal((await scrapeFor(pool, "job", "/echo")).reusedContext, true);
      const third = await scrapeFor(pool, "job", "/echo");
      assert.equal(third.reusedContext, false, "a fresh context after two pages");
      assert.match(markdownOf(third), /cookie value none/);
      const contexts = browser.contexts().length;
      let closed = false;
      third.context!.once("close", () => {
        closed = true;
      });
      assert.equal(pool.size(), 1, "not closed at once: the job may have more pages");
      await waitFor("the idle job's context to close", () => closed, 5_000, 20);
      assert.equal(pool.size(), 0);
      assert.equal(browser.contexts().length, contexts - 1, "the idle job's context is closed");
    } finally {
      await pool.closeAll();
    }
  });

  test("a window a page opens by itself is closed", async () => {
    const pool = new JobContexts(newTaskContext, { idleMs: 60_000, maxPages: 100 });
    try {
      let lent: ContextLease | undefined;
      const opened: Page[] = [];
      await runScrape(browser, proxy, request("/popup"), {}, async (b, req) => {
        lent = await pool.lease(b, "job", req);
        // Seen from before the task's navigation: the window its page opens, and the page itself if new.
        lent.context.on("page", (p) => opened.push(p));
        return lent;
      });
      const context = lent!.context;
      await waitFor(
        "the window the page opened to be closed",
        () => opened.some((p) => p.isClosed()),
        5_000,
        20,
      );
      assert.equal(context.pages().length, 1, "only the task's own page stays open");
    } finally {
      await pool.closeAll();
    }
  });
});
