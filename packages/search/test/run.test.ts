import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { searchRequest } from "@browserfleet/contracts";
import { configuredProviders, isoDate, plainText, runSearch, type SearchProvider } from "../src/index.ts";

const limits = () => ({ signal: AbortSignal.timeout(5000), maxBytes: 1000 });

describe("the search contract and the provider-neutral run", () => {
  it("normalizes domain filters and names the field at fault", () => {
    const r = searchRequest.parse({
      query: "  q ",
      domains: ["https://www.Example.com/docs?x", "*.sub.example.org", "example.net."],
    });
    assert.deepEqual(r.domains, ["example.com", "sub.example.org", "example.net"]);
    assert.equal(r.query, "q");
    assert.equal(r.limit, 10);
    assert.equal(r.snippets, true);
    for (const [body, field] of [
      [{ query: "q", domains: ["not a domain"] }, "domains.0"],
      [{ query: "q", limit: 51 }, "limit"],
      [{ query: "q", since: "last week" }, "since"],
      [{ query: "" }, "query"],
    ] as const) {
      const p = searchRequest.safeParse(body);
      assert.equal(p.success, false);
      assert.equal(p.error!.issues[0]!.path.join("."), field);
    }
  });

  it("keeps http(s) results, drops repeats, cuts at limit and numbers positions", async () => {
    const provider: SearchProvider = {
      name: "stub",
      about: "a stub",
      maxResults: 3,
      async search() {
        return {
          hits: [
            { url: "ftp://a.example/x", title: "ftp" },
            { url: "https://a.example/1", title: "one" },
            { url: "https://a.example/1", title: "again" },
            { url: "not a url", title: "bad" },
            { url: "https://b.example/2", title: "two", snippet: "s" },
            { url: "https://c.example/3", title: "three" },
            { url: "https://d.example/4", title: "four" },
          ],
          warnings: ["from the provider"],
        };
      },
    };
    const r = await runSearch(provider, searchRequest.parse({ query: "q", limit: 5 }), limits());
    assert.deepEqual(
      r.results.map((x) => [x.position, x.title]),
      [
        [1, "one"],
        [2, "two"],
        [3, "three"],
      ],
    );
    assert.equal(r.metadata.limit, 3);
    assert.deepEqual(r.metadata.warnings, [
      "stub returns at most 3 results: limit lowered from 5 to 3",
      "from the provider",
    ]);
  });

  it("reads provider dates and snippets", () => {
    assert.equal(isoDate("2025-02-19T08:30:00"), "2025-02-19T08:30:00.000Z");
    assert.equal(isoDate("Wed, 19 Feb 2025 10:00:00 GMT"), "2025-02-19T10:00:00.000Z");
    assert.equal(isoDate("2025-02-19"), "2025-02-19T00:00:00.000Z");
    assert.equal(isoDate("3 days ago"), undefined);
    assert.equal(isoDate(null), undefined);
    assert.equal(plainText("a <strong>b</strong> &amp; &#39;c&#x27;  \n d"), "a b & 'c' d");
    assert.equal(plainText("   "), undefined);
  });

  it("configures a provider only when its key (SearXNG: its URL) is set", () => {
    const base = {
      SEARCH_BRAVE_BASE_URL: "http://brave.invalid",
      SEARCH_TAVILY_BASE_URL: "http://tavily.invalid",
    };
    assert.deepEqual([...configuredProviders(base).keys()], []);
    assert.deepEqual(
      [
        ...configuredProviders({
          ...base,
          SEARCH_BRAVE_API_KEY: "k",
          SEARCH_TAVILY_API_KEY: "t",
          SEARCH_SEARXNG_BASE_URL: "http://searx.invalid",
        }).keys(),
      ],
      ["brave", "tavily", "searxng"],
    );
  });
});
