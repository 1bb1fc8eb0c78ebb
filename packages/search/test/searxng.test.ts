import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SearchProviderError, searxngProvider, searxTimeRange } from "../src/index.ts";
import { adapterHarness } from "./harness.ts";

const { fake, search, traced } = adapterHarness("searxng", (f) =>
  searxngProvider({ baseUrl: `${f.searxngUrl}/` }),
);

describe("SearXNG adapter", () => {
  it("asks /search with format=json and reads pages (pageno) until limit, without repeats", async () => {
    const { result, requests } = await traced({ query: "metasearch", limit: 25 });
    assert.deepEqual(
      requests.map((r) => [r.path, r.query.q, r.query.format, r.query.pageno]),
      [
        ["/searxng/search", "metasearch", "json", "1"],
        ["/searxng/search", "metasearch", "json", "2"],
        ["/searxng/search", "metasearch", "json", "3"],
      ],
    );
    assert.equal(requests[0]!.query.time_range, undefined);
    assert.equal(result.results.length, 25);
    assert.equal(new Set(result.results.map((x) => x.url)).size, 25, "overlapping pages are merged");
    assert.deepEqual(result.results[0], {
      position: 1,
      url: "https://docs.alpha.example/metasearch/1",
      title: "Result 1 & more",
      domain: "docs.alpha.example",
      snippet: "About metasearch 'number' 1",
      publishedAt: "2026-10-22T00:00:00.000Z",
      score: 9.9,
    });
    assert.equal(result.results[6]!.publishedAt, undefined, "publishedDate null");
  });

  it("puts one domain into q as site:, and applies every domain filter to the results", async () => {
    const one = await traced({ query: "docs", domains: ["gamma.example"] });
    assert.equal(one.requests[0]!.query.q, "docs site:gamma.example");
    assert.ok(one.result.results.length > 0);
    assert.ok(one.result.results.every((x) => x.domain === "gamma.example"));
    assert.equal(
      one.result.results.length,
      10,
      "more pages are read until the filtered results fill the limit",
    );
    assert.ok(one.requests.length > 1);

    const two = await traced({
      query: "docs",
      domains: ["gamma.example", "beta.example"],
      excludeDomains: ["x.example"],
    });
    assert.equal(two.requests[0]!.query.q, "docs");
    assert.ok(two.result.results.every((x) => x.domain !== "docs.alpha.example"));
    const ex = await search({ query: "docs", excludeDomains: ["alpha.example"] });
    assert.ok(ex.results.length > 0 && ex.results.every((x) => x.domain !== "docs.alpha.example"));
  });

  it("maps since to the smallest time_range that holds it and filters the exact date", async () => {
    const since = new Date(Date.now() - 20 * 86_400_000).toISOString().slice(0, 10);
    const { requests } = await traced({ query: "recent", since });
    assert.equal(requests[0]!.query.time_range, "month");
    const { result } = await traced({ query: "older", since: "2026-06-01", limit: 30 });
    assert.ok(result.results.length > 0);
    for (const x of result.results) assert.ok(!x.publishedAt || x.publishedAt >= "2026-06-01", x.publishedAt);
    assert.ok(result.metadata.filteredOut > 0);
  });

  it("searxTimeRange: day, month, year, or none past a year", () => {
    const now = Date.parse("2026-11-22T12:00:00Z");
    assert.equal(searxTimeRange("2026-11-22", now), "day");
    assert.equal(searxTimeRange("2026-11-01", now), "month");
    assert.equal(searxTimeRange("2026-02-01", now), "year");
    assert.equal(searxTimeRange("2024-01-01", now), undefined);
  });

  it("warns about engines that did not answer; fails when none did", async () => {
    const some = await search({ query: "somedown" });
    assert.equal(some.success, true);
    assert.match(some.metadata.warnings!.join(" "), /some engines did not answer: google \(timeout\)/);
    await assert.rejects(
      () => search({ query: "enginesdown" }),
      /every engine it asked failed: google \(timeout\), bing \(CAPTCHA\)/,
    );
  });

  it("turns HTTP errors, bad bodies and silence into SearchProviderError", async () => {
    const cases: Array<[Record<string, unknown>, RegExp, number?]> = [
      [{ query: "please fail" }, /searxng answered HTTP 429: too many requests/],
      [{ query: "garbage" }, /not JSON/],
      [{ query: "wrongshape" }, /not its documented search response at results/],
      [{ query: "huge" }, /larger than 100000 bytes/],
      [{ query: "hang" }, /searxng did not answer in time/, 300],
    ];
    for (const [body, message, ms] of cases) {
      await assert.rejects(
        () => search(body, undefined, ms),
        (err: unknown) => {
          assert.ok(err instanceof SearchProviderError, String(err));
          assert.match(err.message, message);
          return true;
        },
        JSON.stringify(body),
      );
    }
  });

  it("names the json format setting when the instance answers 403, and reports other statuses", async () => {
    await assert.rejects(
      () => search({ query: "forbidden" }),
      /searxng answered HTTP 403: forbidden; is the json format enabled .*search\.formats/,
    );
    const wrongPath = searxngProvider({ baseUrl: `${fake().url}/searxng-missing` });
    await assert.rejects(() => search({ query: "x" }, wrongPath), /searxng answered HTTP 404/);
  });
});
