import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { revokeKey } from "@browserfleet/billing";
import { type Stack, startStack } from "../helpers/stack.ts";

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(async () => {
  await stack?.stop();
});

const get = async (path: string, key?: string) => {
  const res = await fetch(stack.api.url + path, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the route answered
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
};
const balance = async (key: string) => (await get("/web/v1/account", key)).body.balance.micros as number;

describe("API keys", () => {
  test("a wrong, revoked or malformed key is a 401 with a clear code, and nothing runs", async () => {
    const url = `${stack.site.url}/article`;
    const wrong = await stack.post("/web/v1/scrape", { url }, { authorization: "Bearer bf_live_nope" });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error.code, "invalid_key");
    const basic = await stack.post("/web/v1/scrape", { url }, { authorization: "Basic YTpi" });
    assert.equal(basic.status, 401);
    assert.equal(basic.body.error.code, "unauthorized");
    const { key } = await stack.newKey(1_000_000);
    await revokeKey(stack.pg.database.db, key);
    const revoked = await stack.post("/web/v1/scrape", { url }, { authorization: `Bearer ${key}` });
    assert.equal(revoked.status, 401);
    assert.equal(revoked.body.error.code, "key_revoked");
  });

  test("an empty balance is a 402 insufficient_balance carrying the price of the call", async () => {
    const { key } = await stack.newKey(1_500);
    const r = await stack.post(
      "/web/v1/scrape",
      { url: `${stack.site.url}/article`, formats: ["markdown", "links"] },
      { authorization: `Bearer ${key}` },
    );
    assert.equal(r.status, 402);
    assert.equal(r.body.error.code, "insufficient_balance");
    assert.deepEqual(r.body.error.price, { usd: "$0.002", micros: 2_000 });
    assert.deepEqual(r.body.error.balance, { usd: "$0.0015", micros: 1_500 });
    assert.equal(await balance(key), 1_500, "a refused call costs nothing");
  });
});

describe("charges", () => {
  test("a scrape is charged exactly $0.001 per format that came out", async () => {
    const { key } = await stack.newKey(1_000_000);
    const r = await stack.post(
      "/web/v1/scrape",
      { url: `${stack.site.url}/article`, formats: ["markdown", "links", "html"] },
      { authorization: `Bearer ${key}` },
    );
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("x-charged-usd"), "$0.003");
    assert.equal(await balance(key), 1_000_000 - 3_000);
  });

  test("a format that fails is not charged; the others are", async () => {
    const { key } = await stack.newKey(1_000_000);
    const r = await stack.post(
      "/web/v1/scrape",
      {
        url: `${stack.site.url}/article`,
        formats: ["markdown", "screenshot"],
        screenshot: { selector: "#no-such-element" },
        wait: { timeout: 2_000 },
      },
      { authorization: `Bearer ${key}` },
    );
    assert.equal(r.status, 200);
    assert.ok(r.body.data.markdown);
    assert.ok(r.body.errors.screenshot, JSON.stringify(r.body.errors));
    assert.equal(await balance(key), 1_000_000 - 1_000);
  });

  test("a call that fails is refunded in full, and the ledger shows the hold and its refund", async () => {
    const { key } = await stack.newKey(1_000_000);
    const r = await stack.post(
      "/web/v1/scrape",
      { url: "http://127.0.0.1:9/", formats: ["markdown", "links"] },
      { authorization: `Bearer ${key}` },
    );
    assert.ok(r.status >= 400 || r.body.success === false, JSON.stringify(r.body));
    assert.equal(await balance(key), 1_000_000);
    const tx = (await get("/web/v1/account/transactions", key)).body.transactions;
    assert.deepEqual(
      tx.map((t: { kind: string }) => t.kind),
      ["refund", "hold", "topup"],
    );
    assert.equal(tx[0].amount.micros, 2_000);
    assert.equal(tx[1].amount.micros, -2_000);
  });

  test("without wallets configured, a keyless priced POST is a 402 quote: the exact price, pay with a key", async () => {
    const ledgerRows = async () =>
      (await stack.pg.database.sql<{ n: number }[]>`select count(*)::int as n from ledger_entries`)[0]?.n;
    const before = await ledgerRows();
    const visits = stack.site.hits("/article") + stack.site.hits("/form");
    const r = await stack.postKeyless("/web/v1/scrape", {
      url: `${stack.site.url}/article`,
      formats: ["markdown", "links"],
    });
    assert.equal(r.status, 402);
    assert.equal(r.body.error.code, "payment_required");
    assert.deepEqual(r.body.error.price, { usd: "$0.002", micros: 2_000 });
    assert.deepEqual(r.body.error.payWith, ["api_key"]);
    assert.match(
      r.body.error.message,
      /this call costs \$0\.002: pay with an API key, since this deployment takes no wallet payments/,
    );
    assert.match(r.body.error.message, /Authorization: Bearer <key>/);
    assert.equal(r.headers.get("PAYMENT-REQUIRED"), null, "no wallet quote where wallets are off");
    const session = await stack.postKeyless("/web/v1/session", { url: `${stack.site.url}/form` });
    assert.equal(session.status, 402);
    assert.deepEqual(session.body.error.price, { usd: "$0.005", micros: 5_000 });
    const act = await stack.postKeyless("/web/v1/act", {
      sessionId: "ses_nothere12345",
      actions: [{ press: "Tab" }],
    });
    assert.equal(act.status, 404, "an act names a session first: no one else's session is quoted");
    const map = await stack.postKeyless("/web/v1/map", { url: `${stack.site.url}/`, limit: 2500 });
    assert.equal(map.status, 402);
    assert.deepEqual(map.body.error.price, { usd: "$0.0009", micros: 900 });
    assert.equal(await ledgerRows(), before, "a quote is not a charge");
    assert.equal(stack.site.hits("/article") + stack.site.hits("/form"), visits, "nothing ran");
  });

  test("json, crawl and batch need a key: keyless calls get a 402 with the price that says so", async () => {
    const json = await stack.postKeyless("/web/v1/scrape", {
      url: `${stack.site.url}/article`,
      formats: ["json"],
      json: { prompt: "the title" },
    });
    assert.equal(json.status, 402);
    assert.equal(json.body.error.code, "payment_required");
    assert.deepEqual(json.body.error.price, { usd: "$0.003", micros: 3_000 });
    assert.deepEqual(json.body.error.payWith, ["api_key"]);
    assert.match(json.body.error.message, /the json format needs an API key/);
    const crawl = await stack.postKeyless("/web/v1/crawl", { url: `${stack.site.url}/`, limit: 10 });
    assert.equal(crawl.status, 402);
    assert.deepEqual(crawl.body.error.price, { usd: "$0.01", micros: 10_000 });
    assert.match(crawl.body.error.message, /a crawl needs an API key/);
    for (const r of [json, crawl]) assert.equal(r.headers.get("PAYMENT-REQUIRED"), null);
  });

  test("the self-descriptions, OpenAPI and llms.txt say what this deployment does: keys only, 402 without", async () => {
    const scrape = await get("/web/v1/scrape");
    assert.deepEqual(scrape.body.payment.payWith, ["api_key"]);
    assert.equal(scrape.body.payment.withoutPayment.status, 402);
    assert.equal(scrape.body.payment.withoutPayment.paymentRequiredHeader, false);
    assert.match(scrape.body.auth, /this deployment takes no wallet payments/);
    const openapi = (await get("/openapi.json")).body;
    assert.equal(openapi.components.securitySchemes.x402, undefined);
    assert.equal(openapi.paths["/web/v1/scrape"].post.responses["402"].headers, undefined);
    const llms = await (await fetch(`${stack.api.url}/llms.txt`)).text();
    assert.match(llms, /this deployment takes no wallet payments/);
  });
});

describe("cache (maxAge)", () => {
  test("a recent render is served from cache at $0.0002 per format without touching the site", async () => {
    const { key } = await stack.newKey(1_000_000);
    const auth = { authorization: `Bearer ${key}` };
    const url = `${stack.site.url}/page2?cache=1`;
    const first = await stack.post(
      "/web/v1/scrape",
      { url, formats: ["markdown", "links"], maxAge: 60_000 },
      auth,
    );
    assert.equal(first.status, 200);
    assert.equal(first.body.metadata.cached, undefined);
    const hits = stack.site.hits("/page2");
    const second = await stack.post(
      "/web/v1/scrape",
      { url, formats: ["markdown", "links", "html"], maxAge: 60_000 },
      auth,
    );
    assert.equal(second.status, 200);
    assert.deepEqual(second.body.metadata.cached, ["markdown", "links"]);
    assert.equal(second.body.data.markdown, first.body.data.markdown);
    assert.deepEqual(second.body.data.links, first.body.data.links);
    assert.ok(second.body.data.html);
    assert.equal(stack.site.hits("/page2"), hits + 1, "only html was rendered");
    assert.equal(second.headers.get("x-charged-usd"), "$0.0014");
    const third = await stack.post("/web/v1/scrape", { url, formats: ["html"], maxAge: 60_000 }, auth);
    assert.deepEqual(third.body.metadata.cached, ["html"]);
    assert.equal(third.body.metadata.renders, 0);
    assert.equal(stack.site.hits("/page2"), hits + 1, "a full cache hit needs no browser");
    assert.equal(await balance(key), 1_000_000 - 2_000 - 1_400 - 200);
  });

  test("without maxAge, or with cookies, the cache is neither read nor written", async () => {
    const url = `${stack.site.url}/page2?cache=2`;
    await stack.post("/web/v1/scrape", { url, maxAge: 60_000 });
    const before = stack.site.hits("/page2");
    const fresh = await stack.post("/web/v1/scrape", { url });
    assert.equal(fresh.body.metadata.cached, undefined);
    const personal = await stack.post("/web/v1/scrape", {
      url,
      maxAge: 60_000,
      request: { cookies: [{ name: "sid", value: "secret" }] },
    });
    assert.equal(personal.body.metadata.cached, undefined);
    assert.equal(stack.site.hits("/page2"), before + 2);
  });

  test("120 concurrent cached calls on a balance that covers 37: exactly 37 succeed and the ledger sums to the balance", async () => {
    const url = `${stack.site.url}/article?cache=concurrency`;
    const warm = await stack.post("/web/v1/scrape", { url, maxAge: 600_000 });
    assert.equal(warm.status, 200);
    const { key, accountId } = await stack.newKey(37 * 200 + 150);
    const results = await Promise.all(
      Array.from({ length: 120 }, () =>
        stack.post("/web/v1/scrape", { url, maxAge: 600_000 }, { authorization: `Bearer ${key}` }),
      ),
    );
    const statuses = results.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, 37, JSON.stringify(statuses));
    assert.equal(statuses.filter((s) => s === 402).length, 83);
    assert.equal(await balance(key), 150);
    const [sum] = await stack.pg.database.sql`
      select sum(amount_micros)::bigint as amount, sum(held_micros)::bigint as held
      from ledger_entries where account_id = ${accountId}`;
    assert.equal(Number(sum?.amount), 150);
    assert.equal(Number(sum?.held), 0);
  });
});

describe("account views", () => {
  test("account, usage, transactions and sessions need a key and show only the caller's own rows", async () => {
    const a = await stack.newKey(500_000);
    const b = await stack.newKey(700_000);
    await stack.post(
      "/web/v1/scrape",
      { url: `${stack.site.url}/article` },
      { authorization: `Bearer ${a.key}` },
    );

    assert.equal((await get("/web/v1/account")).status, 401);
    const acctA = await get("/web/v1/account", a.key);
    assert.equal(acctA.body.account.id, a.accountId);
    assert.equal(acctA.body.balance.micros, 499_000);
    assert.equal((await get("/web/v1/account", b.key)).body.balance.micros, 700_000);

    const usageA = await get("/web/v1/account/usage", a.key);
    assert.equal(usageA.body.total.calls, 1);
    assert.equal(usageA.body.usage[0].route, "scrape");
    assert.equal(usageA.body.total.spent.micros, 1_000);
    assert.equal((await get("/web/v1/account/usage", b.key)).body.total.calls, 0);

    const txB = await get("/web/v1/account/transactions", b.key);
    assert.deepEqual(
      txB.body.transactions.map((t: { kind: string }) => t.kind),
      ["topup"],
    );
    assert.equal((await get("/web/v1/account/sessions", b.key)).body.sessions.length, 0);
    const bad = await get("/web/v1/account/usage?days=0", a.key);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.details[0].field, "days");
  });

  test("transactions page newest first with a cursor", async () => {
    const { key } = await stack.newKey(1_000_000);
    for (let i = 0; i < 3; i++)
      await stack.post(
        "/web/v1/scrape",
        { url: `${stack.site.url}/page2` },
        { authorization: `Bearer ${key}` },
      );
    const all = (await get("/web/v1/account/transactions?limit=200", key)).body.transactions;
    assert.equal(all.length, 1 + 3 * 2, "topup, then a hold and a capture per call (nothing to refund)");
    const ids: string[] = [];
    let cursor = "";
    for (;;) {
      const page = (await get(`/web/v1/account/transactions?limit=4${cursor}`, key)).body;
      ids.push(...page.transactions.map((t: { id: string }) => t.id));
      if (!page.next) break;
      cursor = `&cursor=${page.next}`;
    }
    assert.deepEqual(
      ids,
      all.map((t: { id: string }) => t.id),
    );
    assert.ok(Number(ids[0]) > Number(ids.at(-1)));
  });

  test("a cursor this api did not give out is a 400 naming the cursor, on every paged view", async () => {
    const { key } = await stack.newKey(1_000_000);
    for (const path of [
      "/web/v1/account/transactions?cursor=abc",
      "/web/v1/account/sessions?cursor=yesterday",
      "/web/v1/crawl/0123456789abcdef?cursor=-1",
    ]) {
      const r = await get(path, key);
      assert.equal(r.status, 400, path);
      assert.equal(r.body.error.code, "invalid_request", path);
      assert.ok(
        r.body.error.details?.some((d: { field: string }) => d.field === "cursor"),
        `${path}: ${JSON.stringify(r.body)}`,
      );
    }
  });
});

describe("readiness", () => {
  test("/readyz reports the database along with NATS and the browser workers", async () => {
    const r = await get("/readyz");
    assert.equal(r.status, 200);
    assert.equal(r.body.database, true);
    assert.equal(r.body.nats, true);
  });
});
