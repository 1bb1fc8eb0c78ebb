import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Stack, startStack } from "../helpers/stack.ts";

let stack: Stack;
let site: string;
before(async () => {
  stack = await startStack({ env: { MAX_BODY_BYTES: String(1024 * 1024) } });
  site = stack.site.url;
});
after(async () => stack?.stop());

const scrape = (body: Record<string, unknown>) => stack.post("/web/v1/scrape", body);
const newKeyed = () => stack.newKey(1_000_000);
const balanceOf = async (key: string): Promise<number> =>
  (await stack.call("GET", "/web/v1/account", { authorization: `Bearer ${key}` })).body.balance.micros;
const pngSize = (b64: string) => {
  const buf = Buffer.from(b64, "base64");
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
};

describe("POST /web/v1/scrape formats", () => {
  it("markdown keeps the article's structure and absolute URLs, and drops scripts, styles and hidden text", async () => {
    const { status, body, headers } = await scrape({ url: `${site}/article` });
    assert.equal(status, 200);
    assert.ok(headers.get("x-request-id"));
    const md: string = body.data.markdown;
    assert.match(md, /^# The Fixture Article$/m);
    assert.match(md, /\| Alice\s*\| 30\s*\|/);
    assert.match(md, /```js\nconst answer = 42;\n```/);
    assert.ok(md.includes(`](${site}/page2)`), "relative link made absolute");
    assert.ok(md.includes(`![A pixel](${site}/img/pixel.png)`), "image made absolute");
    for (const noise of ["do-not-leak", "hidden-text-should-not-appear", "color:red"])
      assert.ok(!md.includes(noise), noise);
    assert.equal(body.success, true);
    assert.deepEqual(body.errors, {});
    assert.equal(body.metadata.title, "Fixture Article");
    assert.equal(body.metadata.statusCode, 200);
    assert.equal(body.metadata.url, `${site}/article`);
    assert.equal(body.metadata.renders, 1);
    assert.ok(body.metadata.browserMsUsed > 0 && body.metadata.ms >= body.metadata.browserMsUsed);
  });

  it("renders eight formats from one navigation, one render each", async () => {
    const formats = [
      "html",
      "markdown",
      "links",
      "screenshot",
      "pdf",
      "elements",
      "accessibility",
      "controls",
    ];
    const before = stack.site.hits("/form");
    const { body } = await scrape({ url: `${site}/form`, formats, selectors: ["button"] });
    assert.equal(stack.site.hits("/form") - before, 1, "one navigation");
    assert.deepEqual(Object.keys(body.data).sort(), [...formats].sort());
    assert.equal(body.metadata.renders, 8);
    assert.match(body.data.html, /<form/);
    assert.equal(Buffer.from(body.data.screenshot, "base64").subarray(1, 4).toString(), "PNG");
    assert.equal(Buffer.from(body.data.pdf, "base64").subarray(0, 4).toString(), "%PDF");
    assert.match(body.data.accessibility, /textbox "Username"/);
    const buttons = body.data.elements[0].matches.map((m: { text: string }) => m.text);
    assert.ok(buttons.includes("Sign in") && buttons.includes("Cancel"));
  });

  it("controls lists what can be acted on, with refs, selectors and boxes", async () => {
    const { body } = await scrape({ url: `${site}/form`, formats: ["controls"] });
    const controls: Array<{
      ref: string;
      role: string;
      name: string;
      selector: string;
      box: { width: number };
    }> = body.data.controls;
    const user = controls.find((c) => c.role === "textbox" && c.name === "Username");
    assert.ok(user, JSON.stringify(controls));
    assert.match(user.ref, /^e\d+$/);
    assert.equal(user.selector, "#username");
    assert.ok(user.box.width > 0);
    const names = controls.map((c) => c.name);
    assert.ok(names.includes("Sign in") && names.includes("Cancel"));
    assert.ok(controls.some((c) => c.role === "combobox"));
    assert.ok(!names.includes("Ghost"), "hidden control");
    assert.ok(!names.includes("Disabled"), "disabled control is left out with visibleOnly");

    const all = await scrape({
      url: `${site}/form`,
      formats: ["controls"],
      controls: { visibleOnly: false },
    });
    assert.ok(all.body.data.controls.some((c: { name: string }) => c.name === "Disabled"));
    const capped = await scrape({ url: `${site}/form`, formats: ["controls"], controls: { limit: 2 } });
    assert.equal(capped.body.data.controls.length, 2);
    assert.equal(capped.body.metadata.controlsTruncated, true);
  });

  it("links are absolute, de-duplicated and honour visibleOnly and excludeExternal", async () => {
    const urls = async (links?: object) =>
      (
        await scrape({ url: `${site}/links`, formats: ["links"], ...(links ? { links } : {}) })
      ).body.data.links.map((l: { url: string }) => l.url);
    const all: string[] = await urls();
    assert.equal(all.filter((u) => u === `${site}/page2`).length, 1, "fragment variant de-duplicated");
    assert.equal(all.filter((u) => u === `${site}/article`).length, 1);
    assert.ok(all.includes("https://example.com/") && all.includes(`${site}/hidden-link`));
    assert.ok(!all.some((u) => u.startsWith("mailto:") || u.startsWith("javascript:")));
    const visible: string[] = await urls({ visibleOnly: true });
    assert.ok(!visible.includes(`${site}/hidden-link`));
    const internal: string[] = await urls({ excludeExternal: true });
    assert.ok(internal.length > 0 && internal.every((u) => u.startsWith(site)));
  });

  it("screenshot.maxWidth scales the image down in proportion, never up, for the viewport, the page and an element", async () => {
    const shot = (screenshot: Record<string, unknown>, url = `${site}/article`) =>
      scrape({ url, formats: ["screenshot"], screenshot });
    const plain = await shot({});
    assert.deepEqual(pngSize(plain.body.data.screenshot), { width: 1280, height: 720 });
    const small = await shot({ maxWidth: 640 });
    assert.deepEqual(pngSize(small.body.data.screenshot), { width: 640, height: 360 });
    assert.ok(small.body.data.screenshot.length < plain.body.data.screenshot.length / 2, "fewer bytes");
    const wide = await shot({ maxWidth: 3000 });
    assert.deepEqual(pngSize(wide.body.data.screenshot), { width: 1280, height: 720 }, "never scaled up");
    const full = await shot({ maxWidth: 320, fullPage: true });
    const fullPlain = await shot({ fullPage: true });
    const f = pngSize(full.body.data.screenshot);
    assert.equal(f.width, 320);
    assert.ok(Math.abs(f.height - pngSize(fullPlain.body.data.screenshot).height / 4) <= 1, `${f.height}`);
    const el = await shot({ maxWidth: 100, selector: ".product" }, `${site}/elements`);
    assert.ok(pngSize(el.body.data.screenshot).width <= 100);
    const jpeg = await shot({ maxWidth: 200, type: "jpeg" });
    assert.equal(Buffer.from(jpeg.body.data.screenshot, "base64").readUInt16BE(0), 0xffd8);
  });

  it("screenshot honours type, viewport, selector and fullPage", async () => {
    const jpeg = await scrape({
      url: `${site}/article`,
      formats: ["screenshot"],
      screenshot: { type: "jpeg", quality: 50 },
    });
    assert.equal(Buffer.from(jpeg.body.data.screenshot, "base64").readUInt16BE(0), 0xffd8);
    const narrow = await scrape({
      url: `${site}/article`,
      formats: ["screenshot"],
      screenshot: { viewport: { width: 400, height: 300 } },
    });
    assert.deepEqual(pngSize(narrow.body.data.screenshot), { width: 400, height: 300 });
    const el = await scrape({
      url: `${site}/elements`,
      formats: ["screenshot"],
      screenshot: { selector: ".product" },
    });
    assert.ok(pngSize(el.body.data.screenshot).height < 300);
    const full = await scrape({
      url: `${site}/large`,
      formats: ["screenshot"],
      screenshot: { fullPage: true },
    });
    assert.equal(pngSize(full.body.data.screenshot).height, 16_384, "cut at Chromium's limit");
    assert.equal(full.body.metadata.screenshotTruncated, true);
    const page = await scrape({
      url: `${site}/article`,
      formats: ["screenshot"],
      screenshot: { fullPage: true },
    });
    assert.ok(pngSize(page.body.data.screenshot).height >= 720);
    assert.equal(page.body.metadata.screenshotTruncated, undefined);
  });

  it("pdf honours paper format and orientation", async () => {
    const box = async (pdf: object) => {
      const { body } = await scrape({ url: `${site}/article`, formats: ["pdf"], pdf });
      return Buffer.from(body.data.pdf, "base64")
        .toString("latin1")
        .match(/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)/)
        ?.slice(1, 3)
        .map(Number);
    };
    assert.deepEqual(await box({ format: "Letter" }), [612, 792]);
    assert.deepEqual(await box({ format: "Letter", landscape: true }), [792, 612]);
  });

  it("elements returns each selector's matches with text, attributes and box", async () => {
    const { body } = await scrape({
      url: `${site}/elements`,
      formats: ["elements"],
      selectors: [".product .name", ".price"],
    });
    const [names, prices] = body.data.elements;
    assert.deepEqual(
      names.matches.map((m: { text: string }) => m.text),
      ["Widget 1", "Widget 2", "Widget 3"],
    );
    assert.equal(names.matches[0].attributes.class, "name");
    assert.ok(names.matches[0].box.width > 0);
    assert.equal(prices.matches[2].text, "$3.99");
  });
});

describe("POST /web/v1/scrape options", () => {
  it("onlyMainContent keeps the article and drops navigation and footer; tags pick and drop parts", async () => {
    const whole = await scrape({ url: `${site}/article` });
    assert.match(whole.body.data.markdown, /Fixture footer/);
    assert.doesNotMatch(
      whole.body.data.markdown,
      /\[Page Two\]/,
      "a link-only menu outside the article is chrome",
    );
    assert.equal(whole.body.metadata.mainContent, undefined);

    const main = await scrape({ url: `${site}/article`, onlyMainContent: true });
    assert.equal(main.status, 200, JSON.stringify(main.body));
    const md: string = main.body.data.markdown;
    assert.match(md, /predictable content to extract/);
    assert.match(md, /\| Alice \| 30\s*\|/);
    assert.match(md, /That is the end of the fixture article/);
    assert.doesNotMatch(md, /Fixture footer/);
    assert.doesNotMatch(md, /Home\]\(.*\) \| \[Article/);
    assert.equal(main.body.metadata.mainContent, "extracted");

    const tags = await scrape({
      url: `${site}/article`,
      includeTags: ["article"],
      excludeTags: ["table", "pre"],
    });
    assert.match(tags.body.data.markdown, /Conclusion/);
    assert.doesNotMatch(tags.body.data.markdown, /Alice|const answer|Fixture footer/);

    const bad = await scrape({ url: `${site}/article`, excludeTags: ["div[["] });
    assert.equal(bad.body.errors.markdown?.code, "invalid_selector");
  });

  it("waits for script-built content with wait.selector", async () => {
    const { body } = await scrape({ url: `${site}/js-content`, wait: { selector: "#late" } });
    assert.match(body.data.markdown, /Rendered by JavaScript/);
    assert.equal(body.metadata.title, "JS Page");
  });

  it("sends headers, user agent, cookies and basic auth", async () => {
    const echo = await scrape({
      url: `${site}/headers`,
      formats: ["elements"],
      selectors: ["#echo"],
      request: { headers: { "X-Custom": "yes" }, userAgent: "FleetTest/1.0" },
    });
    const seen = JSON.parse(echo.body.data.elements[0].matches[0].text);
    assert.equal(seen["x-custom"], "yes");
    assert.equal(seen["user-agent"], "FleetTest/1.0");
    const cookies = await scrape({
      url: `${site}/cookies`,
      request: { cookies: [{ name: "session", value: "s3cret" }] },
    });
    assert.match(cookies.body.data.markdown, /session=s3cret/);
    const auth = await scrape({
      url: `${site}/auth`,
      request: { auth: { username: "alice", password: "secret" } },
    });
    assert.match(auth.body.data.markdown, /Authenticated as alice/);
    assert.equal(auth.body.metadata.statusCode, 200);
  });

  it("refuses what a header or cookie cannot carry with a 400 naming the field, uncharged; takes the rest", async () => {
    const { key } = await newKeyed();
    const echoed = (request: unknown) =>
      JSON.stringify({ url: `${site}/headers`, formats: ["elements"], selectors: ["#echo"], request });
    // Raw JSON bodies, so that a lone surrogate travels as the \ud800 escape a client would send.
    const refused: Array<[string, string]> = [
      [echoed({ headers: { "x-hostile": "a\u0000b" } }), "request.headers.x-hostile"],
      [echoed({ headers: { "x-hostile": "a\r\nx-injected: 1" } }), "request.headers.x-hostile"],
      [echoed({ headers: { "x-hostile": "x".repeat(100_000) } }), "request.headers.x-hostile"],
      [
        echoed({ headers: { "x-hostile": "a\\ud800b" } }).replace("\\\\ud800", "\\ud800"),
        "request.headers.x-hostile",
      ],
      [echoed({ headers: { "x-a\u0000": "v" } }), "request.headers.x-a\u0000"],
      [echoed({ headers: { Host: "elsewhere.example" } }), "request.headers.Host"],
      [echoed({ headers: { "Proxy-Authorization": "Basic eA==" } }), "request.headers.Proxy-Authorization"],
      [echoed({ userAgent: "Fleet\r\nx-injected: 1" }), "request.userAgent"],
      [echoed({ auth: { username: "a\u0000", password: "p" } }), "request.auth.username"],
      [echoed({ cookies: [{ name: " padded", value: "v" }] }), "request.cookies.0.name"],
      [echoed({ cookies: [{ name: "n", value: "a;b" }] }), "request.cookies.0.value"],
      [echoed({ cookies: [{ name: "n", value: "é".repeat(2100) }] }), "request.cookies.0.value"],
      [echoed({ cookies: [{ name: "n", value: "v", expires: -5 }] }), "request.cookies.0.expires"],
    ];
    const before = await balanceOf(key);
    for (const [body, field] of refused) {
      const r = await stack.post("/web/v1/scrape", body, { authorization: `Bearer ${key}` });
      assert.equal(r.status, 400, `${field}: ${JSON.stringify(r.body).slice(0, 300)}`);
      assert.equal(r.body.error.code, "invalid_request");
      assert.deepEqual(
        r.body.error.details.map((d: { field: string }) => d.field),
        [field],
        JSON.stringify(r.body.error),
      );
    }
    assert.equal(await balanceOf(key), before, "a refused call is not charged");

    // Right-to-left and zero-width characters are text a header may carry: sent as UTF-8, as is.
    const values = ["a\u202eb", "zero\u200bwidth", "é".repeat(4096)];
    const ok = await stack.post(
      "/web/v1/scrape",
      echoed({ headers: { "x-1": values[0], "x-2": values[1], "x-3": values[2] } }),
      {
        authorization: `Bearer ${key}`,
      },
    );
    assert.equal(ok.status, 200, JSON.stringify(ok.body).slice(0, 300));
    const seen = JSON.parse(ok.body.data.elements[0].matches[0].text);
    // The fixture reads header bytes as Latin-1.
    for (const [i, v] of values.entries())
      assert.equal(seen[`x-${i + 1}`], Buffer.from(v, "utf8").toString("latin1"));
    assert.equal(await balanceOf(key), before - 1_000, "charged for the one format");

    // A cookie with a path and no domain goes with the page's host.
    const cookie = await stack.post(
      "/web/v1/scrape",
      { url: `${site}/cookies`, request: { cookies: [{ name: "scoped", value: "yes", path: "/" }] } },
      { authorization: `Bearer ${key}` },
    );
    assert.equal(cookie.status, 200, JSON.stringify(cookie.body).slice(0, 300));
    assert.match(cookie.body.data.markdown, /scoped=yes/);
  });

  it("blocks resource types and URL patterns", async () => {
    const imgBefore = stack.site.hits("/img/pixel.png");
    const { body } = await scrape({
      url: `${site}/blocked-resources`,
      formats: ["html"],
      block: { resourceTypes: ["image"], urlPatterns: ["**/app.js"] },
    });
    assert.equal(stack.site.hits("/img/pixel.png"), imgBefore, "image never requested");
    assert.ok(!body.data.html.includes("js ran"), "blocked script did not run");
    const unblocked = await scrape({ url: `${site}/blocked-resources`, formats: ["html"] });
    assert.ok(unblocked.body.data.html.includes("js ran"));
  });

  it("takes raw html instead of a url", async () => {
    const { body } = await scrape({
      html: "<html><head><title>Raw</title></head><body><h1>Hi there</h1></body></html>",
    });
    assert.match(body.data.markdown, /^# Hi there$/m);
    assert.equal(body.metadata.title, "Raw");
  });

  it("follows redirects and reports the final url; reports 4xx/5xx targets", async () => {
    const r = await scrape({ url: `${site}/redirect/1`, formats: ["links"] });
    assert.equal(r.body.metadata.url, `${site}/article`);
    assert.equal(r.body.metadata.statusCode, 200);
    const missing = await scrape({ url: `${site}/status/404` });
    assert.equal(missing.status, 200);
    assert.equal(missing.body.metadata.statusCode, 404);
    assert.match(missing.body.data.markdown, /Not Found Page/);
    const broken = await scrape({ url: `${site}/status/500` });
    assert.equal(broken.body.metadata.statusCode, 500);
  });

  it("decodes non-UTF-8 pages and handles large pages", async () => {
    const latin = await scrape({ url: `${site}/latin1` });
    assert.match(latin.body.data.markdown, /Café crème brûlée/);
    const large = await scrape({ url: `${site}/large` });
    assert.match(large.body.data.markdown, /End of large page/);
  });

  it("gives each task a fresh browser context: no cookies leak between calls", async () => {
    await scrape({ url: `${site}/set-cookie` });
    const { body } = await scrape({ url: `${site}/cookies`, formats: ["html"] });
    assert.ok(!body.data.html.includes("tracker=abc123"));
  });

  it("answers 504 when the page does not load in time", async () => {
    const { status, body } = await scrape({ url: `${site}/slow?ms=5000`, wait: { timeout: 500 } });
    assert.equal(status, 504);
    assert.equal(body.error.code, "timeout");
  });

  it("keeps the formats that worked when one fails, and says success false when all fail", async () => {
    const partial = await scrape({
      url: `${site}/article`,
      formats: ["markdown", "screenshot"],
      screenshot: { selector: "[[[" },
    });
    assert.equal(partial.status, 200);
    assert.equal(partial.body.success, true);
    assert.ok(partial.body.data.markdown);
    assert.ok(partial.body.errors.screenshot.message);
    const none = await scrape({ url: `${site}/article`, formats: ["elements"], selectors: ["[[["] });
    assert.equal(none.status, 200);
    assert.equal(none.body.success, false);
    assert.equal(none.body.errors.elements.code, "invalid_selector");
  });
});

describe("errors and self-descriptions", () => {
  it("refuses bad input with 400 naming the field", async () => {
    const cases: Array<[unknown, string, string]> = [
      ["{not json", "invalid_json", ""],
      [[1, 2], "invalid_request", ""],
      [{}, "invalid_request", "url"],
      [{ url: "ftp://example.com/" }, "invalid_request", "url"],
      [{ url: `${site}/article`, bogus: true }, "invalid_request", "bogus"],
      [{ url: `${site}/article`, formats: ["elements"] }, "invalid_request", "selectors"],
      [{ url: `${site}/article`, formats: ["json"] }, "invalid_request", "json"],
      [{ url: `${site}/article`, binaryAs: "file" }, "invalid_request", "binaryAs"],
      [{ url: `${site}/article`, maxTokens: 100 }, "invalid_request", "maxTokens"],
      [{ cursor: "not a cursor!" }, "invalid_request", "cursor"],
      [{ url: `${site}/article`, wait: { timeout: "soon" } }, "invalid_request", "wait.timeout"],
      [{ url: `${site}/article`, screenshot: { type: "gif" } }, "invalid_request", "screenshot.type"],
    ];
    for (const [body, code, field] of cases) {
      const r = await stack.post("/web/v1/scrape", typeof body === "string" ? body : JSON.stringify(body));
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.success, false);
      assert.equal(r.body.error.code, code);
      assert.equal(r.body.error.details[0].field, field, JSON.stringify(r.body));
      assert.ok(r.headers.get("x-request-id"));
    }
  });

  it("answers 413 for a body over the limit, 404 for unknown routes, 405 for wrong methods", async () => {
    const big = await scrape({ html: "x".repeat(2 * 1024 * 1024) });
    assert.equal(big.status, 413);
    assert.equal(big.body.error.code, "payload_too_large");
    const nf = await fetch(`${stack.api.url}/web/v1/nope`);
    assert.equal(nf.status, 404);
    assert.equal((await nf.json()).error.code, "not_found");
    const del = await fetch(`${stack.api.url}/web/v1/scrape`, { method: "DELETE" });
    assert.equal(del.status, 405);
    assert.match(del.headers.get("allow") ?? "", /POST/);
  });

  it("describes every operation route on GET, free and cacheable", async () => {
    for (const path of [
      "/web/v1/scrape",
      "/web/v1/session",
      "/web/v1/act",
      "/web/v1/scrape/batch",
      "/web/v1/map",
      "/web/v1/crawl",
    ]) {
      const res = await fetch(stack.api.url + path);
      assert.equal(res.status, 200, path);
      const doc = await res.json();
      assert.equal(doc.route, path);
      assert.ok(doc.request.schema.properties, path);
      assert.ok(doc.price && doc.example);
      const etag = res.headers.get("etag")!;
      assert.match(res.headers.get("cache-control") ?? "", /max-age/);
      const again = await fetch(stack.api.url + path, { headers: { "If-None-Match": etag } });
      assert.equal(again.status, 304);
    }
    const scrapeDoc = await (await fetch(`${stack.api.url}/web/v1/scrape`)).json();
    assert.deepEqual(scrapeDoc.request.schema.properties.formats.default, ["markdown"]);
  });

  it("search without a configured provider is a 404 that says so (search itself: search.test.ts)", async () => {
    for (const res of [
      await stack.post("/web/v1/search/brave", { query: "x" }),
      await stack.call("GET", "/web/v1/search/brave"),
    ]) {
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, "not_found");
      assert.match(res.body.error.message, /no search provider configured/);
    }
  });

  it("exposes Prometheus metrics on the api and the worker", async () => {
    await scrape({ url: `${site}/page2` });
    const api = await (await fetch(`${stack.api.url}/metrics`)).text();
    assert.match(api, /fleet_http_request_duration_seconds_bucket\{[^}]*route="\/web\/v1\/scrape"/);
    assert.match(api, /fleet_tasks_pending\{state="pending"\} \d+/);
    assert.match(api, /fleet_browser_slots_total 2/);
    const worker = await (await fetch(stack.worker.metricsUrl!)).text();
    assert.match(worker, /fleet_browser_slots 2/);
    assert.match(
      worker,
      /fleet_scrape_format_duration_seconds_count\{format="markdown",outcome="ok"\} [1-9]/,
    );
    assert.match(worker, /fleet_chromium_restarts_total 0/);
  });
});
