import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FAKE_KEYS } from "../../../test/helpers/fake-search-providers.ts";
import { braveProvider, SearchProviderError } from "../src/index.ts";
import { adapterHarness } from "./harness.ts";

const brave = (apiKey = FAKE_KEYS.brave) => braveProvider({ apiKey, baseUrl: fake().braveUrl });
const { fake, search, traced } = adapterHarness("brave", () => brave());

describe("Brave Search adapter", () => {
  it("sends q, count, the key header and plain-text options; reads titles, snippets and page_age", async () => {
    const { result, requests } = await traced({ query: "browser automation" });
    assert.equal(requests.length, 1);
    const r = requests[0]!;
    assert.equal(r.path, "/brave/res/v1/web/search");
    assert.equal(r.headers["x-subscription-token"], FAKE_KEYS.brave);
    assert.deepEqual(
      { q: r.query.q, count: r.query.count, offset: r.query.offset },
      { q: "browser automation", count: "10", offset: "0" },
    );
    assert.equal(r.query.text_decorations, "false");
    assert.equal(r.query.result_filter, "web");
    assert.equal(r.query.freshness, undefined);
    assert.equal(result.success, true);
    assert.equal(result.provider, "brave");
    assert.equal(result.results.length, 10);
    const first = result.results[0]!;
    assert.deepEqual(first, {
      position: 1,
      url: "https://docs.alpha.example/browser-automation/1",
      title: "Result 1 & more",
      domain: "docs.alpha.example",
      snippet: "About browser automation 'number' 1",
      publishedAt: "2026-10-22T08:30:00.000Z",
    });
    assert.equal(result.results[6]!.publishedAt, undefined, "no page_age, no date");
    assert.deepEqual(
      result.results.map((x) => x.position),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
  });

  it("reaches a limit over 20 with pages of 20 (offset counts pages)", async () => {
    const { result, requests } = await traced({ query: "many", limit: 50 });
    assert.deepEqual(
      requests.map((r) => [r.query.count, r.query.offset]),
      [
        ["20", "0"],
        ["20", "1"],
        ["20", "2"],
      ],
    );
    assert.equal(result.results.length, 50);
    assert.equal(new Set(result.results.map((x) => x.url)).size, 50);
    assert.equal(result.metadata.limit, 50);
  });

  it("stops paging when Brave says there are no more results", async () => {
    const { result, requests } = await traced({ query: "paging", limit: 50, since: "2026-08-01" });
    // Since 2026-08-01 the fake has 8 dated results, plus 8 undated it keeps: one short page is the end.
    assert.equal(requests.length, 1);
    assert.equal(result.results.length, 16);
  });

  it("puts domains and excludeDomains into q as site: operators, and filters the results too", async () => {
    const one = await traced({ query: "docs", domains: ["gamma.example"], limit: 20 });
    assert.equal(one.requests[0]!.query.q, "docs site:gamma.example");
    assert.ok(one.result.results.length > 0);
    assert.ok(one.result.results.every((x) => x.domain === "gamma.example"));
    assert.ok(one.result.metadata.filteredOut > 0, "this fake ignores site:, so the filter did the work");
    // Two more pages than the limit needs fill it with what the filter kept.
    assert.equal(one.requests.length, 3);
    assert.equal(one.result.results.length, 20);

    const many = await traced({
      query: "docs",
      domains: ["https://www.beta.example/x", "gamma.example"],
      excludeDomains: ["alpha.example"],
    });
    assert.equal(
      many.requests[0]!.query.q,
      "docs (site:beta.example OR site:gamma.example) -site:alpha.example",
    );
    assert.ok(
      many.result.results.every((x) => x.domain === "www.beta.example" || x.domain === "gamma.example"),
    );

    const excluded = await search({ query: "docs", excludeDomains: ["alpha.example", "beta.example"] });
    assert.ok(excluded.results.every((x) => x.domain === "gamma.example"));
  });

  it("leaves operators out when they would pass Brave's 400-character query, and says so", async () => {
    const domains = Array.from({ length: 30 }, (_, i) => `site-number-${i}.example`).concat("gamma.example");
    const { result, requests } = await traced({ query: "docs", domains, limit: 20 });
    assert.equal(requests[0]!.query.q, "docs");
    assert.match(result.metadata.warnings!.join(" "), /400-character/);
    assert.ok(result.results.every((x) => x.domain === "gamma.example"));
  });

  it("maps since to a freshness date range up to today and drops older results", async () => {
    const { result, requests } = await traced({ query: "news", since: "2026-06-01", limit: 20 });
    const today = new Date().toISOString().slice(0, 10);
    assert.equal(requests[0]!.query.freshness, `2026-06-01to${today}`);
    assert.ok(result.results.length > 0);
    for (const x of result.results)
      assert.ok(!x.publishedAt || x.publishedAt >= "2026-06-01", `${x.url} ${x.publishedAt}`);
    const dt = await traced({ query: "news", since: "2026-06-01T12:00:00Z" });
    assert.equal(dt.requests[0]!.query.freshness, `2026-06-01to${today}`);
  });

  it("snippets: false leaves the snippet out", async () => {
    const { results } = await search({ query: "quiet", snippets: false });
    assert.ok(results.length > 0);
    assert.ok(results.every((x) => x.snippet === undefined));
  });

  it("no results is success false", async () => {
    const r = await search({ query: "nothing here" });
    assert.equal(r.success, false);
    assert.deepEqual(r.results, []);
  });

  it("turns Brave's documented errors, bad bodies, silence and oversize answers into SearchProviderError", async () => {
    const cases: Array<[Record<string, unknown>, RegExp, ReturnType<typeof brave>?, number?]> = [
      [
        { query: "x" },
        /brave answered HTTP 422: SUBSCRIPTION_TOKEN_INVALID: The provided subscription token is invalid/,
        brave("wrong"),
      ],
      [{ query: "please fail" }, /brave answered HTTP 429: RATE_LIMITED: Request rate limit exceeded/],
      [{ query: "garbage" }, /brave answered HTTP 200 with a body that is not JSON/],
      [{ query: "wrongshape" }, /not its documented search response at type/],
      [{ query: "huge" }, /larger than 100000 bytes/],
      [{ query: "hang" }, /brave did not answer in time/, undefined, 300],
    ];
    for (const [body, message, provider, ms] of cases) {
      await assert.rejects(
        () => search(body, provider, ms),
        (err: unknown) => {
          assert.ok(err instanceof SearchProviderError, String(err));
          assert.equal(err.provider, "brave");
          assert.match(err.message, message);
          return true;
        },
        JSON.stringify(body),
      );
    }
  });

  it("names queries Brave would refuse (over 400 characters or 50 words) before asking it", () => {
    assert.equal(brave().queryProblem?.("a short query"), undefined);
    assert.match(brave().queryProblem?.("w ".repeat(51).trim()) ?? "", /at most 400 characters and 50 words/);
    assert.match(brave().queryProblem?.("x".repeat(401)) ?? "", /400 characters/);
  });

  it("an unreachable Brave is a SearchProviderError too", async () => {
    const gone = braveProvider({ apiKey: "k", baseUrl: "http://127.0.0.1:9" });
    await assert.rejects(() => search({ query: "x" }, gone), /could not reach brave/);
  });
});
