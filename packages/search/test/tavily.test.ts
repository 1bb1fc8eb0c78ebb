import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FAKE_KEYS } from "../../../test/helpers/fake-search-providers.ts";
import { SearchProviderError, tavilyProvider } from "../src/index.ts";
import { adapterHarness } from "./harness.ts";

const tavily = (apiKey = FAKE_KEYS.tavily) => tavilyProvider({ apiKey, baseUrl: fake().tavilyUrl });
const { fake, search, traced } = adapterHarness("tavily", () => tavily());

describe("Tavily adapter", () => {
  it("POSTs /search with the Bearer key, max_results and no extras; reads content, score and published_date", async () => {
    const { result, requests } = await traced({ query: "agent frameworks", limit: 5 });
    assert.equal(requests.length, 1);
    const r = requests[0]!;
    assert.equal(r.method, "POST");
    assert.equal(r.path, "/tavily/search");
    assert.equal(r.headers.authorization, `Bearer ${FAKE_KEYS.tavily}`);
    assert.deepEqual(r.body, {
      query: "agent frameworks",
      max_results: 5,
      search_depth: "basic",
      topic: "general",
      include_answer: false,
      include_raw_content: false,
      include_images: false,
    });
    assert.equal(result.results.length, 5);
    assert.deepEqual(result.results[0], {
      position: 1,
      url: "https://docs.alpha.example/agent-frameworks/1",
      title: "Result 1 & more",
      domain: "docs.alpha.example",
      snippet: "About agent frameworks 'number' 1",
      publishedAt: "2026-10-22T10:00:00.000Z",
      score: 0.99,
    });
  });

  it("maps domains, excludeDomains and since onto include_domains, exclude_domains and start_date", async () => {
    const { result, requests } = await traced({
      query: "docs",
      domains: ["gamma.example", "beta.example"],
      excludeDomains: ["www.alpha.example"],
      since: "2026-06-15T09:30:00Z",
    });
    const body = requests[0]!.body!;
    assert.deepEqual(body.include_domains, ["gamma.example", "beta.example"]);
    assert.deepEqual(body.exclude_domains, ["alpha.example"]);
    assert.equal(body.start_date, "2026-06-15");
    assert.ok(result.results.length > 0);
    for (const x of result.results) {
      assert.ok(x.domain === "gamma.example" || x.domain === "www.beta.example", x.domain);
      assert.ok(!x.publishedAt || x.publishedAt >= "2026-06-15T09:30:00Z", x.publishedAt);
    }
  });

  it("lowers a limit over 20 to Tavily's maximum and says so", async () => {
    const { result, requests } = await traced({ query: "lots", limit: 50 });
    assert.equal(requests[0]!.body!.max_results, 20);
    assert.equal(result.results.length, 20);
    assert.equal(result.metadata.limit, 20);
    assert.match(
      result.metadata.warnings!.join(" "),
      /tavily returns at most 20 results: limit lowered from 50 to 20/,
    );
  });

  it("snippets: false leaves the content out", async () => {
    const r = await search({ query: "quiet", snippets: false });
    assert.ok(r.results.length > 0 && r.results.every((x) => x.snippet === undefined));
  });

  it("turns Tavily's { detail: { error } } answers and bad bodies into SearchProviderError", async () => {
    const cases: Array<[Record<string, unknown>, RegExp, ReturnType<typeof tavily>?, number?]> = [
      [
        { query: "xy" },
        /tavily answered HTTP 401: Unauthorized: missing or invalid API key\./,
        tavily("tvly-bad"),
      ],
      [{ query: "x" }, /tavily answered HTTP 400: Query is too short/],
      [
        { query: "please fail" },
        /tavily answered HTTP 432: This request exceeds your plan's set usage limit/,
      ],
      [{ query: "garbage" }, /not JSON/],
      [{ query: "wrongshape" }, /not its documented search response at results/],
      [{ query: "huge" }, /larger than 100000 bytes/],
      [{ query: "hang" }, /tavily did not answer in time/, undefined, 300],
    ];
    for (const [body, message, provider, ms] of cases) {
      await assert.rejects(
        () => search(body, provider, ms),
        (err: unknown) => {
          assert.ok(err instanceof SearchProviderError, String(err));
          assert.match(err.message, message);
          return true;
        },
        JSON.stringify(body),
      );
    }
  });
});
