/**
 * Pages that behave like the live web, scraped with default options through HTTP, MCP, batch and
 * crawl: what a person sees once the page is done is what comes back, and the wait ends for the
 * right reason.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { REAL_CMPS } from "../fixture-site/consent-platforms.ts";
import { type LiveWeb, startLiveWeb } from "../fixture-site/live-web.ts";
import { type Stack, startStack } from "../helpers/stack.ts";
import { waitFor } from "../helpers/wait-for.ts";

let stack: Stack;
let web: LiveWeb;
before(async () => {
  [stack, web] = await Promise.all([startStack({ slots: 3 }), startLiveWeb()]);
});
after(async () => {
  await stack?.stop();
  await web?.close();
});

// biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the route answered
type Json = any;

async function scrape(body: Record<string, unknown>): Promise<Json> {
  const r = await stack.post("/web/v1/scrape", body);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.success, true, JSON.stringify(r.body));
  return r.body;
}

const markdownOf = async (path: string) => scrape({ url: web.a(path) });

describe("wait.until auto (the default) waits for what scripts build", () => {
  test("content a timer inserts after load is there, and the explicit load still means load", async () => {
    const auto = await markdownOf("/late-timer");
    assert.match(auto.data.markdown, /Timer content arrived/);
    assert.doesNotMatch(auto.data.markdown, /Loading…/);
    assert.equal(auto.metadata.settle.reason, "quiet");

    const load = await scrape({ url: web.a("/late-timer"), wait: { until: "load" } });
    assert.match(load.data.markdown, /Loading…/, "until: load keeps its exact meaning");
    assert.equal(load.metadata.settle.reason, "load");
  });

  test("text an image's onload handler writes is there (an arriving image opens no quiet window of its own)", async () => {
    for (let i = 0; i < 3; i++) {
      const r = await markdownOf("/image-onload");
      assert.match(r.data.markdown, /Caption written once the picture arrived/);
      assert.doesNotMatch(r.data.markdown, /Loading the picture/);
    }
  });

  test("a fetch to a JSON API after load, and a module script chaining fetches and timers", async () => {
    const fetched = await markdownOf("/late-fetch");
    assert.match(fetched.data.markdown, /- Fetched item one\n- Fetched item two/);
    const spa = await markdownOf("/spa-chain");
    assert.match(spa.data.markdown, /Dashboard for Fetched item one/);
    assert.match(spa.data.markdown, /Lazy section loaded from the API/);
  });

  test("a page that builds itself from IndexedDB after load (an offline-first app syncing its store) is there", async () => {
    const r = await markdownOf("/offline-first");
    assert.match(r.data.markdown, /# Your notes\n\n\d+ notes synced to this device\./);
    assert.doesNotMatch(r.data.markdown, /Opening your notes/);
    assert.equal(r.metadata.settle.reason, "quiet", "done when the store was, not at the budget");
  });

  test("a long-poll and a websocket deliver their live content, and neither holds the page to its budget", async () => {
    for (const [path, text] of [
      ["/long-poll", "Live update one"],
      ["/websocket", "Socket says hello"],
    ] as const) {
      const r = await scrape({ url: web.a(path), wait: { budget: 20_000 } });
      assert.match(r.data.markdown, new RegExp(text), path);
      assert.equal(r.metadata.settle.reason, "quiet", `${path}: the wait ended because the page was done`);
    }
  });

  test("one subresource that never answers does not hold the page: it is taken once it is quiet", async () => {
    const r = await scrape({ url: web.a("/hanging-subresource"), wait: { budget: 20_000 } });
    assert.match(r.data.markdown, /Content next to a hanging image/);
    assert.equal(r.metadata.settle.reason, "quiet");
  });

  test("the budget ends a page that never stops, and says so", async () => {
    const r = await scrape({ url: web.a("/late-timer"), wait: { budget: 150 } });
    assert.equal(r.metadata.settle.reason, "budget");
  });

  test("wait.selector ends the wait when it appears", async () => {
    const r = await scrape({ url: web.a("/late-fetch"), wait: { selector: "li" } });
    assert.equal(r.metadata.settle.reason, "selector");
    assert.match(r.data.markdown, /Fetched item one/);
  });

  test("a bad wait.until or budget is a 400 naming the field", async () => {
    for (const wait of [{ until: "idle" }, { budget: 10 }, { budget: "soon" }]) {
      const r = await stack.post("/web/v1/scrape", { url: web.a("/static"), wait });
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.match(JSON.stringify(r.body.error), /wait/);
    }
  });
});

describe("client-side redirects", () => {
  test("location.replace() shortly after load and a meta refresh are followed; metadata.url is the final page", async () => {
    for (const path of ["/script-redirect", "/meta-redirect"]) {
      const r = await markdownOf(path);
      assert.match(r.data.markdown, /You arrived at the target/, path);
      assert.equal(r.metadata.url, web.a("/redirect-target"));
      assert.deepEqual(r.metadata.settle.redirects, [web.a(path)]);
    }
  });

  test("a script redirect to a blocked address is refused by the guard, not rendered, every time", async () => {
    // Several times over: Chromium sometimes holds the close of a page caught mid-navigation, which
    // once left the caller waiting for the api's deadline instead of getting the refusal.
    for (let i = 0; i < 4; i++) {
      const r = await stack.post("/web/v1/scrape", {
        html: `<p>leaving</p><script>setTimeout(() => location.href = "http://169.254.169.254/latest/meta-data/", 100)</script>`,
        wait: { timeout: 15_000 },
      });
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.error.code, "ssrf_blocked");
    }
  });
});

describe("content that loads on scroll", () => {
  test("an IntersectionObserver section and a loading=lazy image are in the markdown; metadata says how far it scrolled", async () => {
    const r = await markdownOf("/lazy");
    assert.match(r.data.markdown, /Lazy section loaded from the API/);
    assert.match(r.data.markdown, /!\[A lazy picture\]\(http:\/\/127\.0\.0\.1:\d+\/img\/lazy\.png\)/);
    assert.ok(r.metadata.scroll.steps >= 1);
    assert.equal(r.metadata.scroll.complete, true);
  });

  test("scroll.enabled false leaves lazy content out", async () => {
    const r = await scrape({ url: web.a("/lazy"), scroll: { enabled: false } });
    assert.doesNotMatch(r.data.markdown, /Lazy section loaded/);
    assert.equal(r.metadata.scroll, undefined);
  });

  test("an endless feed stops at the step budget instead of holding the slot", async () => {
    const r = await scrape({ url: web.a("/infinite"), scroll: { maxSteps: 3 } });
    assert.equal(r.metadata.scroll.steps, 3);
    assert.equal(r.metadata.scroll.complete, false);
    assert.match(r.data.markdown, /Feed item 11/, "the feed grew while it was scrolled");
  });
});

describe("content that loads in panels that scroll on their own (a chat pane, a feed)", () => {
  test("a chat pane watched by an IntersectionObserver rooted at it is read to its end; metadata says so", async () => {
    const r = await markdownOf("/panel-chat?pages=4");
    assert.match(r.data.markdown, /Chat message 10\b/);
    assert.match(r.data.markdown, /Chat message 40\b/);
    assert.equal(r.metadata.scroll.steps, 0, "the window itself does not scroll");
    assert.equal(r.metadata.scroll.panels.count, 1);
    assert.equal(r.metadata.scroll.panels.complete, true);
  });

  test("a panel that loads on its own scroll event, and one in an open shadow root", async () => {
    assert.match((await markdownOf("/panel-scroll-event")).data.markdown, /Order 40\b/);
    assert.match((await markdownOf("/panel-shadow")).data.markdown, /Support reply 30\b/);
  });

  test("an endless chat stops at the step bound and the scrape answers", async () => {
    const r = await scrape({ url: web.a("/panel-chat?pages=0"), scroll: { maxSteps: 3 } });
    assert.equal(r.metadata.scroll.panels.steps, 3);
    assert.equal(r.metadata.scroll.panels.complete, false);
    assert.match(r.data.markdown, /Chat message 11\b/, "the chat grew while it was scrolled");
  });

  test("scroll.enabled false leaves the panel as it loaded", async () => {
    const r = await scrape({ url: web.a("/panel-chat?pages=4"), scroll: { enabled: false } });
    assert.match(r.data.markdown, /Chat message 10\b/);
    assert.doesNotMatch(r.data.markdown, /Chat message 11\b/);
    assert.equal(r.metadata.scroll, undefined);
  });

  test("small, hidden or clipped panels and a page without panels are not scrolled", async () => {
    const widgets = await markdownOf("/panel-untouchable");
    assert.match(widgets.data.markdown, /The dashboard is ready/);
    assert.equal(widgets.metadata.scroll, undefined);
    const plain = await markdownOf("/panel-none");
    assert.match(plain.data.markdown, /Nothing here scrolls on its own/);
    assert.equal(plain.metadata.scroll, undefined);
    assert.equal(web.hits("/api/panel-touched"), 0, "no scroll handler of theirs ran");
  });
});

describe("shadow DOM and frames in every text format", () => {
  test("markdown, html, links and elements reach open shadow roots, with slotted children where the slots are", async () => {
    const r = await scrape({
      url: web.a("/shadow"),
      formats: ["markdown", "html", "links", "elements"],
      selectors: ["inner-price strong"],
    });
    const md: string = r.data.markdown;
    const order = [
      "Shadow card title",
      "Slotted product name",
      "Default slot description",
      "Nested shadow price 42 EUR",
      "Fallback slot content",
    ].map((t) => md.indexOf(t));
    assert.ok(
      order.every((i, k) => i >= 0 && (k === 0 || i > order[k - 1]!)),
      `in page order: ${md}`,
    );
    assert.doesNotMatch(md, /Hidden shadow text/);
    assert.doesNotMatch(md, /Never rendered light child/, "a light child no slot takes is not shown");
    assert.match(r.data.html, /Shadow card title/);
    assert.ok(
      r.data.links.some((l: Json) => l.url === web.a("/shadow-link") && l.text === "Shadow link"),
      JSON.stringify(r.data.links),
    );
    assert.equal(r.data.elements[0].matches[0].text, "Nested shadow price 42 EUR");
    assert.ok(r.metadata.frames.shadowRoots >= 3);
  });

  test("same-origin, cross-origin and nested iframes are inline where they appear", async () => {
    const r = await scrape({ url: web.a("/frames"), formats: ["markdown", "html", "links"] });
    const md: string = r.data.markdown;
    const order = [
      "Before the frames",
      "Same-origin frame text",
      "Between the frames",
      "Cross-origin frame text",
      "Nested frame text",
      "After the frames",
    ].map((t) => md.indexOf(t));
    assert.ok(
      order.every((i, k) => i >= 0 && (k === 0 || i > order[k - 1]!)),
      `in page order: ${md}`,
    );
    assert.equal(md.split("Same-origin frame text").length, 2, "the hidden copy of the frame is left out");
    assert.match(r.data.html, /Cross-origin frame text/);
    const urls = r.data.links.map((l: Json) => l.url);
    assert.ok(urls.includes(web.a("/from-frame-a")), urls.join(" "));
    assert.ok(
      urls.includes(web.b("/from-frame-b")),
      "a frame's relative link resolves against its own origin",
    );
    assert.ok(r.metadata.frames.frames >= 3);
  });

  test("htmlMode document is the main document's source alone", async () => {
    const r = await scrape({ url: web.a("/frames"), formats: ["html"], htmlMode: "document" });
    assert.doesNotMatch(r.data.html, /Cross-origin frame text/);
    assert.match(r.data.html, /<iframe/);
  });
});

describe("overlays", () => {
  test("a consent overlay is declined before controls and screenshot, and kept with overlays: keep", async () => {
    const r = await scrape({ url: web.a("/consent"), formats: ["markdown", "controls", "screenshot"] });
    const names = r.data.controls.map((c: Json) => c.name);
    assert.ok(names.includes("Open menu"), `the page's own button is reachable: ${names.join(", ")}`);
    assert.ok(!names.includes("Accept all"), "the dialog is gone");
    assert.ok(r.metadata.overlays.dismissed.length + r.metadata.overlays.hidden > 0);
    assert.equal(r.metadata.url, web.a("/consent"), "nothing navigated");
    assert.match(r.data.markdown, /Shop front/);

    const kept = await scrape({ url: web.a("/consent"), formats: ["controls"], overlays: "keep" });
    const keptNames = kept.data.controls.map((c: Json) => c.name);
    assert.ok(keptNames.includes("Accept all"), keptNames.join(", "));
  });
});

describe("consent banners of real platforms", () => {
  test("declined by their reject button before controls and screenshot; metadata names the platform", async () => {
    for (const cmp of REAL_CMPS) {
      const r = await scrape({ url: web.a(`/consent-cmp?cmp=${cmp}`), formats: ["controls", "screenshot"] });
      assert.deepEqual(r.metadata.overlays, { dismissed: [cmp], hidden: 0 }, cmp);
      const names: string[] = r.data.controls.map((c: Json) => c.name);
      assert.ok(names.includes("Open menu"), `${cmp}: ${names.join(", ")}`);
      assert.ok(
        !names.some((n) => /accept|allow|agree/i.test(n)),
        `${cmp}: the banner is gone: ${names.join(", ")}`,
      );
      assert.equal(r.metadata.url, web.a(`/consent-cmp?cmp=${cmp}`), "nothing navigated");
      await waitFor(`${cmp}'s reject reported`, () => web.hits(`/consent-choice/${cmp}/rejected`) === 1);
      assert.equal(web.hits(`/consent-choice/${cmp}/accepted`), 0, cmp);
    }
  });

  test("a page without a banner: nothing dismissed or hidden, metadata says nothing of overlays", async () => {
    const r = await scrape({ url: web.a("/static"), formats: ["controls", "screenshot"] });
    assert.equal(r.metadata.overlays, undefined);
    assert.ok(r.data.screenshot);
  });
});

describe("live sessions", () => {
  test("a session opens on the page as built by script, and an act returns what its click fetched", async () => {
    const open = await stack.post("/web/v1/session", {
      url: web.a("/click-fetch"),
      formats: ["controls", "markdown"],
    });
    assert.equal(open.status, 200, JSON.stringify(open.body));
    assert.equal(open.body.metadata.settle.reason, "quiet");
    const button = open.body.data.controls.find((c: Json) => c.name === "Show details");
    assert.ok(button, JSON.stringify(open.body.data.controls));
    try {
      const act = await stack.post("/web/v1/act", {
        sessionId: open.body.sessionId,
        actions: [{ click: { ref: button.ref } }],
        formats: ["markdown"],
      });
      assert.equal(act.status, 200, JSON.stringify(act.body));
      assert.match(act.body.data.markdown, /Lazy section loaded from the API/);
      assert.equal(act.body.metadata.settle.reason, "quiet");
    } finally {
      await stack.call("DELETE", `/web/v1/session/${open.body.sessionId}`);
    }
  });
});

describe("over MCP, batch and crawl, with default options", () => {
  test("web_scrape waits for script content too", async () => {
    const client = new Client({ name: "e2e", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${stack.api.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${stack.key}` } },
      }),
    );
    try {
      const r = await client.callTool({ name: "web_scrape", arguments: { url: web.a("/late-fetch") } });
      assert.notEqual(r.isError, true, JSON.stringify(r.content));
      const body = JSON.parse((r.content as Array<{ text: string }>)[0]!.text);
      assert.match(body.data.markdown, /Fetched item one/);
      assert.equal(body.metadata.settle.reason, "quiet");
    } finally {
      await client.close();
    }
  });

  test("batch and crawl pages come back as built by script", async () => {
    const wait = (url: string) =>
      waitFor(
        `the job at ${url} to end`,
        async () => {
          const r = await stack.call("GET", `${url}?limit=50`);
          assert.equal(r.status, 200, JSON.stringify(r.body));
          assert.ok(!["queued", "running"].includes(r.body.status), `the job is still ${r.body.status}`);
          return r.body;
        },
        120_000,
        100,
      );
    const batch = await stack.post("/web/v1/scrape/batch", {
      urls: [web.a("/late-timer"), web.a("/late-fetch"), web.a("/script-redirect"), web.a("/lazy")],
    });
    assert.equal(batch.status, 200, JSON.stringify(batch.body));
    const crawl = await stack.post("/web/v1/crawl", { url: web.a("/live-index"), maxDepth: 1 });
    assert.equal(crawl.status, 200, JSON.stringify(crawl.body));

    const b = await wait(batch.body.url);
    const md = (pages: Json[], path: string) =>
      pages.find((p: Json) => p.url === web.a(path))?.data?.markdown ?? "";
    assert.match(md(b.data, "/late-timer"), /Timer content arrived/);
    assert.match(md(b.data, "/late-fetch"), /Fetched item one/);
    assert.match(md(b.data, "/script-redirect"), /You arrived at the target/);
    assert.match(md(b.data, "/lazy"), /Lazy section loaded from the API/);

    const c = await wait(crawl.body.url);
    assert.equal(c.status, "completed");
    assert.match(md(c.data, "/late-timer"), /Timer content arrived/);
    assert.match(md(c.data, "/late-fetch"), /Fetched item one/);
    assert.match(md(c.data, "/shadow"), /Nested shadow price 42 EUR/);
    assert.match(md(c.data, "/frames"), /Cross-origin frame text/);
  });
});
