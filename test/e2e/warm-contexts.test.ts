/**
 * Pre-made contexts (issue 18 goal 3): a scrape is served from a context made ahead of time for a free
 * slot, and nothing one caller's scrape leaves behind (cookies, localStorage, sessionStorage, IndexedDB,
 * the HTTP cache) is ever seen by the next caller's scrape, in turn or at once.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { after, before, describe, test } from "node:test";
import { type Stack, startStack } from "../helpers/stack.ts";
import { waitFor } from "../helpers/wait-for.ts";

let stack: Stack;
let server: Server;
let base: string;
/** Requests for the cacheable script, and the Cookie header each /look request came with. */
let scriptFetches = 0;
const cookiesSeen: string[] = [];
/** Requests for /more, which only a page scrolled to its sentinel asks for. */
let moreFetches = 0;

const page = (body: string) =>
  `<!doctype html><html><head><title>w</title></head><body>${body}</body></html>`;

// What the page finds before it writes its own mark: everything a previous caller could have left.
const LOOK = `
<script src="/cached.js"></script>
<p id="out">pending</p>
<script>
  const mark = new URL(location.href).searchParams.get("v");
  const found = [
    "cookie=" + (document.cookie || "none"),
    "local=" + (localStorage.getItem("mark") || "none"),
    "session=" + (sessionStorage.getItem("mark") || "none"),
    "cached=" + (window.cachedRuns || 0),
  ].join(" ");
  document.getElementById("out").textContent = "found " + found + " end";
  if (mark) {
    document.cookie = "script_mark=" + mark + "; path=/; max-age=3600";
    localStorage.setItem("mark", mark);
    sessionStorage.setItem("mark", mark);
  }
</script>`;

const SPACER = Array.from({ length: 60 }, (_, i) => `<p>Paragraph ${i} of a long page.</p>`).join("");
const WATCH = `<div id="sentinel">waiting</div><script>
  const seen = new IntersectionObserver(async (entries) => {
    if (!entries.some((e) => e.isIntersecting)) return;
    seen.disconnect();
    document.getElementById("sentinel").textContent = await (await fetch("/more")).text();
  });
  seen.observe(document.getElementById("sentinel"));
</script>`;

before(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/cached.js") {
      scriptFetches++;
      res.setHeader("content-type", "text/javascript");
      res.setHeader("cache-control", "public, max-age=3600");
      res.end("window.cachedRuns = (window.cachedRuns || 0) + 1;");
      return;
    }
    res.setHeader("content-type", "text/html");
    if (url.pathname === "/look") {
      cookiesSeen.push(req.headers.cookie ?? "");
      const v = url.searchParams.get("v");
      if (v) res.setHeader("set-cookie", `server_mark=${v}; Path=/; Max-Age=3600`);
      res.end(page(LOOK));
    } else if (url.pathname === "/whoami")
      res.end(
        page(
          `<p id="o"></p><script>document.getElementById("o").textContent = "ua " + navigator.userAgent + " width " + innerWidth + " header ${req.headers["x-probe"] ?? "none"}";</script>`,
        ),
      );
    else if (url.pathname === "/long-script")
      // Taller than the viewport, with a script that builds text but watches no scrolling.
      res.end(
        page(
          `${SPACER}<p id="js">not built</p><script>document.getElementById("js").textContent = "Built by the script";</script>`,
        ),
      );
    else if (url.pathname === "/long-watch") res.end(page(`${SPACER}${WATCH}`));
    else if (url.pathname === "/more") {
      moreFetches++;
      res.setHeader("content-type", "text/plain");
      res.end("Section loaded when scrolled into view");
    } else res.end(page("<p>plain</p>"));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  stack = await startStack({ slots: 2, jobs: false });
});

after(async () => {
  await stack?.stop();
  server?.close();
});

async function contextsByOrigin(): Promise<{ warm: number; made: number }> {
  const got = await stack.worker.metrics.contexts.get();
  const of = (origin: string) => got.values.find((v) => v.labels.origin === origin)?.value ?? 0;
  return { warm: of("warm"), made: of("made") };
}

async function scrapeText(url: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await stack.post("/web/v1/scrape", { url, formats: ["markdown"], ...extra });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.markdown as string;
}

/** What a page finds when nothing came before it: only the cookie its own response just set. */
const nothingBefore = (mark: string) =>
  new RegExp(`found cookie=server\\\\?_mark=${mark} local=none session=none cached=1 end`);

describe("pre-made contexts", () => {
  test("one after another: each caller's scrape runs in a pre-made context that holds nothing of the previous one", async () => {
    const start = await contextsByOrigin();
    const fetchesBefore = scriptFetches;
    for (let i = 0; i < 4; i++) {
      cookiesSeen.length = 0;
      const md = await scrapeText(`${base}/look?v=caller${i}`);
      assert.match(md, nothingBefore(`caller${i}`), `caller ${i} found a previous caller's state: ${md}`);
      assert.deepEqual(cookiesSeen, [""], "the page request carried no cookie");
    }
    assert.equal(
      scriptFetches - fetchesBefore,
      4,
      "the cacheable script came from the server every time, never from a cache",
    );
    const now = await contextsByOrigin();
    assert.equal(now.warm - start.warm, 4, "every one of these scrapes took a pre-made context");
    assert.equal(now.made - start.made, 0);
  });

  test("at once: concurrent callers never share a context", async () => {
    const mds = await Promise.all(
      Array.from({ length: 8 }, (_, i) => scrapeText(`${base}/look?v=together${i}`)),
    );
    for (const [i, md] of mds.entries()) assert.match(md, nothingBefore(`together${i}`));
  });

  test("a used context is closed: only the ready ones stay open in the browser", async () => {
    const browser = await stack.worker.chromium.browser();
    const warm = stack.worker.warm;
    assert.ok(warm);
    await waitFor(
      "the browser's open contexts to be the ready ones",
      () => {
        assert.equal(browser.contexts().length, warm.size());
        return true;
      },
      5_000,
      20,
    );
    assert.ok(warm.size() >= 1 && warm.size() <= 2, "one ready context per free slot");
  });

  test("options a context is made with are honoured: such a call gets a context made for it", async () => {
    const start = await contextsByOrigin();
    const md = await scrapeText(`${base}/whoami`, {
      request: { userAgent: "ProbeAgent/1.0", headers: { "x-probe": "yes" } },
      viewport: { width: 640, height: 480 },
    });
    assert.match(md, /ua ProbeAgent\/1\.0 width 640 header yes/);
    const plain = await scrapeText(`${base}/whoami`);
    assert.match(plain, /width 1280 header none/);
    assert.doesNotMatch(plain, /ProbeAgent/);
    const now = await contextsByOrigin();
    assert.equal(now.made - start.made, 1);
    assert.equal(now.warm - start.warm, 1);
  });

  test("a caller's cookies go into a pre-made context and to no one else", async () => {
    const start = await contextsByOrigin();
    const mine = await scrapeText(`${base}/look`, {
      request: { cookies: [{ name: "given", value: "secret1" }] },
    });
    assert.match(mine, /cookie=given=secret1/);
    const next = await scrapeText(`${base}/look`);
    assert.match(next, /cookie=none/);
    const now = await contextsByOrigin();
    assert.equal(now.warm - start.warm, 2);
  });
});

describe("scrolling for lazy content", () => {
  // A ready context and one made for the call (another viewport) both count what the page watches.
  for (const [how, extra] of [
    ["a pre-made context", {}],
    ["a context made for the call", { viewport: { width: 1000, height: 700 } }],
  ] as const) {
    test(`${how}: a long page whose script watches no scrolling is not scrolled; one that watches is`, async () => {
      const plain = await stack.post("/web/v1/scrape", {
        url: `${base}/long-script`,
        formats: ["markdown"],
        ...extra,
      });
      assert.equal(plain.status, 200, JSON.stringify(plain.body));
      assert.match(plain.body.data.markdown, /Built by the script/);
      assert.equal(plain.body.metadata.scroll, undefined, "nothing on the page reacts to scrolling");

      const before = moreFetches;
      const watched = await stack.post("/web/v1/scrape", {
        url: `${base}/long-watch`,
        formats: ["markdown"],
        ...extra,
      });
      assert.equal(watched.status, 200, JSON.stringify(watched.body));
      assert.match(watched.body.data.markdown, /Section loaded when scrolled into view/);
      assert.ok(watched.body.metadata.scroll.steps >= 1, "a page that watches the viewport is scrolled");
      assert.equal(moreFetches - before, 1, "the page's lazy section was fetched once, when scrolled to");
    });
  }
});
