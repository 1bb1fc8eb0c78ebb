import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { type Chain, startChain, walletEnv } from "../helpers/chain.ts";
import { payingClient } from "../helpers/paying-client.ts";
import { type Stack, startStack } from "../helpers/stack.ts";

/**
 * Wallet payments end to end, offline: a local EVM (anvil, chain id 8453) with an EIP-3009 "USD Coin" at
 * the Base USDC address, the api's in-process facilitator, and the official @x402/fetch client.
 */
let chain: Chain;
let stack: Stack;
let payingFetch: typeof fetch;
let sentSignatures: string[] = [];

before(async () => {
  chain = await startChain();
  stack = await startStack({
    env: walletEnv(chain),
  });
  const paying = payingClient(chain.payerKey);
  payingFetch = paying.fetch;
  sentSignatures = paying.sent;
});
after(async () => {
  await stack?.stop();
  await chain?.stop();
});

const balances = async () => ({
  payer: await chain.balanceOf(chain.payer),
  payTo: await chain.balanceOf(chain.payTo),
});
const scrapeUrl = () => `${stack.api.url}/web/v1/scrape`;
const body = (b: unknown) => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(b),
});

describe("x402 wallet payments", () => {
  test("a keyless call gets a 402 quote for exactly this call, and nothing moves", async () => {
    const start = await balances();
    const r = await stack.postKeyless("/web/v1/scrape", {
      url: `${stack.site.url}/article`,
      formats: ["markdown", "links"],
    });
    assert.equal(r.status, 402);
    assert.equal(r.body.error.code, "payment_required");
    assert.deepEqual(r.body.error.price, { usd: "$0.002", micros: 2000 });
    assert.deepEqual(r.body.error.payWith, ["api_key", "x402"]);
    const challenge = decodePaymentRequiredHeader(r.headers.get("PAYMENT-REQUIRED") ?? "");
    assert.equal(challenge.x402Version, 2);
    assert.equal(challenge.resource?.url, scrapeUrl());
    assert.deepEqual(challenge.accepts, [
      {
        scheme: "exact",
        network: "eip155:8453",
        amount: "2000",
        asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        payTo: chain.payTo,
        maxTimeoutSeconds: 300,
        extra: { name: "USD Coin", version: "2" },
      },
      {
        scheme: "upto",
        network: "eip155:8453",
        amount: "2000",
        asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        payTo: chain.payTo,
        maxTimeoutSeconds: 300,
        extra: {
          name: "USD Coin",
          version: "2",
          assetTransferMethod: "permit2",
          facilitatorAddress: privateKeyToAccount(chain.facilitatorKey).address,
        },
      },
    ]);
    assert.deepEqual(await balances(), start);
  });

  test("crawl, batch and json take a key only: a 402 with the price and no wallet quote, and nothing moves", async () => {
    const start = await balances();
    const json = await stack.postKeyless("/web/v1/scrape", {
      url: `${stack.site.url}/article`,
      formats: ["markdown", "json"],
      json: { prompt: "the title" },
    });
    const crawl = await stack.postKeyless("/web/v1/crawl", { url: `${stack.site.url}/`, limit: 5 });
    const batch = await stack.postKeyless("/web/v1/scrape/batch", {
      urls: [`${stack.site.url}/article`, `${stack.site.url}/page2`],
    });
    for (const [r, micros, reason] of [
      [json, 4000, /the json format needs an API key/],
      [crawl, 5000, /a crawl needs an API key/],
      [batch, 2000, /a batch scrape needs an API key/],
    ] as const) {
      assert.equal(r.status, 402);
      assert.equal(r.body.error.code, "payment_required");
      assert.equal(r.body.error.price.micros, micros);
      assert.deepEqual(r.body.error.payWith, ["api_key"]);
      assert.match(r.body.error.message, reason);
      assert.equal(r.headers.get("PAYMENT-REQUIRED"), null, "a wallet cannot pay for it");
    }
    // the official client, offered no wallet quote, signs nothing (it answers the 402 or gives up)
    const signed = sentSignatures.length;
    const res = await payingFetch(
      `${stack.api.url}/web/v1/crawl`,
      body({ url: `${stack.site.url}/`, limit: 5 }),
    ).catch(() => undefined);
    if (res) {
      assert.equal(res.status, 402);
      await res.text();
    }
    assert.equal(sentSignatures.length, signed);
    assert.deepEqual(await balances(), start);
  });

  test("the self-descriptions, OpenAPI and llms.txt say wallets are taken here, and where not", async () => {
    const scrape = await (await fetch(scrapeUrl())).json();
    assert.deepEqual(scrape.payment.payWith, ["api_key", "x402"]);
    assert.deepEqual(scrape.payment.payWithJsonFormat, ["api_key"]);
    assert.equal(scrape.payment.withoutPayment.paymentRequiredHeader, true);
    const crawl = await (await fetch(`${stack.api.url}/web/v1/crawl`)).json();
    assert.deepEqual(crawl.payment.payWith, ["api_key"]);
    assert.equal(crawl.payment.withoutPayment.paymentRequiredHeader, false);
    const openapi = await (await fetch(`${stack.api.url}/openapi.json`)).json();
    assert.ok(openapi.components.securitySchemes.x402);
    assert.ok(openapi.paths["/web/v1/scrape"].post.responses["402"].headers["PAYMENT-REQUIRED"]);
    const llms = await (await fetch(`${stack.api.url}/llms.txt`)).text();
    assert.match(llms, /x402 quote in the PAYMENT-REQUIRED header/);
  });

  test("the paid call runs, and exactly the quote moves from payer to payTo", async () => {
    const start = await balances();
    const res = await payingFetch(
      scrapeUrl(),
      body({ url: `${stack.site.url}/article`, formats: ["markdown", "links"] }),
    );
    const json = (await res.json()) as { success: boolean; data: Record<string, unknown> };
    assert.equal(res.status, 200, JSON.stringify(json));
    assert.equal(json.success, true);
    assert.ok(json.data.markdown);
    const receipt = decodePaymentResponseHeader(res.headers.get("PAYMENT-RESPONSE") ?? "");
    assert.equal(receipt.success, true);
    const end = await balances();
    assert.equal(start.payer - end.payer, 2000n);
    assert.equal(end.payTo - start.payTo, 2000n);
    const rows = await stack.pg.database.sql`
      select amount_micros, payer, reference from ledger_entries where kind = 'wallet_payment'`;
    assert.equal(rows.length, 1);
    assert.equal(Number(rows[0]?.amount_micros), 2000);
    assert.equal(rows[0]?.reference, receipt.transaction);
  });

  test("a replayed payment signature is refused and nothing moves", async () => {
    const replay = sentSignatures.at(-1);
    assert.ok(replay);
    const start = await balances();
    const res = await fetch(scrapeUrl(), {
      ...body({ url: `${stack.site.url}/article`, formats: ["markdown", "links"] }),
      headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": replay },
    });
    const json = (await res.json()) as { error: { code: string } };
    assert.equal(res.status, 402);
    assert.equal(json.error.code, "payment_replayed");
    assert.deepEqual(await balances(), start);
  });

  test("a payment signed for another amount than the quote is refused", async () => {
    const signed = sentSignatures.at(-1);
    assert.ok(signed);
    const res = await fetch(scrapeUrl(), {
      ...body({ url: `${stack.site.url}/article`, formats: ["markdown"] }),
      headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": signed },
    });
    assert.equal(res.status, 402);
    assert.ok(
      ["payment_mismatch", "payment_replayed"].includes(
        ((await res.json()) as { error: { code: string } }).error.code,
      ),
    );
  });

  test("a call whose work fails is not settled", async () => {
    const start = await balances();
    const before = sentSignatures.length;
    const res = await payingFetch(scrapeUrl(), body({ url: "http://127.0.0.1:9/", formats: ["markdown"] }));
    await res.text();
    assert.equal(sentSignatures.length, before + 1, "the client did sign a payment");
    assert.equal(res.headers.get("PAYMENT-RESPONSE"), null);
    assert.deepEqual(await balances(), start);
    const rows = await stack.pg.database
      .sql`select count(*)::int as n from ledger_entries where kind = 'wallet_payment'`;
    assert.equal(rows[0]?.n, 1, "only the first paid call is in the ledger");
  });

  test("a wallet's session: only acts paid by the same wallet reach it; another wallet gets 404 and pays nothing", async () => {
    const other = generatePrivateKey();
    const otherAddress = privateKeyToAccount(other).address;
    await chain.mint(otherAddress, 1_000_000n);
    const otherFetch = payingClient(other).fetch;

    const opened = await payingFetch(
      `${stack.api.url}/web/v1/session`,
      body({ url: `${stack.site.url}/form` }),
    );
    const session = (await opened.json()) as { sessionId: string };
    assert.equal(opened.status, 200, JSON.stringify(session));
    const act = { sessionId: session.sessionId, actions: [{ press: "Tab" }] };

    const theirs = await otherFetch(`${stack.api.url}/web/v1/act`, body(act));
    assert.equal(theirs.status, 404, await theirs.text());
    assert.equal(await chain.balanceOf(otherAddress), 1_000_000n, "the other wallet was not charged");

    const start = await balances();
    const mine = await payingFetch(`${stack.api.url}/web/v1/act`, body(act));
    assert.equal(mine.status, 200, await mine.text());
    assert.equal(start.payer - (await chain.balanceOf(chain.payer)), 500n, "one action: $0.0005");

    const closed = await fetch(`${stack.api.url}/web/v1/session/${session.sessionId}`, { method: "DELETE" });
    assert.equal(closed.status, 200, "a wallet session closes with its id, free");
  });
});
