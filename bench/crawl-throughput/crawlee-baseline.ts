/**
 * The baseline of the crawl-throughput bench: Crawlee's PlaywrightCrawler crawling a site from its
 * start page, same hostname only, at a fixed concurrency (min = max = N), every page to markdown with
 * turndown (the same options as bench/scrape-latency's bare Playwright). Runs on the machine's
 * Chromium through the `playwright` package.
 *
 * The harness runs it as a child process, one per round, so each crawl starts from a clean Crawlee
 * (fresh request queue, no global state left over); it prints one JSON line (`CrawleeResult`) on stdout:
 *
 *   npx tsx bench/crawl-throughput/crawlee-baseline.ts --url http://127.0.0.1:PORT/ [--concurrency 4] [--limit 200]
 *     [--direct] [--incognito] [--strict-limit]
 *
 * Crawlee configuration, and why:
 *   - storage: memory only (`persistStorage: false`) in a fresh temporary CRAWLEE_STORAGE_DIR that is
 *     removed at the end, so nothing lands in ./storage of the repository.
 *   - browser fingerprints off (`useFingerprints: false`): the injected fingerprint scripts cost time per
 *     page and are no part of converting pages to markdown; it only makes Crawlee faster.
 *   - `retireBrowserAfterPageCount` raised above the crawl size: by default Crawlee replaces its browser
 *     after 100 pages, which would put a browser launch in the middle of a 200-page crawl.
 *   - `maxRequestsPerCrawl` is 10 × limit, not the limit (200): the site has exactly 200 pages, so the
 *     crawl is the same, but with the cap at 200 Crawlee 3.18 slows itself down near the end. Its
 *     enqueueLinks then adds links in chunks of the remaining budget (maxRequestsPerCrawl − handled −
 *     pending, down to 1–5) and sleeps `waitBetweenBatchesMillis` (1 s) between chunks, and waits for all
 *     of them (request_provider.js addRequestsBatched with maxNewRequests): pages with 20–30 links, most
 *     already queued, sat 3–30 s in enqueueLinks, one past the 60 s handler timeout (then retried, so
 *     fetched twice). That cost Crawlee about 30% here. `--strict-limit` puts the cap back at the limit.
 *   - `requestHandlerTimeoutSecs: 300` (default 60), so a slow handler on a loaded machine is not retried.
 *   - no robots.txt check, no retries needed (the site never fails), and Crawlee's default of one
 *     shared (persistent) browser context, so the browser cache and renderer processes carry over
 *     from page to page. `--incognito` gives each page a fresh context instead (`useIncognitoPages`),
 *     the isolation our worker has (a new context per page).
 *   - timing (`crawlMs`) runs from the first navigation to the last page's markdown, so Crawlee's browser
 *     launch is not counted (our service keeps a warm browser); `runMs` is the whole `crawler.run()`.
 *   - Crawlee routes Playwright through a local proxy-chain server of its own (browser-pool's
 *     playwright-plugin), and Playwright sends loopback through a proxy too: that is how Crawlee fetches
 *     any site, so it stays on. `--direct` sets PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK=1
 *     (before Playwright loads) to measure Crawlee without that hop to 127.0.0.1.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import TurndownService from "turndown";
import { diffByKind, treeCpuByKind, treeCpuMs } from "./cpu.ts";

export interface CrawleeResult {
  pages: number;
  failed: number;
  markdownBytes: number;
  /** First navigation started → last page converted to markdown. */
  crawlMs: number;
  /** The whole crawler.run(), browser launch and teardown included. */
  runMs: number;
  /** CPU time (user + system) of this Node process during crawler.run(), Chromium not included. */
  nodeCpuMs: number;
  /** CPU time of this process and its Chromium up to the last page done (see cpu.ts), if /proc is there. */
  treeCpuMs?: number;
  /** treeCpuMs split by kind of process (cpu.ts), largest first. */
  byKind?: Array<[string, number]>;
}

export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export async function runCrawlee(opts: {
  url: string;
  concurrency: number;
  limit: number;
  executablePath?: string;
  /** A fresh incognito context per page (Crawlee's `useIncognitoPages`) instead of one shared context. */
  incognito?: boolean;
  /** maxRequestsPerCrawl = limit (default: 10 × limit, see the header). */
  strictLimit?: boolean;
}): Promise<CrawleeResult> {
  const storageDir = await mkdtemp(join(tmpdir(), "crawlee-bench-"));
  // Set before Crawlee reads its configuration (it reads the environment when the module loads).
  process.env.CRAWLEE_STORAGE_DIR = storageDir;
  process.env.CRAWLEE_PERSIST_STORAGE = "false";
  process.env.CRAWLEE_PURGE_ON_START = "true";
  const { Configuration, PlaywrightCrawler, log } = await import("crawlee");
  const { chromium } = await import("playwright");
  log.setLevel(log.LEVELS.WARNING);

  const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced" });
  turndown.remove(["script", "style", "noscript"]);

  let pages = 0;
  let markdownBytes = 0;
  let firstNav = Number.POSITIVE_INFINITY;
  let lastDone = 0;
  let lastTree: number | undefined;
  let lastKinds: Map<string, number> | undefined;
  const config = new Configuration({ persistStorage: false, purgeOnStart: true, headless: true });
  const crawler = new PlaywrightCrawler(
    {
      minConcurrency: opts.concurrency,
      maxConcurrency: opts.concurrency,
      maxRequestsPerCrawl: opts.strictLimit ? opts.limit : 10 * opts.limit,
      maxRequestRetries: 1,
      // A handler that times out is retried, and the page fetched twice; the site never hangs.
      requestHandlerTimeoutSecs: 300,
      headless: true,
      launchContext: {
        launcher: chromium,
        useIncognitoPages: opts.incognito ?? false,
        launchOptions: {
          executablePath: opts.executablePath ?? "/usr/bin/chromium",
          args: CHROMIUM_ARGS,
        },
      },
      browserPoolOptions: {
        useFingerprints: false,
        retireBrowserAfterPageCount: 10 * opts.limit,
      },
      preNavigationHooks: [
        () => {
          firstNav = Math.min(firstNav, performance.now());
        },
      ],
      async requestHandler({ page, enqueueLinks }) {
        const html = await page.content();
        const markdown = turndown.turndown(html);
        if (!markdown) throw new Error("empty markdown");
        markdownBytes += Buffer.byteLength(markdown);
        await enqueueLinks({ strategy: "same-hostname" });
        pages++;
        lastDone = performance.now();
        // Chromium's CPU must be read while it runs: once crawler.run() closes it, what its renderers
        // used is lost to the count. So read it after each of the last pages, and keep the last reading.
        if (pages > opts.limit - 2 * opts.concurrency) {
          lastTree = treeCpuMs(process.pid);
          lastKinds = treeCpuByKind(process.pid);
        }
      },
    },
    config,
  );
  const started = performance.now();
  const cpu = process.cpuUsage();
  const tree = treeCpuMs(process.pid);
  const kindsBefore = treeCpuByKind(process.pid);
  try {
    const stats = await crawler.run([opts.url]);
    const runMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    return {
      pages,
      failed: stats.requestsFailed,
      markdownBytes,
      crawlMs: lastDone - firstNav,
      runMs,
      nodeCpuMs: (used.user + used.system) / 1000,
      ...(tree !== undefined && lastTree !== undefined ? { treeCpuMs: lastTree - tree } : {}),
      byKind: diffByKind(kindsBefore, lastKinds),
    };
  } finally {
    await crawler.teardown().catch(() => {});
    await rm(storageDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      url: { type: "string" },
      concurrency: { type: "string", default: "4" },
      limit: { type: "string", default: "200" },
      chromium: { type: "string", default: "/usr/bin/chromium" },
      direct: { type: "boolean", default: false },
      incognito: { type: "boolean", default: false },
      "strict-limit": { type: "boolean", default: false },
    },
  });
  if (!values.url) throw new Error("--url is required");
  if (values.direct) process.env.PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK = "1";
  const result = await runCrawlee({
    url: values.url,
    concurrency: Number(values.concurrency),
    limit: Number(values.limit),
    executablePath: values.chromium,
    incognito: values.incognito,
    strictLimit: values["strict-limit"],
  });
  process.stdout.write(`${JSON.stringify(result)}\n`);
  // Crawlee leaves timers and its proxy server behind; the result is out, so end here.
  process.exit(0);
}
