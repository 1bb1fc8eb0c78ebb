import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { type RunningApi, startApi } from "@browserfleet/api";
import { loadConfig } from "@browserfleet/config";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import {
  FAKE_KEYS,
  type FakeSearchProviders,
  startFakeSearchProviders,
} from "../helpers/fake-search-providers.ts";
import { type Stack, startStack } from "../helpers/stack.ts";

/**
 * Web search through the real stack (api, NATS, PostgreSQL, a Chromium worker), with the three providers
 * pointed at local stand-ins that answer in each provider's documented format.
 */
let fake: FakeSearchProviders;
let stack: Stack;
let searchEnv: Record<string, string>;
before(async () => {
  fake = await startFakeSearchProviders();
  searchEnv = {
    SEARCH_BRAVE_API_KEY: FAKE_KEYS.brave,
    SEARCH_BRAVE_BASE_URL: fake.braveUrl,
    SEARCH_TAVILY_API_KEY: FAKE_KEYS.tavily,
    SEARCH_TAVILY_BASE_URL: fake.tavilyUrl,
    SEARCH_SEARXNG_BASE_URL: fake.searxngUrl,
    SEARCH_TIMEOUT_MS: "2000",
    SEARCH_MAX_RESPONSE_BYTES: "100000",
  };
  stack = await startStack({ jobs: false, env: searchEnv });
});
after(async () => {
  await stack?.stop();
  await fake?.close();
});

const balance = async (key: string) => {
  const res = await fetch(`${stack.api.url}/web/v1/account`, { headers: { authorization: `Bearer ${key}` } });
  return ((await res.json()) as { balance: { micros: number } }).balance.micros;
};
const withKey = (key: string) => ({ authorization: `Bearer ${key}` });

/** Another api on the same NATS and PostgreSQL, with its own configuration. */
async function otherApi(env: Record<string, string>): Promise<RunningApi> {
  const config = loadConfig({ PORT: "0", HOST: "127.0.0.1", ...env });
  return startApi({ ...config, NATS_URL: stack.nats.url, DATABASE_URL: stack.pg.url });
}

async function mcp(key?: string): Promise<Client> {
  const client = new Client({ name: "e2e", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${stack.api.url}/mcp`), {
      requestInit: key ? { headers: withKey(key) } : {},
    }),
  );
  return client;
}
async function callTool(client: Client, name: string, args: Record<string, unknown>) {
  const r = await client.callTool({ name, arguments: args });
  const content = r.content as Array<{ type: string; text: string }>;
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the tool answered
  return { isError: r.isError === true, body: JSON.parse(content[0]?.text ?? "null") as any };
}

describe("POST /web/v1/search/{provider}", () => {
  it("brave: ranked results with url, title, domain, snippet and date; charged per started 10 of limit", async () => {
    const { key } = await stack.newKey(1_000_000);
    const r = await stack.post("/web/v1/search/brave", { query: "headless browsers" }, withKey(key));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.success, true);
    assert.equal(r.body.provider, "brave");
    assert.equal(r.body.query, "headless browsers");
    assert.equal(r.body.results.length, 10);
    assert.deepEqual(r.body.results[0], {
      position: 1,
      url: "https://docs.alpha.example/headless-browsers/1",
      title: "Result 1 & more",
      domain: "docs.alpha.example",
      snippet: "About headless browsers 'number' 1",
      publishedAt: "2026-10-22T08:30:00.000Z",
    });
    assert.equal(r.body.metadata.limit, 10);
    assert.equal(r.body.metadata.returned, 10);
    assert.ok(Number.isInteger(r.body.metadata.ms));
    assert.equal(r.headers.get("x-charged-usd"), "$0.007");
    const big = await stack.post("/web/v1/search/brave", { query: "more", limit: 25 }, withKey(key));
    assert.equal(big.body.results.length, 25);
    assert.equal(big.headers.get("x-charged-usd"), "$0.021", "three started tens");
    assert.equal(await balance(key), 1_000_000 - 7_000 - 21_000);
  });

  it("tavily: domains, excludeDomains and since reach the provider; a limit over its maximum is lowered and priced so", async () => {
    const { key } = await stack.newKey(1_000_000);
    const before = fake.requestsOf("tavily").length;
    const r = await stack.post(
      "/web/v1/search/tavily",
      {
        query: "release notes",
        limit: 50,
        domains: ["gamma.example", "https://www.beta.example/"],
        excludeDomains: ["alpha.example"],
        since: "2026-06-01",
        snippets: false,
      },
      withKey(key),
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const sent = fake.requestsOf("tavily").slice(before);
    assert.equal(sent.length, 1);
    assert.deepEqual(sent[0]!.body!.include_domains, ["gamma.example", "beta.example"]);
    assert.deepEqual(sent[0]!.body!.exclude_domains, ["alpha.example"]);
    assert.equal(sent[0]!.body!.start_date, "2026-06-01");
    assert.equal(sent[0]!.body!.max_results, 20);
    assert.equal(r.body.metadata.limit, 20);
    assert.match(r.body.metadata.warnings.join(" "), /limit lowered from 50 to 20/);
    assert.ok(r.body.results.length > 0);
    for (const x of r.body.results) {
      assert.ok(["gamma.example", "www.beta.example"].includes(x.domain), x.domain);
      assert.ok(!x.publishedAt || x.publishedAt >= "2026-06-01", x.publishedAt);
      assert.equal(x.snippet, undefined);
      assert.equal(typeof x.score, "number");
    }
    assert.equal(r.headers.get("x-charged-usd"), "$0.014", "two started tens of the lowered limit");
    assert.equal(await balance(key), 1_000_000 - 14_000);
  });

  it("searxng: pages until limit and applies the filters it lacks to the results", async () => {
    const r = await stack.post("/web/v1/search/searxng", {
      query: "metasearch",
      limit: 15,
      excludeDomains: ["alpha.example"],
      since: "2026-03-01",
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.results.length, 15);
    assert.ok(r.body.results.every((x: { domain: string }) => x.domain !== "docs.alpha.example"));
    assert.ok(r.body.metadata.filteredOut > 0);
    assert.equal(r.headers.get("x-charged-usd"), "$0.014");
  });

  it("a search with no result says success false and is not charged", async () => {
    const { key } = await stack.newKey(1_000_000);
    const r = await stack.post("/web/v1/search/brave", { query: "nothing at all" }, withKey(key));
    assert.equal(r.status, 200);
    assert.equal(r.body.success, false);
    assert.deepEqual(r.body.results, []);
    assert.equal(r.headers.get("x-charged-usd"), "$0.00");
    assert.equal(await balance(key), 1_000_000);
  });

  it("an unknown provider is a 404 listing the configured ones, on POST and GET", async () => {
    const post = await stack.post("/web/v1/search/google", { query: "x" });
    assert.equal(post.status, 404);
    assert.equal(post.body.error.code, "not_found");
    assert.match(post.body.error.message, /no search provider "google".*configured: brave, tavily, searxng/);
    const bad = await stack.post("/web/v1/search/google", { nonsense: true });
    assert.equal(bad.status, 404, "the provider is checked before the body");
    const get = await fetch(`${stack.api.url}/web/v1/search/google`);
    assert.equal(get.status, 404);
    assert.match(
      ((await get.json()) as { error: { message: string } }).error.message,
      /brave, tavily, searxng/,
    );
  });

  it("describes each provider on GET, with the response schema; GET /web/v1/search lists them", async () => {
    const res = await fetch(`${stack.api.url}/web/v1/search/tavily`);
    assert.equal(res.status, 200);
    const etag = res.headers.get("etag")!;
    assert.match(res.headers.get("cache-control") ?? "", /max-age/);
    const again = await fetch(`${stack.api.url}/web/v1/search/tavily`, {
      headers: { "If-None-Match": etag },
    });
    assert.equal(again.status, 304);
    const doc = await res.json();
    assert.equal(doc.route, "/web/v1/search/tavily");
    assert.equal(doc.available, true);
    assert.equal(doc.provider.maxResults, 20);
    assert.equal(doc.mcpTool, "web_search_tavily");
    assert.ok(doc.response.schema.properties.results);
    assert.equal(doc.request.schema.properties.limit.default, 10);
    assert.equal(doc.request.schema.properties.limit.maximum, 50);
    const list = await (await fetch(`${stack.api.url}/web/v1/search`)).json();
    assert.deepEqual(
      list.providers.map((p: { name: string }) => p.name),
      ["brave", "tavily", "searxng"],
    );
  });

  it("a bad body is a 400 naming the field", async () => {
    for (const [body, field] of [
      [{}, "query"],
      [{ query: "x", limit: 51 }, "limit"],
      [{ query: "x", limit: 0 }, "limit"],
      [{ query: "x", snippets: "yes" }, "snippets"],
      [{ query: "x", domains: ["not a domain"] }, "domains.0"],
      [{ query: "x", excludeDomains: "a.example" }, "excludeDomains"],
      [{ query: "x", since: "yesterday" }, "since"],
      [{ query: "x", page: 2 }, "page"],
      [{ query: "word ".repeat(60) }, "query"],
    ] as const) {
      const r = await stack.post("/web/v1/search/brave", body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.error.code, "invalid_request");
      assert.equal(r.body.error.details[0].field, field, JSON.stringify(r.body));
    }
  });

  it("a provider failure is a 502 with the provider's reason, and the hold is refunded", async () => {
    const { key, accountId } = await stack.newKey(1_000_000);
    for (const [provider, query, reason] of [
      ["brave", "please fail", /brave answered HTTP 429: RATE_LIMITED: Request rate limit exceeded for plan/],
      ["tavily", "please fail", /tavily answered HTTP 432: This request exceeds your plan's set usage limit/],
      ["searxng", "enginesdown", /every engine it asked failed: google \(timeout\), bing \(CAPTCHA\)/],
      ["brave", "garbage", /not JSON/],
      ["tavily", "huge", /larger than 100000 bytes/],
      ["searxng", "hang", /searxng did not answer in time/],
    ] as const) {
      const r = await stack.post(`/web/v1/search/${provider}`, { query }, withKey(key));
      assert.equal(r.status, 502, `${provider} ${query}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, "upstream_failed");
      assert.match(r.body.error.message, reason);
      assert.match(r.body.error.message, /nothing was charged/);
    }
    assert.equal(await balance(key), 1_000_000);
    const rows = await stack.pg.database.sql`
      select kind, count(*)::int as n, sum(amount_micros)::int as total from ledger_entries
      where account_id = ${accountId} and route = 'search' group by kind order by kind`;
    assert.deepEqual(
      rows.map((r) => [r.kind, r.n, r.total]),
      [
        ["hold", 6, -42_000],
        ["refund", 6, 42_000],
      ],
    );
    const metrics = await (await fetch(`${stack.api.url}/metrics`)).text();
    assert.match(metrics, /fleet_search_calls_total\{provider="brave",outcome="provider_error"\} 2/);
    assert.match(metrics, /fleet_search_calls_total\{provider="brave",outcome="ok"\} \d+/);
    assert.match(
      metrics,
      /fleet_search_provider_duration_seconds_count\{provider="tavily",outcome="error"\} \d+/,
    );
  });

  it("a balance that does not cover the quote is a 402 with the price, and the provider is not asked", async () => {
    const { key } = await stack.newKey(10_000);
    const before = fake.requestsOf("brave").length;
    const r = await stack.post("/web/v1/search/brave", { query: "x", limit: 20 }, withKey(key));
    assert.equal(r.status, 402);
    assert.equal(r.body.error.code, "insufficient_balance");
    assert.equal(r.body.error.price.micros, 14_000);
    assert.equal(fake.requestsOf("brave").length, before);
  });

  it("keyless REST: a 402 with the price either way; the x402 quote in PAYMENT-REQUIRED only when wallets are on", async () => {
    const before = fake.requestsOf("brave").length;
    const r = await stack.postKeyless("/web/v1/search/brave", { query: "x", limit: 30 });
    assert.equal(r.status, 402);
    assert.equal(r.body.error.code, "payment_required");
    assert.equal(r.body.error.price.micros, 21_000);
    assert.deepEqual(r.body.error.payWith, ["api_key"]);
    assert.equal(r.headers.get("PAYMENT-REQUIRED"), null);
    // A stand-in facilitator: the api only asks it what it settles before answering a 402 quote.
    const facilitator = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          kinds: [{ x402Version: 2, scheme: "exact", network: "eip155:8453" }],
          extensions: [],
          signers: {},
        }),
      );
    });
    await new Promise<void>((r) => facilitator.listen(0, "127.0.0.1", r));
    const wallets = await otherApi({
      ...searchEnv,
      X402_PAY_TO: "0x1111111111111111111111111111111111111111",
      X402_FACILITATOR_URL: `http://127.0.0.1:${(facilitator.address() as AddressInfo).port}`,
    }).catch(async (err) => {
      facilitator.close();
      throw err;
    });
    try {
      const res = await fetch(`${wallets.url}/web/v1/search/tavily`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "x", limit: 50 }),
      });
      assert.equal(res.status, 402);
      const body = (await res.json()) as {
        error: { code: string; price: { micros: number }; payWith: string[] };
      };
      assert.equal(body.error.code, "payment_required");
      assert.deepEqual(body.error.payWith, ["api_key", "x402"]);
      assert.equal(body.error.price.micros, 14_000, "the quote of the lowered limit");
      const challenge = decodePaymentRequiredHeader(res.headers.get("PAYMENT-REQUIRED") ?? "");
      assert.equal(challenge.accepts[0]?.amount, "14000");
      assert.equal(challenge.resource?.url, `${wallets.url}/web/v1/search/tavily`);
    } finally {
      await wallets.close();
      facilitator.close();
    }
    assert.equal(fake.requestsOf("brave").length, before, "nothing was searched");
  });

  it("without providers: 404 saying none is configured, and no web_search tool", async () => {
    const bare = await otherApi({});
    try {
      const res = await fetch(`${bare.url}/web/v1/search/brave`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "x" }),
      });
      assert.equal(res.status, 404);
      assert.match(
        ((await res.json()) as { error: { message: string } }).error.message,
        /no search provider configured/,
      );
      const client = new Client({ name: "e2e", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${bare.url}/mcp`)));
      const { tools } = await client.listTools();
      assert.ok(tools.length > 0);
      assert.equal(tools.filter((t) => t.name.startsWith("web_search_")).length, 0);
      await client.close();
    } finally {
      await bare.close();
    }
  });
});

describe("MCP web_search_{provider}", () => {
  it("lists one tool per configured provider, with the contract's input schema and a description", async () => {
    const client = await mcp();
    try {
      const { tools } = await client.listTools();
      const search = tools.filter((t) => t.name.startsWith("web_search_"));
      assert.deepEqual(
        search.map((t) => t.name),
        ["web_search_brave", "web_search_tavily", "web_search_searxng"],
      );
      const tavily = search.find((t) => t.name === "web_search_tavily")!;
      const props = tavily.inputSchema.properties as Record<string, { default?: unknown }>;
      assert.deepEqual(Object.keys(props).sort(), [
        "domains",
        "excludeDomains",
        "limit",
        "query",
        "since",
        "snippets",
      ]);
      assert.equal(props.limit?.default, 10);
      assert.match(tavily.description ?? "", /Tavily/);
      assert.match(tavily.description ?? "", /at most 20/);
      assert.match(tavily.description ?? "", /\$0\.007 per started 10 results/);
    } finally {
      await client.close();
    }
  });

  it("a keyed call is charged like REST; a provider failure is an error result and refunded", async () => {
    const { key } = await stack.newKey(1_000_000);
    const client = await mcp(key);
    try {
      const ok = await callTool(client, "web_search_brave", { query: "mcp search", limit: 12 });
      assert.equal(ok.isError, false, JSON.stringify(ok.body));
      assert.equal(ok.body.results.length, 12);
      assert.equal(ok.body.results[0].url, "https://docs.alpha.example/mcp-search/1");
      assert.equal(await balance(key), 1_000_000 - 14_000);
      const failed = await callTool(client, "web_search_brave", { query: "fail now" });
      assert.equal(failed.isError, true);
      assert.equal(failed.body.error.code, "upstream_failed");
      assert.match(failed.body.error.message, /RATE_LIMITED/);
      assert.equal(await balance(key), 1_000_000 - 14_000);
      const bad = await callTool(client, "web_search_brave", { query: "x", limit: 99 });
      assert.equal(bad.isError, true);
      assert.equal(bad.body.error.details[0].field, "limit");
    } finally {
      await client.close();
    }
  });

  it("keyless callers get 5 searches ever; a failed or empty search gives its unit back", async () => {
    const client = await mcp();
    try {
      const failed = await callTool(client, "web_search_tavily", { query: "please fail" });
      assert.equal(failed.isError, true);
      assert.equal(failed.body.error.code, "upstream_failed");
      const empty = await callTool(client, "web_search_searxng", { query: "nothing" });
      assert.equal(empty.isError, false);
      assert.equal(empty.body.success, false);
      for (let i = 0; i < 5; i++) {
        const ok = await callTool(client, "web_search_searxng", { query: `free ${i}` });
        assert.equal(ok.isError, false, JSON.stringify(ok.body));
        assert.equal(ok.body.success, true);
      }
      const sixth = await callTool(client, "web_search_brave", { query: "one more" });
      assert.equal(sixth.isError, true);
      assert.equal(sixth.body.error.code, "allowance_exhausted");
      assert.match(sixth.body.error.message, /API key/);
      const [row] = await stack.pg.database.sql`
        select count from allowance_counters where bucket = 'search:ever'`;
      assert.equal(row?.count, 5);
    } finally {
      await client.close();
    }
  });
});
