import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FORMATS, type Format, type ScrapeRequestInput, scrapeRequest } from "@browserfleet/contracts";
import { CACHED_FORMATS, cacheKeyFor, cacheKeysFor, canonicalJson, isCacheable } from "../src/index.ts";

/** A validated request, as the route hands it over (defaults filled in). */
const req = (input: ScrapeRequestInput) => scrapeRequest.parse(input);
const URL_A = "https://example.com/page?b=2&a=1";
const ALL = {
  url: URL_A,
  formats: [...FORMATS],
  selectors: ["h1"],
  json: { prompt: "title" },
} satisfies ScrapeRequestInput;

const keys = (input: ScrapeRequestInput, scope?: string) => {
  const r = req(input);
  return Object.fromEntries(CACHED_FORMATS.map((f) => [f, cacheKeyFor(r, f, scope)])) as Record<
    Format,
    string
  >;
};

/** Which formats' keys differ between two requests. */
const changed = (a: ScrapeRequestInput, b: ScrapeRequestInput) => {
  const ka = keys(a);
  const kb = keys(b);
  return CACHED_FORMATS.filter((f) => ka[f] !== kb[f]);
};

describe("cache keys", () => {
  it("are sha256 hex, distinct per format, and stable", () => {
    const k = keys(ALL);
    for (const f of CACHED_FORMATS) assert.match(k[f], /^[0-9a-f]{64}$/);
    assert.equal(new Set(Object.values(k)).size, CACHED_FORMATS.length);
    assert.deepEqual(keys(ALL), k);
  });

  it("are the same worked out together, remembered, or again after thousands of other requests", () => {
    const r = req(ALL);
    const first = keys(ALL, "acct_1");
    const together = cacheKeysFor(r, CACHED_FORMATS, "acct_1");
    for (const f of CACHED_FORMATS) assert.equal(together?.get(f), first[f]);
    assert.notEqual(
      cacheKeysFor(r, ["markdown"])?.get("markdown"),
      first.markdown,
      "scope is part of the key",
    );
    for (let i = 0; i < 2_500; i++)
      cacheKeysFor(req({ url: `https://example.com/${i}`, formats: ["html"] }), ["html"]);
    assert.deepEqual(keys(ALL, "acct_1"), first);
    assert.equal(cacheKeysFor(req({ html: "<p>x</p>", formats: ["markdown"] }), ["markdown"]), undefined);
  });

  it("do not depend on which other formats are requested, nor on maxAge", () => {
    const alone = cacheKeyFor(req({ url: URL_A, formats: ["markdown"] }), "markdown");
    const many = cacheKeyFor(req({ ...ALL, maxAge: 5000 }), "markdown");
    assert.equal(alone, many);
  });

  it("an option only changes the key of the format it affects", () => {
    assert.deepEqual(changed(ALL, { ...ALL, screenshot: { fullPage: true } }), ["screenshot"]);
    assert.deepEqual(changed(ALL, { ...ALL, screenshot: { viewport: { width: 400 } } }), ["screenshot"]);
    assert.deepEqual(changed(ALL, { ...ALL, pdf: { landscape: true } }), ["pdf"]);
    assert.deepEqual(changed(ALL, { ...ALL, links: { excludeExternal: true } }), ["links"]);
    assert.deepEqual(changed(ALL, { ...ALL, controls: { limit: 5 } }), ["controls"]);
    assert.deepEqual(changed(ALL, { ...ALL, selectors: ["h2"] }), ["elements"]);
    assert.deepEqual(changed(ALL, { ...ALL, json: { prompt: "price" } }), ["json"]);
    assert.deepEqual(changed(ALL, { ...ALL, json: { prompt: "title", schema: { type: "object" } } }), [
      "json",
    ]);
    assert.deepEqual(changed(ALL, { ...ALL, documents: { enabled: false } }), ["markdown"]);
  });

  it("every option of a format reaches that format's key", () => {
    // Per format, requests that differ from ALL in one of its options only (keyed by Format, so a new
    // format has to say which of its options change its output).
    const variants: { readonly [F in Format]: ScrapeRequestInput[] } = {
      // Never cached: it has no key.
      changes: [],
      markdown: [
        { ...ALL, onlyMainContent: true },
        { ...ALL, includeTags: ["main"] },
        { ...ALL, excludeTags: ["nav"] },
        { ...ALL, documents: { enabled: false } },
      ],
      html: [{ ...ALL, htmlMode: "document" }],
      links: [
        { ...ALL, links: { visibleOnly: true } },
        { ...ALL, links: { excludeExternal: true } },
      ],
      screenshot: [
        { ...ALL, screenshot: { fullPage: true } },
        { ...ALL, screenshot: { type: "jpeg" } },
        { ...ALL, screenshot: { omitBackground: true } },
        { ...ALL, screenshot: { selector: "#hero" } },
        { ...ALL, screenshot: { viewport: { height: 400 } } },
        { ...ALL, overlays: "keep" },
      ],
      pdf: [
        { ...ALL, pdf: { format: "Letter" } },
        { ...ALL, pdf: { landscape: true } },
        { ...ALL, pdf: { printBackground: false } },
        { ...ALL, pdf: { scale: 0.5 } },
        { ...ALL, overlays: "keep" },
      ],
      elements: [{ ...ALL, selectors: ["h1", "h2"] }],
      json: [
        { ...ALL, json: { prompt: "price" } },
        { ...ALL, json: { prompt: "title", schema: { type: "object" } } },
      ],
      accessibility: [],
      controls: [
        { ...ALL, controls: { visibleOnly: false } },
        { ...ALL, controls: { limit: 5 } },
        { ...ALL, overlays: "keep" },
      ],
    };
    for (const f of CACHED_FORMATS)
      for (const v of variants[f]) assert.ok(changed(ALL, v).includes(f), `${f}: ${JSON.stringify(v)}`);
  });

  it("a common option changes the key of every format", () => {
    const all = [...CACHED_FORMATS];
    assert.deepEqual(changed(ALL, { ...ALL, viewport: { width: 800 } }), all);
    assert.deepEqual(changed(ALL, { ...ALL, viewport: { deviceScaleFactor: 2 } }), all);
    assert.deepEqual(changed(ALL, { ...ALL, wait: { until: "networkidle" } }), all);
    assert.deepEqual(changed(ALL, { ...ALL, wait: { until: "load" } }), all);
    assert.deepEqual(changed(ALL, { ...ALL, wait: { budget: 1_000 } }), all);
    assert.deepEqual(changed(ALL, { ...ALL, scroll: { enabled: false } }), all);
    assert.deepEqual(changed(ALL, { ...ALL, htmlMode: "document" }), ["html"]);
    assert.deepEqual(changed(ALL, { ...ALL, overlays: "keep" }).sort(), ["controls", "pdf", "screenshot"]);
    assert.deepEqual(changed(ALL, { ...ALL, wait: { selector: "#main" } }), all);
    assert.deepEqual(changed(ALL, { ...ALL, block: { resourceTypes: ["image"] } }), all);
    assert.deepEqual(changed(ALL, { ...ALL, block: { urlPatterns: ["**/ads/**"] } }), all);
    assert.deepEqual(changed(ALL, { ...ALL, request: { userAgent: "bot/1" } }), all);
    assert.deepEqual(changed(ALL, { ...ALL, url: "https://example.com/page?a=1&b=2" }), all);
    assert.deepEqual(changed(ALL, { ...ALL, url: "https://example.com/other?b=2&a=1" }), all);
  });

  it("a location or a device changes every format's key, by what the browser is told", () => {
    const all = [...CACHED_FORMATS];
    assert.deepEqual(changed(ALL, { ...ALL, location: { country: "DE" } }), all);
    assert.deepEqual(changed(ALL, { ...ALL, location: { timezone: "Asia/Tokyo" } }), all);
    assert.deepEqual(changed(ALL, { ...ALL, location: { languages: ["fr-FR", "fr"] } }), all);
    assert.deepEqual(
      changed({ ...ALL, location: { country: "DE" } }, { ...ALL, location: { country: "AT" } }),
      all,
    );
    assert.deepEqual(
      changed(
        { ...ALL, location: { country: "DE" } },
        { ...ALL, location: { country: "DE", timezone: "UTC" } },
      ),
      all,
    );
    assert.deepEqual(changed(ALL, { ...ALL, device: "mobile" }), all);
    assert.deepEqual(
      changed({ ...ALL, device: "iPhone 15" }, { ...ALL, device: "iPhone 15 landscape" }),
      all,
    );
    // The same browser, said two ways: a country's defaults spelled out, a kind by the device it stands for.
    assert.deepEqual(
      changed(
        { ...ALL, location: { country: "DE" } },
        { ...ALL, location: { country: "DE", languages: ["de-DE", "de"], timezone: "Europe/Berlin" } },
      ),
      [],
    );
    assert.deepEqual(changed({ ...ALL, device: "mobile" }, { ...ALL, device: "Pixel 7" }), []);
    assert.deepEqual(changed(ALL, { ...ALL, device: "desktop" }), []);
    assert.equal(isCacheable(req({ ...ALL, location: { country: "DE" }, device: "mobile" })), true);
  });

  it("options left at their defaults share the key of the explicit defaults", () => {
    const explicit: ScrapeRequestInput = {
      ...ALL,
      viewport: { width: 1280, height: 720, deviceScaleFactor: 1 },
      screenshot: { fullPage: false, type: "png", omitBackground: false },
      pdf: { format: "A4", landscape: false, printBackground: true, scale: 1 },
      links: { visibleOnly: false, excludeExternal: false },
      controls: { visibleOnly: true, limit: 200 },
      wait: { until: "auto" },
      scroll: { enabled: true, maxSteps: 20, budget: 4_000 },
      overlays: "dismiss",
      htmlMode: "rendered",
      block: { resourceTypes: [], urlPatterns: [] },
      documents: { enabled: true },
    };
    assert.deepEqual(changed(ALL, explicit), []);
    // wait.timeout decides only whether the render succeeds, never what a success contains.
    assert.deepEqual(changed(ALL, { ...ALL, wait: { timeout: 90_000 } }), []);
    // JPEG quality means nothing for PNG.
    assert.deepEqual(changed(ALL, { ...ALL, screenshot: { type: "png", quality: 50 } }), []);
    assert.deepEqual(
      changed(
        { ...ALL, screenshot: { type: "jpeg", quality: 80 } },
        { ...ALL, screenshot: { type: "jpeg" } },
      ),
      ["screenshot"],
    );
  });

  it("do not depend on the order of keys in the request or of block lists", () => {
    const a: ScrapeRequestInput = {
      url: URL_A,
      formats: ["json", "screenshot"],
      json: { prompt: "p", schema: { type: "object", properties: { a: { type: "string" }, b: {} } } },
      screenshot: { type: "jpeg", fullPage: true, quality: 70 },
      viewport: { width: 1000, height: 900 },
      block: { resourceTypes: ["image", "font"], urlPatterns: ["b", "a"] },
    };
    const b: ScrapeRequestInput = {
      block: { urlPatterns: ["a", "b"], resourceTypes: ["font", "image"] },
      viewport: { height: 900, width: 1000 },
      screenshot: { quality: 70, fullPage: true, type: "jpeg" },
      json: { schema: { properties: { b: {}, a: { type: "string" } }, type: "object" }, prompt: "p" },
      formats: ["screenshot", "json"],
      url: URL_A,
    };
    assert.deepEqual(keys(a), keys(b));
  });

  it("but selector order matters for elements (the output follows it)", () => {
    assert.deepEqual(changed({ ...ALL, selectors: ["a", "b"] }, { ...ALL, selectors: ["b", "a"] }), [
      "elements",
    ]);
  });

  it("drop the #fragment and keep the query as is", () => {
    assert.deepEqual(changed(ALL, { ...ALL, url: `${URL_A}#section-2` }), []);
    assert.deepEqual(changed(ALL, { ...ALL, url: `${URL_A}#` }), []);
    assert.deepEqual(changed(ALL, { ...ALL, url: `${URL_A}&c=3` }), [...CACHED_FORMATS]);
  });

  it("personal requests (cookies, auth, custom headers) and html input are never cacheable", () => {
    const personal: ScrapeRequestInput[] = [
      { ...ALL, request: { cookies: [{ name: "sid", value: "x" }] } },
      { ...ALL, request: { auth: { username: "u", password: "p" } } },
      { ...ALL, request: { headers: { "x-token": "secret" } } },
      { ...ALL, request: { userAgent: "ua", headers: { accept: "text/html" } } },
      { html: "<p>hi</p>", formats: ["markdown"] },
    ];
    for (const p of personal) {
      const r = req(p);
      assert.equal(isCacheable(r), false, JSON.stringify(p));
      for (const f of FORMATS) assert.equal(cacheKeyFor(r, f), undefined);
      assert.equal(cacheKeyFor(r, "markdown", "acct_1"), undefined);
    }
    // Empty lists carry nothing personal.
    const empty = req({ ...ALL, request: { cookies: [], headers: {} } });
    assert.equal(isCacheable(empty), true);
    assert.equal(cacheKeyFor(empty, "markdown"), keys(ALL).markdown);
    assert.equal(isCacheable(req({ ...ALL, request: { userAgent: "bot" } })), true);
  });

  it("documents-mode requests are cacheable", () => {
    const r = req({ url: "https://example.com/report.pdf", documents: { enabled: true, maxBytes: 1000 } });
    assert.equal(isCacheable(r), true);
    assert.match(cacheKeyFor(r, "markdown") ?? "", /^[0-9a-f]{64}$/);
  });

  it("a scope isolates entries: each account gets its own keys, none equal to the shared ones", () => {
    const shared = keys(ALL);
    const a = keys(ALL, "acct_a");
    const b = keys(ALL, "acct_b");
    for (const f of CACHED_FORMATS) {
      assert.notEqual(a[f], shared[f]);
      assert.notEqual(a[f], b[f]);
    }
    assert.deepEqual(keys(ALL, "acct_a"), a);
    assert.deepEqual(keys(ALL, ""), shared);
  });
});

describe("canonical JSON", () => {
  it("sorts keys at every depth, keeps array order, drops undefined members", () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined }, e: null }),
      '{"a":{"d":[3,{"y":2,"z":1}]},"b":1,"e":null}',
    );
    assert.notEqual(canonicalJson([1, 2]), canonicalJson([2, 1]));
  });
});
