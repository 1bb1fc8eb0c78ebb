import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from "@x402/core/http";
import { privateKeyToAccount } from "viem/accounts";
import { type Chain, startChain, walletEnv } from "../helpers/chain.ts";
import { payingClient } from "../helpers/paying-client.ts";
import { type Stack, startStack } from "../helpers/stack.ts";
import { waitFor } from "../helpers/wait-for.ts";

/**
 * Wallets charged for what came out, end to end and offline: the api's in-process facilitator on a local
 * chain that has Permit2 and the x402 upto proxy, and the official @x402/fetch client paying with `upto`
 * (it signs for at most the quote; the api settles what the call cost) or with `exact` (the whole quote).
 */
let chain: Chain;
let stack: Stack;
let upto: ReturnType<typeof payingClient>;
let exact: ReturnType<typeof payingClient>;

before(async () => {
  chain = await startChain();
  await chain.approvePermit2(chain.payerKey);
  stack = await startStack({
    env: walletEnv(chain),
  });
  upto = payingClient(chain.payerKey, "upto");
  exact = payingClient(chain.payerKey, "exact");
});
after(async () => {
  await stack?.stop();
  await chain?.stop();
});

// biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the route answered
type Json = any;
const paid = (fetchWith: typeof fetch, path: string, body: unknown) =>
  fetchWith(`${stack.api.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const payerBalance = () => chain.balanceOf(chain.payer);
/** The ledger's wallet payments, oldest first. */
const walletLedger = async () =>
  (
    await stack.pg.database.sql`
      select amount_micros, reference from ledger_entries where kind = 'wallet_payment' order by id`
  ).map((r) => ({ micros: Number(r.amount_micros), reference: String(r.reference) }));

/** markdown comes out, the screenshot of a missing element does not: quote $0.002, cost $0.001. */
const partialScrape = () => ({
  url: `${stack.site.url}/article`,
  formats: ["markdown", "screenshot"],
  screenshot: { selector: "#no-such-element" },
  wait: { timeout: 2_000 },
});

const refOf = (controls: Json[], role: string, name: string): string => {
  const c = controls.find((x) => x.role === role && x.name === name);
  assert.ok(c, `no ${role} "${name}"`);
  return c.ref;
};

describe("x402 upto: a wallet pays for what came out", () => {
  test("the 402 offers exact first, then upto for the same amount, through this facilitator", async () => {
    const r = await stack.postKeyless("/web/v1/scrape", partialScrape());
    assert.equal(r.status, 402);
    const accepts = decodePaymentRequiredHeader(r.headers.get("PAYMENT-REQUIRED") ?? "").accepts;
    assert.deepEqual(
      accepts.map((a) => [a.scheme, a.amount]),
      [
        ["exact", "2000"],
        ["upto", "2000"],
      ],
    );
    assert.equal(accepts[1]?.extra.facilitatorAddress, privateKeyToAccount(chain.facilitatorKey).address);
    assert.equal(accepts[1]?.extra.assetTransferMethod, "permit2");
  });

  test("a scrape where one of two formats failed settles only the format that came out", async () => {
    const start = await payerBalance();
    const ledgerBefore = (await walletLedger()).length;
    const res = await paid(upto.fetch, "/web/v1/scrape", partialScrape());
    const body = (await res.json()) as Json;
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.ok(body.data.markdown);
    assert.ok(body.errors.screenshot, JSON.stringify(body.errors));

    const receipt = decodePaymentResponseHeader(res.headers.get("PAYMENT-RESPONSE") ?? "");
    assert.equal(receipt.success, true);
    assert.equal(receipt.amount, "1000");
    assert.equal(start - (await payerBalance()), 1000n, "$0.001 of the $0.002 quote");
    const ledger = (await walletLedger()).slice(ledgerBefore);
    assert.deepEqual(ledger, [{ micros: 1000, reference: receipt.transaction }]);
  });

  test("the same partial scrape paid with exact settles the whole quote, as the price rule says", async () => {
    const start = await payerBalance();
    const res = await paid(exact.fetch, "/web/v1/scrape", partialScrape());
    const body = (await res.json()) as Json;
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.ok(body.errors.screenshot);
    assert.equal(start - (await payerBalance()), 2000n);
    const described = (await (await fetch(`${stack.api.url}/web/v1/scrape`)).json()) as Json;
    assert.match(described.price, /x402 exact pays the whole quote/);
    assert.match(described.auth, /scheme exact pays the whole quote/);
    assert.match(described.auth, /scheme upto .* pays what came out/);
  });

  test("a scrape that fails settles nothing, and the ledger has no row for it", async () => {
    const start = await payerBalance();
    const ledgerBefore = (await walletLedger()).length;
    const signed = upto.sent.length;
    const res = await paid(upto.fetch, "/web/v1/scrape", {
      url: "http://127.0.0.1:9/",
      formats: ["markdown"],
    });
    await res.text();
    assert.equal(upto.sent.length, signed + 1, "the client did sign an upto payment");
    assert.equal(res.headers.get("PAYMENT-RESPONSE"), null);
    assert.equal(await payerBalance(), start);
    assert.equal((await walletLedger()).length, ledgerBefore);
  });

  test("an act that stops at its third action settles the two actions that ran", async () => {
    const opened = await paid(upto.fetch, "/web/v1/session", { url: `${stack.site.url}/form` });
    const session = (await opened.json()) as Json;
    assert.equal(opened.status, 200, JSON.stringify(session));
    const controls = session.data.controls as Json[];

    const start = await payerBalance();
    const res = await paid(upto.fetch, "/web/v1/act", {
      sessionId: session.sessionId,
      actions: [
        { type: { ref: refOf(controls, "textbox", "Username"), text: "bob" } },
        { click: { ref: refOf(controls, "button", "Cancel") } },
        { click: { ref: "e99999" } },
        { press: "Enter" },
      ],
    });
    const done = (await res.json()) as Json;
    assert.equal(res.status, 200, JSON.stringify(done));
    assert.equal(done.stoppedAt, 2);
    const receipt = decodePaymentResponseHeader(res.headers.get("PAYMENT-RESPONSE") ?? "");
    // Four actions quoted ($0.002), two ran ($0.001), plus any session minute the act claimed.
    const minutes = Number(receipt.amount) - 1000;
    assert.ok(minutes === 0 || minutes % 4000 === 0, `settled ${receipt.amount}`);
    assert.equal(start - (await payerBalance()), BigInt(receipt.amount ?? "-1"));

    const closed = await fetch(`${stack.api.url}/web/v1/session/${session.sessionId}`, { method: "DELETE" });
    assert.equal(closed.status, 200);
  });

  test("one upto signature sent twice at once runs once and settles once; replayed later it is refused", async () => {
    const header = (
      await paid(upto.fetch, "/web/v1/scrape", { url: `${stack.site.url}/article`, formats: ["markdown"] })
    ).headers.get("PAYMENT-RESPONSE");
    assert.ok(header, "a first paid call to have a signature to reuse");
    const settledOne = upto.sent.at(-1) as string;

    const quoted = await stack.postKeyless("/web/v1/scrape", {
      url: `${stack.site.url}/article`,
      formats: ["markdown", "links"],
    });
    const required = decodePaymentRequiredHeader(quoted.headers.get("PAYMENT-REQUIRED") ?? "");
    const signature = encodePaymentSignatureHeader(await upto.client.createPaymentPayload(required));
    const start = await payerBalance();
    const ledgerBefore = (await walletLedger()).length;
    const send = (sig: string, formats: string[]) =>
      fetch(`${stack.api.url}/web/v1/scrape`, {
        method: "POST",
        headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": sig },
        body: JSON.stringify({ url: `${stack.site.url}/article`, formats }),
      });
    const both = await Promise.all([
      send(signature, ["markdown", "links"]),
      send(signature, ["markdown", "links"]),
    ]);
    const statuses = both.map((r) => r.status).sort();
    const codes = await Promise.all(
      both.map(async (r) => {
        if (r.status !== 200) return (await r.json()).error.code;
        await r.text();
        return "ok";
      }),
    );
    assert.deepEqual(statuses, [200, 402], JSON.stringify(codes));
    assert.ok(codes.includes("payment_replayed"), JSON.stringify(codes));
    assert.equal(start - (await payerBalance()), 2000n, "settled once, for both formats that came out");

    const replayed = await send(settledOne, ["markdown"]);
    assert.equal(replayed.status, 402);
    assert.equal((await replayed.json()).error.code, "payment_replayed");
    assert.equal(start - (await payerBalance()), 2000n);
    assert.equal((await walletLedger()).length, ledgerBefore + 1);
  });

  test("usage rows carry what each wallet call was charged", async () => {
    const expected = [1000, 2000, 1000, 2000]; // upto partial, exact partial, then two upto in full
    const scrapes = async () =>
      (
        await stack.pg.database.sql`
          select price_micros from usage
          where payer = ${chain.payer} and route = 'scrape' and status = 200 order by id`
      ).map((r) => Number(r.price_micros));
    // Usage rows are written in batches (every 250 ms): wait for the last batch, not for a time.
    const seen = await waitFor(
      `${expected.length} usage rows`,
      async () => {
        const rows = await scrapes();
        return rows.length >= expected.length ? rows : undefined;
      },
      10_000,
      50,
    );
    assert.deepEqual(seen, expected);
  });
});
