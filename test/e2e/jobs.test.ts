import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { deleteExpiredJobs } from "@browserfleet/job-store";
import { type Stack, startStack, waitJob as waitJobOf } from "../helpers/stack.ts";
import { waitFor } from "../helpers/wait-for.ts";

let stack: Stack;
before(async () => {
  stack = await startStack({ slots: 3 });
});
after(async () => {
  await stack?.stop();
});

const auth = (key: string) => ({ authorization: `Bearer ${key}` });
const balance = async (key: string) =>
  (await stack.call("GET", "/web/v1/account", auth(key))).body as {
    balance: { micros: number };
    held: { micros: number };
  };

const waitJob = (path: string, key: string, timeoutMs?: number) => waitJobOf(stack, path, key, timeoutMs);

/**
 * Page tasks queued or running on the worker, plus page results the jobs program has not read yet: the
 * sum of its fleet_queue_depth gauges, which it reads from the streams when /metrics is asked.
 */
async function jobsBacklog(): Promise<number> {
  const text = await (await fetch(stack.jobs!.metricsUrl!)).text();
  return [...text.matchAll(/^fleet_queue_depth\{[^}]*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
}

describe("batch scrape", () => {
  test("scrapes every url once, keeps their order, keeps a failed page's url and reason, and charges only pages that came out", async () => {
    const { key } = await stack.newKey(1_000_000);
    const urls = [
      `${stack.site.url}/article`,
      `${stack.site.url}/page2`,
      "http://127.0.0.1:1/refused",
      `${stack.site.url}/article#again`,
    ];
    const start = await stack.post(
      "/web/v1/scrape/batch",
      { urls, formats: ["markdown", "links"] },
      auth(key),
    );
    assert.equal(start.status, 200, JSON.stringify(start.body));
    assert.match(start.body.jobId, /^job_/);
    assert.equal(start.body.url, `/web/v1/scrape/batch/${start.body.jobId}`);
    // Three distinct pages (the fragment is the same page), two formats each, held up front.
    assert.equal(start.body.held.micros, 3 * 2 * 1_000);
    const during = await balance(key);
    assert.equal(during.balance.micros + during.held.micros, 1_000_000);

    const done = await waitJob(start.body.url, key);
    assert.equal(done.status, "completed");
    assert.equal(done.total, 3);
    assert.equal(done.completed, 2);
    assert.equal(done.failed, 1);
    assert.deepEqual(
      done.data.map((p: { url: string }) => p.url),
      urls.slice(0, 3),
    );
    assert.match(done.data[0].data.markdown, /\S/);
    assert.ok(Array.isArray(done.data[1].data.links));
    assert.equal(done.data[2].status, "failed");
    assert.equal(done.data[2].error.code, "upstream_failed");
    assert.equal(done.next, null);
    assert.equal(done.charged.micros, 2 * 2 * 1_000);
    const after = await balance(key);
    assert.equal(after.balance.micros, 1_000_000 - 4_000, "the failed page's hold came back");
    assert.equal(after.held.micros, 0);
  });

  test("with maxAge, pages already rendered come from the cache at the cached price, and job renders fill it", async () => {
    const { key } = await stack.newKey(1_000_000);
    const first = await stack.post("/web/v1/scrape", { url: `${stack.site.url}/page2?cache=1` }, auth(key));
    assert.equal(first.status, 200);
    const fetchedBefore = stack.site.hits("/page2");
    const start = await stack.post(
      "/web/v1/scrape/batch",
      { urls: [`${stack.site.url}/page2?cache=1`, `${stack.site.url}/article?cache=1`], maxAge: 600_000 },
      auth(key),
    );
    assert.equal(start.status, 200, JSON.stringify(start.body));
    const done = await waitJob(start.body.url, key);
    assert.equal(done.status, "completed");
    assert.equal(stack.site.hits("/page2"), fetchedBefore, "the cached page was not fetched again");
    assert.deepEqual(done.data[0].metadata.cached, ["markdown"]);
    assert.match(done.data[0].data.markdown, /Page Two/);
    assert.equal(done.data[1].metadata.cached, undefined);
    assert.equal(done.charged.micros, 200 + 1_000, "one cached format, one rendered");
    assert.equal((await balance(key)).balance.micros, 1_000_000 - 1_000 - 1_200);

    const again = await stack.post(
      "/web/v1/scrape",
      { url: `${stack.site.url}/article?cache=1`, maxAge: 600_000 },
      auth(key),
    );
    assert.deepEqual(again.body.metadata.cached, ["markdown"], "the batch's render is in the cache");
  });

  test("needs a key, validates its body, and refuses a batch the balance cannot cover", async () => {
    const urls = [`${stack.site.url}/article`, `${stack.site.url}/page2`];
    const keyless = await stack.postKeyless("/web/v1/scrape/batch", { urls, formats: ["markdown", "links"] });
    assert.equal(keyless.status, 402);
    assert.equal(keyless.body.error.code, "payment_required");
    assert.deepEqual(keyless.body.error.price, { usd: "$0.004", micros: 4_000 }, "what a key would hold");
    assert.deepEqual(keyless.body.error.payWith, ["api_key"]);
    assert.match(keyless.body.error.message, /a batch scrape needs an API key/);
    const one = await stack.post("/web/v1/scrape/batch", { urls: urls.slice(0, 1) });
    assert.equal(one.status, 400);
    assert.equal(one.body.error.details[0].field, "urls");
    const ssrf = await stack.post("/web/v1/scrape/batch", {
      urls: [urls[0], "http://169.254.169.254/latest"],
    });
    assert.equal(ssrf.status, 400);
    assert.equal(ssrf.body.error.details[0].field, "urls.1");
    const { key } = await stack.newKey(1_500);
    const poor = await stack.post("/web/v1/scrape/batch", { urls }, auth(key));
    assert.equal(poor.status, 402);
    assert.equal(poor.body.error.code, "insufficient_balance");
    assert.equal(poor.body.error.price.micros, 2_000);
    assert.equal((await balance(key)).balance.micros, 1_500);
  });
});

describe("crawl", () => {
  test("follows links breadth-first within the site, obeys robots.txt and maxDepth, and takes each page once", async () => {
    const { key } = await stack.newKey(1_000_000);
    const start = await stack.post(
      "/web/v1/crawl",
      { url: `${stack.site.url}/crawl/`, maxDepth: 2 },
      auth(key),
    );
    assert.equal(start.status, 200, JSON.stringify(start.body));
    assert.equal(start.body.held.micros, 25 * 1_000);
    const done = await waitJob(start.body.url, key);
    assert.equal(done.status, "completed");
    const byUrl = new Map<string, { depth: number; status: string }>(
      done.data.map((p: { url: string; depth: number; status: string }) => [
        p.url.replace(stack.site.url, ""),
        p,
      ]),
    );
    assert.deepEqual(
      [...byUrl.keys()].sort(),
      [
        "/crawl/",
        "/crawl/a",
        "/crawl/a1",
        "/crawl/a2",
        "/crawl/b",
        "/crawl/b-js",
        "/crawl/cal?month=0",
        "/crawl/cal?month=1",
      ],
      "no robots-disallowed page, no other site, no mailto, nothing past depth 2",
    );
    assert.equal(done.data[0].url, `${stack.site.url}/crawl/`);
    assert.equal(byUrl.get("/crawl/")?.depth, 0);
    assert.equal(byUrl.get("/crawl/b-js")?.depth, 2, "a link built by script is followed");
    // The title comes with the links in one read of the page; each page has its own.
    assert.deepEqual(
      done.data
        .filter((p: { url: string }) => /\/crawl\/(a|a1|b)$/.test(p.url))
        .map((p: { metadata: { title?: string } }) => p.metadata.title)
        .sort(),
      ["Page A", "Page A1", "Page B"],
    );
    const depths = done.data.map((p: { depth: number }) => p.depth);
    assert.deepEqual(depths, [...depths].sort(), "results come in breadth-first order");
    assert.equal(stack.site.hits("/crawl/blocked"), 0);
    assert.equal(stack.site.hits("/crawl/deep"), 0);
    assert.equal(done.charged.micros, 8 * 1_000);
    assert.equal((await balance(key)).balance.micros, 1_000_000 - 8_000);
  });

  test("a document's links are followed too: a crawl that starts at a Word file reaches what it links to", async () => {
    const { key } = await stack.newKey(1_000_000);
    const start = await stack.post(
      "/web/v1/crawl",
      { url: `${stack.site.url}/docs/links.docx`, maxDepth: 1, limit: 10 },
      auth(key),
    );
    assert.equal(start.status, 200, JSON.stringify(start.body));
    const done = await waitJob(start.body.url, key);
    assert.equal(done.status, "completed");
    const pages = done.data.map((p: { url: string; status: string; depth: number }) => [
      p.url.replace(stack.site.url, ""),
      p.status,
      p.depth,
    ]);
    assert.deepEqual(pages.sort(), [
      ["/crawl/a2", "completed", 1],
      ["/docs/links.docx", "completed", 0],
      ["/docs/table.csv", "completed", 1],
    ]);
    const docx = done.data.find((p: { url: string }) => p.url.endsWith("/docs/links.docx"));
    assert.match(docx.data.markdown, /Reading list/);
  });

  test("stops at limit, and a poller following next sees every page exactly once, in order", async () => {
    const { key } = await stack.newKey(1_000_000);
    const start = await stack.post(
      "/web/v1/crawl",
      { url: `${stack.site.url}/crawl/gen/0`, limit: 15, maxDepth: 5 },
      auth(key),
    );
    const seen: string[] = [];
    let cursor = "";
    // Reads on at once while pages come; asks again a moment later when there is nothing new yet.
    const readOn = async (): Promise<string | undefined> => {
      for (;;) {
        const r = await stack.call(
          "GET",
          `${start.body.url}?limit=4${cursor ? `&cursor=${cursor}` : ""}`,
          auth(key),
        );
        assert.equal(r.status, 200);
        seen.push(...r.body.data.map((p: { url: string }) => p.url));
        cursor = r.body.next ?? "";
        if (!["queued", "running"].includes(r.body.status) && cursor === "") return r.body.status;
        if (r.body.data.length === 0) return undefined;
      }
    };
    const status = await waitFor("the crawl to end, every page read", readOn, 90_000, 100);
    assert.equal(status, "completed");
    assert.equal(seen.length, 15);
    assert.equal(new Set(seen).size, 15);
    assert.equal(seen[0], `${stack.site.url}/crawl/gen/0`);
    const final = await waitJob(start.body.url, key);
    assert.equal(final.total, 15);
    assert.equal(final.charged.micros, 15 * 1_000);
  });

  test("DELETE cancels: queued pages are dropped and refunded, and the job still answers afterwards", async () => {
    const { key } = await stack.newKey(1_000_000);
    const start = await stack.post(
      "/web/v1/crawl",
      { url: `${stack.site.url}/crawl/gen/0?ms=1500`, limit: 60, maxDepth: 3 },
      auth(key),
    );
    const cancel = await stack.call("DELETE", start.body.url, auth(key));
    assert.equal(cancel.status, 200);
    assert.equal(cancel.body.status, "cancelled");
    // A page in flight when it was cancelled still finishes on the worker: once every such result is back
    // and read, the job must still be cancelled, with nothing left held.
    await waitFor(
      "the pages in flight to come back and be read",
      async () => (await jobsBacklog()) === 0,
      30_000,
      100,
    );
    const later = await stack.call("GET", start.body.url, auth(key));
    assert.equal(later.status, 200);
    assert.equal(later.body.status, "cancelled");
    assert.ok(later.body.total < 60);
    const funds = await balance(key);
    assert.equal(funds.held.micros, 0, "nothing stays held");
    assert.equal(funds.balance.micros, 1_000_000 - later.body.charged.micros);
    const again = await stack.call("DELETE", start.body.url, auth(key));
    assert.equal(again.status, 200, "cancelling twice is fine");
  });

  test("a caller sees only its own jobs", async () => {
    const { key } = await stack.newKey(1_000_000);
    const other = await stack.newKey(1_000_000);
    const start = await stack.post(
      "/web/v1/crawl",
      { url: `${stack.site.url}/crawl/a`, limit: 2, maxDepth: 1 },
      auth(key),
    );
    for (const method of ["GET", "DELETE"] as const) {
      const r = await stack.call(method, start.body.url, auth(other.key));
      assert.equal(r.status, 404, method);
      assert.equal(r.body.error.code, "not_found");
    }
    const asBatch = await stack.call("GET", `/web/v1/scrape/batch/${start.body.jobId}`, auth(key));
    assert.equal(asBatch.status, 404, "a crawl is not a batch");
    assert.equal((await stack.call("GET", "/web/v1/crawl/job_nonsense..", auth(key))).status, 404);
    assert.equal((await waitJob(start.body.url, key)).status, "completed");
  });
});

/**
 * A small site that logs every request: a long page with a picture, a web font, a video and a script
 * that builds part of it (nothing on it reacts to scrolling), and a page whose last section loads only
 * once it is scrolled into view.
 */
async function startResourceSite() {
  const hits = new Map<string, number>();
  const spacer = Array.from({ length: 60 }, (_, i) => `<p>Paragraph ${i} of a long article.</p>`).join("");
  const pages: Record<string, [string, string]> = {
    "/": [
      "text/html",
      `<!doctype html><html><head><title>Long page</title><link rel="stylesheet" href="/site.css"></head><body>
<h1>A long page</h1><p id="js">not built</p>
<img src="/picture.png" alt="A picture" width="40" height="40">
<video src="/clip.mp4" controls width="80" height="60"></video>
${spacer}<a href="/lazy">the lazy page</a>
<script>document.getElementById("js").textContent = "Built by the page's script";</script>
</body></html>`,
    ],
    "/lazy": [
      "text/html",
      `<!doctype html><html><head><title>Lazy</title></head><body><h1>Lazy</h1>${spacer}
<div id="sentinel">waiting</div>
<script>
  const seen = new IntersectionObserver(async (entries) => {
    if (!entries.some((e) => e.isIntersecting)) return;
    seen.disconnect();
    const more = await (await fetch("/more")).text();
    document.getElementById("sentinel").textContent = more;
  });
  seen.observe(document.getElementById("sentinel"));
</script></body></html>`,
    ],
    "/more": ["text/plain", "Section loaded when scrolled into view"],
    "/site.css": [
      "text/css",
      `@font-face { font-family: "Fixture Sans"; src: url("/font.woff2") format("woff2"); }
body { font-family: "Fixture Sans", sans-serif; }`,
    ],
    "/picture.png": ["image/png", "not really a png"],
    "/font.woff2": ["font/woff2", "not really a font"],
    "/clip.mp4": ["video/mp4", "not really a video"],
  };
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const page = pages[path];
    res.writeHead(page ? 200 : 404, {
      "content-type": page?.[0] ?? "text/plain",
      "cache-control": "no-store",
    });
    res.end(page?.[1] ?? "not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: (path: string) => hits.get(path) ?? 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("crawl resources", () => {
  test("a text-only crawl fetches no images, fonts or media and does not scroll a page nothing reacts to; lazy content still loads", async () => {
    const site = await startResourceSite();
    try {
      const { key } = await stack.newKey(1_000_000);
      const start = await stack.post(
        "/web/v1/crawl",
        { url: `${site.url}/`, limit: 5, formats: ["markdown"] },
        auth(key),
      );
      assert.equal(start.status, 200, JSON.stringify(start.body));
      const done = await waitJob(start.body.url, key);
      assert.equal(done.status, "completed");
      const page = (path: string) => done.data.find((p: { url: string }) => p.url === `${site.url}${path}`);
      const home = page("/");
      const lazy = page("/lazy");
      assert.ok(home && lazy, JSON.stringify(done.data.map((p: { url: string }) => p.url)));
      assert.equal(site.hits("/picture.png"), 0, "no image fetched");
      assert.equal(site.hits("/font.woff2"), 0, "no font fetched");
      assert.equal(site.hits("/clip.mp4"), 0, "no video fetched");
      assert.ok(site.hits("/site.css") >= 1, "the stylesheet is (what is hidden depends on it)");
      // The picture is still in the markdown, from its src, and the page's script ran.
      assert.match(home.data.markdown, /!\[A picture\]\(http:\/\/127\.0\.0\.1:\d+\/picture\.png\)/);
      assert.match(home.data.markdown, /Built by the page's script/);
      assert.equal(home.metadata.scroll, undefined, "nothing on the long page reacts to scrolling");
      assert.match(lazy.data.markdown, /Section loaded when scrolled into view/);
      assert.ok(lazy.metadata.scroll.steps >= 1, "a page that watches the viewport is scrolled");
    } finally {
      await site.close();
    }
  });

  test("a crawl that asks for screenshots fetches the images", async () => {
    const site = await startResourceSite();
    try {
      const { key } = await stack.newKey(1_000_000);
      const start = await stack.post(
        "/web/v1/crawl",
        { url: `${site.url}/`, limit: 1, formats: ["markdown", "screenshot"] },
        auth(key),
      );
      assert.equal(start.status, 200, JSON.stringify(start.body));
      const done = await waitJob(start.body.url, key);
      assert.equal(done.status, "completed");
      assert.ok(site.hits("/picture.png") >= 1, "the screenshot shows the picture");
      assert.ok(done.data[0].metadata.scroll.steps >= 1, "and the page is scrolled as before");
    } finally {
      await site.close();
    }
  });
});

describe("jobs metrics", () => {
  test("the jobs program exports jobs by state, pages by outcome, queue depth per stream and crawl pages per second", async () => {
    const url = stack.jobs?.metricsUrl;
    assert.ok(url);
    const text = await (await fetch(url)).text();
    assert.match(text, /fleet_jobs\{status="completed"\} [1-9]/);
    assert.match(text, /fleet_jobs\{status="cancelled"\} [1-9]/);
    assert.match(text, /fleet_job_pages_total\{kind="crawl",outcome="completed"\} [1-9]/);
    assert.match(text, /fleet_job_pages_total\{kind="batch",outcome="failed"\} [1-9]/);
    assert.match(text, /fleet_queue_depth\{stream="FLEET_TASKS"\} \d+/);
    assert.match(text, /fleet_queue_depth\{stream="FLEET_RESULTS"\} \d+/);
    assert.match(text, /fleet_crawl_pages_per_second \d/);
    assert.match(text, /fleet_jobs_ended_total\{kind="batch",status="completed"\} [1-9]/);
  });
});

describe("retention", () => {
  test("a finished job says when it expires, and once that passes it and its results are gone", async () => {
    const start = await stack.post("/web/v1/scrape/batch", {
      urls: [`${stack.site.url}/article`, `${stack.site.url}/page2`],
    });
    const done = await waitJob(start.body.url, stack.key);
    const left = Date.parse(done.expiresAt) - Date.parse(done.finishedAt);
    assert.equal(left, 24 * 3600_000, "kept JOB_RETENTION_MS after it ended");
    assert.equal(await deleteExpiredJobs(stack.pg.database.db), 0, "nothing is due yet");
    // Every job of this file has ended by now, so the sweep one ms after this one's expiry takes them all.
    assert.ok((await deleteExpiredJobs(stack.pg.database.db, new Date(Date.parse(done.expiresAt) + 1))) >= 1);
    const gone = await stack.call("GET", start.body.url);
    assert.equal(gone.status, 404);
    const [pages] = await stack.pg.database
      .sql`select count(*)::int as n from job_pages where job_id = ${start.body.jobId}`;
    assert.equal(pages?.n, 0);
  });
});
