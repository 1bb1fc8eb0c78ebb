/**
 * End to end, offline: a local anvil chain that looks like Base (USDC at its real address), our x402
 * module with the in-process facilitator, a tiny express route, and the official @x402/fetch client.
 */
import assert from "node:assert/strict";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { x402Client } from "@x402/core/client";
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  decodePaymentSignatureHeader,
  encodePaymentSignatureHeader,
} from "@x402/core/http";
import type { PaymentPayload } from "@x402/core/types";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import express from "express";
import { type Address, createPublicClient, type Hex, http, parseAbi } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { type Chain, PAYER_START_MICROS, startChain } from "../../../test/helpers/chain.ts";
import { payingClient } from "../../../test/helpers/paying-client.ts";
import {
  BASE_USDC,
  createX402,
  PaymentError,
  type VerifiedPayment,
  type X402Payments,
  type X402Settings,
} from "../src/payments/x402.ts";

const PRICE = 1000; // micros = $0.001
const DESCRIPTION = "scrape one page";

describe("x402 payments against a local chain", () => {
  let chain: Chain;
  let settings: X402Settings;
  let payments: X402Payments;
  let server: Server;
  let url: string;
  /** Lets @x402/fetch pay; records every PAYMENT-SIGNATURE it sends. */
  let payingFetch: typeof fetch;
  let sentSignatures: string[] = [];
  /** Signs payments outside any HTTP flow. */
  let signer: x402Client;
  const settledNonces: string[] = [];

  const quote = () => ({ amountMicros: PRICE, resourceUrl: `${url}/scrape`, description: DESCRIPTION });

  async function balances(): Promise<{ payer: bigint; payTo: bigint }> {
    return { payer: await chain.balanceOf(chain.payer), payTo: await chain.balanceOf(chain.payTo) };
  }

  async function authorizationUsed(from: Address, nonce: Hex): Promise<boolean> {
    const client = createPublicClient({ transport: http(chain.rpcUrl) });
    return client.readContract({
      address: chain.usdc,
      abi: parseAbi(["function authorizationState(address, bytes32) view returns (bool)"]),
      functionName: "authorizationState",
      args: [from, nonce],
    });
  }

  /** A fresh, valid PAYMENT-SIGNATURE for `amountMicros`, signed by the payer. */
  async function sign(amountMicros: number): Promise<string> {
    const required = payments.challenge({ ...quote(), amountMicros }).body;
    return encodePaymentSignatureHeader(await signer.createPaymentPayload(required));
  }

  async function post(body: unknown, headers: Record<string, string> = {}) {
    const res = await fetch(`${url}/scrape`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
    return { res, body: (await res.json()) as Record<string, unknown> };
  }

  before(async () => {
    chain = await startChain();
    settings = {
      network: "eip155:8453",
      asset: BASE_USDC,
      assetName: "USD Coin",
      assetVersion: "2",
      payTo: chain.payTo,
      maxTimeoutSeconds: 300,
      facilitatorPrivateKey: chain.facilitatorKey,
      rpcUrl: chain.rpcUrl,
    };
    payments = await createX402(settings);

    const app = express();
    app.post("/scrape", express.json(), async (req, res) => {
      const q = quote();
      const refuse = (e: PaymentError) => {
        const c = payments.challenge({ ...q, error: e.code });
        res
          .status(402)
          .set("PAYMENT-REQUIRED", c.header)
          .json({ ...c.body, message: e.message, reason: e.reason });
      };
      const signature = req.get("PAYMENT-SIGNATURE");
      if (!signature) {
        const c = payments.challenge(q);
        res.status(402).set("PAYMENT-REQUIRED", c.header).json(c.body);
        return;
      }
      let verified: VerifiedPayment;
      try {
        verified = await payments.verify(signature, q);
      } catch (e) {
        if (e instanceof PaymentError) return refuse(e);
        throw e;
      }
      // The "work": fails on request, and then nothing is settled.
      if (req.body?.fail === true) {
        res.status(500).json({ error: "work_failed" });
        return;
      }
      try {
        const settled = await payments.settle(verified);
        settledNonces.push(verified.nonce);
        res.set("PAYMENT-RESPONSE", settled.header).json({
          ok: true,
          payer: verified.payer,
          nonce: verified.nonce,
          transaction: settled.transaction,
        });
      } catch (e) {
        if (e instanceof PaymentError) return refuse(e);
        throw e;
      }
    });
    server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const paying = payingClient(chain.payerKey);
    payingFetch = paying.fetch;
    sentSignatures = paying.sent;
    signer = paying.client;
  });

  after(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await chain?.stop();
  });

  test("an unpaid call gets a 402 whose PAYMENT-REQUIRED is the v2 quote", async () => {
    const { res, body } = await post({});
    assert.equal(res.status, 402);
    const header = res.headers.get("PAYMENT-REQUIRED");
    assert.ok(header, "PAYMENT-REQUIRED header missing");
    // Standard base64 of JSON.
    const decoded = JSON.parse(Buffer.from(header, "base64").toString("utf8"));
    assert.deepEqual(decodePaymentRequiredHeader(header), decoded);
    assert.deepEqual(decoded, {
      x402Version: 2,
      error: "Payment required",
      resource: { url: `${url}/scrape`, description: DESCRIPTION, mimeType: "application/json" },
      accepts: [
        {
          scheme: "exact",
          network: "eip155:8453",
          amount: "1000",
          asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
          payTo: chain.payTo,
          maxTimeoutSeconds: 300,
          extra: { name: "USD Coin", version: "2" },
        },
        {
          scheme: "upto",
          network: "eip155:8453",
          amount: "1000",
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
      ],
    });
    assert.deepEqual(body, decoded);
  });

  test("@x402/fetch pays: exactly 1000 micros move from payer to payTo, PAYMENT-RESPONSE is the receipt", async () => {
    const start = await balances();
    assert.equal(start.payer, PAYER_START_MICROS);
    assert.equal(start.payTo, 0n);

    const res = await payingFetch(`${url}/scrape`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: "https://example.com" }),
    });
    const body = (await res.json()) as { ok: boolean; payer: string; nonce: Hex; transaction: string };
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(body.ok, true);
    assert.equal(sentSignatures.length, 1, "the client should have paid exactly once");

    const receipt = decodePaymentResponseHeader(res.headers.get("PAYMENT-RESPONSE") ?? "");
    assert.equal(receipt.success, true);
    assert.equal(receipt.network, "eip155:8453");
    assert.equal(receipt.payer, chain.payer);
    assert.match(receipt.transaction, /^0x[0-9a-f]{64}$/);
    assert.equal(receipt.transaction, body.transaction);

    const end = await balances();
    assert.equal(start.payer - end.payer, 1000n);
    assert.equal(end.payTo - start.payTo, 1000n);

    // The nonce we hand out is the one the client signed, and the chain now has it as used.
    const sent = decodePaymentSignatureHeader(sentSignatures[0] ?? "") as PaymentPayload;
    const auth = (sent.payload as { authorization: { from: Address; nonce: Hex; value: string } })
      .authorization;
    assert.equal(auth.value, "1000");
    assert.equal(body.nonce, auth.nonce.toLowerCase());
    assert.equal(body.payer, chain.payer);
    assert.equal(await authorizationUsed(auth.from, auth.nonce), true);
  });

  test("replaying the paid PAYMENT-SIGNATURE is refused and moves nothing", async () => {
    const replayed = sentSignatures[0];
    assert.ok(replayed);
    const start = await balances();

    const { res, body } = await post({ url: "https://example.com" }, { "PAYMENT-SIGNATURE": replayed });
    assert.equal(res.status, 402);
    assert.equal(body.error, "payment_replayed");
    assert.equal(res.headers.get("PAYMENT-RESPONSE"), null);

    // A fresh process (no memory of the nonce) refuses it too: the facilitator's simulation sees the
    // authorization used on chain.
    const restarted = await createX402(settings);
    await assert.rejects(restarted.verify(replayed, quote()), (e: unknown) => {
      assert.ok(e instanceof PaymentError);
      assert.equal(e.code, "payment_replayed");
      assert.equal(e.reason, "invalid_exact_evm_nonce_already_used");
      return true;
    });

    assert.deepEqual(await balances(), start);
  });

  test("two verifications of one signature: only the first settlement goes through", async () => {
    const header = await sign(PRICE);
    const start = await balances();
    // Two processes each verify before either settles; both see a valid, unused authorization.
    const a = await createX402(settings);
    const b = await createX402(settings);
    const va = await a.verify(header, quote());
    const vb = await b.verify(header, quote());
    assert.equal(va.nonce, vb.nonce);
    // One process never verifies the same nonce twice.
    await assert.rejects(a.verify(header, quote()), { name: "PaymentError", code: "payment_replayed" });

    const settled = await a.settle(va);
    assert.match(settled.transaction, /^0x[0-9a-f]{64}$/);
    assert.equal(settled.nonce, va.nonce);
    assert.equal(settled.payer, chain.payer);
    assert.equal(settled.network, "eip155:8453");
    await assert.rejects(b.settle(vb), (e: unknown) => {
      assert.ok(e instanceof PaymentError);
      assert.equal(e.code, "payment_replayed");
      return true;
    });
    await assert.rejects(a.settle(va), { name: "PaymentError", code: "payment_replayed" });

    const end = await balances();
    assert.equal(start.payer - end.payer, 1000n);
    assert.equal(end.payTo - start.payTo, 1000n);
  });

  test("a call whose work fails is not settled", async () => {
    const signedBefore = sentSignatures.length;
    const start = await balances();
    const res = await payingFetch(`${url}/scrape`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ fail: true }),
    });
    assert.equal(res.status, 500);
    assert.deepEqual(await res.json(), { error: "work_failed" });
    assert.equal(res.headers.get("PAYMENT-RESPONSE"), null);
    assert.equal(sentSignatures.length, signedBefore + 1, "the client should have signed a payment");

    assert.deepEqual(await balances(), start);
    const sent = decodePaymentSignatureHeader(sentSignatures.at(-1) ?? "") as PaymentPayload;
    const auth = (sent.payload as { authorization: { from: Address; nonce: Hex } }).authorization;
    assert.equal(await authorizationUsed(auth.from, auth.nonce), false);
  });

  test("a signature for a different amount than the quote is refused as payment_mismatch", async () => {
    const start = await balances();

    // Signed honestly for 2000 while this call costs 1000.
    const dearer = await sign(2000);
    const r1 = await post({}, { "PAYMENT-SIGNATURE": dearer });
    assert.equal(r1.res.status, 402);
    assert.equal(r1.body.error, "payment_mismatch");

    // Signed for 500 while this call costs 1000.
    const cheaper = await sign(500);
    await assert.rejects(payments.verify(cheaper, quote()), {
      name: "PaymentError",
      code: "payment_mismatch",
    });

    // Echoes the 1000 quote but the signed authorization is for 500: caught by the facilitator.
    const payload = decodePaymentSignatureHeader(cheaper) as PaymentPayload;
    const forged = encodePaymentSignatureHeader({
      ...payload,
      accepted: { ...payload.accepted, amount: "1000" },
    });
    await assert.rejects(payments.verify(forged, quote()), (e: unknown) => {
      assert.ok(e instanceof PaymentError);
      assert.equal(e.code, "payment_mismatch");
      assert.equal(e.reason, "invalid_exact_evm_payload_authorization_value_mismatch");
      return true;
    });

    // Pays someone else.
    const other = await createX402({ ...settings, payTo: chain.payer });
    const elsewhere = encodePaymentSignatureHeader(
      await signer.createPaymentPayload(other.challenge(quote()).body),
    );
    await assert.rejects(payments.verify(elsewhere, quote()), {
      name: "PaymentError",
      code: "payment_mismatch",
    });

    assert.deepEqual(await balances(), start);
  });

  test("garbage and tampered signatures are payment_invalid", async () => {
    await assert.rejects(payments.verify("not base64!", quote()), {
      name: "PaymentError",
      code: "payment_invalid",
    });
    await assert.rejects(payments.verify(Buffer.from("{}").toString("base64"), quote()), {
      name: "PaymentError",
      code: "payment_invalid",
    });
    const payload = decodePaymentSignatureHeader(await sign(PRICE)) as PaymentPayload;
    const p = payload.payload as { authorization: { validBefore: string }; signature: string };
    // Extending the validity window breaks the EIP-712 signature.
    const tampered = encodePaymentSignatureHeader({
      ...payload,
      payload: {
        ...p,
        authorization: { ...p.authorization, validBefore: String(Number(p.authorization.validBefore) + 1) },
      },
    });
    await assert.rejects(payments.verify(tampered, quote()), (e: unknown) => {
      assert.ok(e instanceof PaymentError);
      assert.equal(e.code, "payment_invalid");
      assert.equal(e.reason, "invalid_exact_evm_signature");
      return true;
    });
  });

  test("a payer without enough USDC is refused before any work", async () => {
    const poor = privateKeyToAccount("0x1111111111111111111111111111111111111111111111111111111111111111");
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: poor });
    const header = encodePaymentSignatureHeader(
      await client.createPaymentPayload(payments.challenge(quote()).body),
    );
    await assert.rejects(payments.verify(header, quote()), (e: unknown) => {
      assert.ok(e instanceof PaymentError);
      assert.equal(e.code, "payment_invalid");
      assert.equal(e.reason, "invalid_exact_evm_insufficient_balance");
      return true;
    });
    await chain.mint(poor.address, 5000n);
    const v = await payments.verify(header, quote());
    assert.equal(v.payer, poor.address);
    assert.equal(v.amountMicros, PRICE);
    assert.match(v.nonce, /^0x[0-9a-f]{64}$/);
  });

  test("the whole run moved exactly two payments", async () => {
    const end = await balances();
    assert.equal(settledNonces.length, 1); // through the route; the other one settled directly
    assert.equal(PAYER_START_MICROS - end.payer, 2000n);
    assert.equal(end.payTo, 2000n);
  });
});

describe("x402 upto payments against a local chain (Permit2)", () => {
  let chain: Chain;
  let payments: X402Payments;
  let server: Server;
  let url: string;
  let paying: ReturnType<typeof payingClient>;

  const quote = () => ({ amountMicros: PRICE, resourceUrl: `${url}/work`, description: DESCRIPTION });
  const balances = async () => ({
    payer: await chain.balanceOf(chain.payer),
    payTo: await chain.balanceOf(chain.payTo),
  });
  /** The "work" costs what the body says (0: nothing came out), at most the quote; fail: it throws. */
  const call = (body: { cost?: number; fail?: boolean }) =>
    paying.fetch(`${url}/work`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  before(async () => {
    chain = await startChain();
    await chain.approvePermit2(chain.payerKey);
    payments = await createX402({
      network: "eip155:8453",
      asset: BASE_USDC,
      assetName: "USD Coin",
      assetVersion: "2",
      payTo: chain.payTo,
      maxTimeoutSeconds: 300,
      facilitatorPrivateKey: chain.facilitatorKey,
      rpcUrl: chain.rpcUrl,
    });
    const app = express();
    app.post("/work", express.json(), async (req, res) => {
      const signature = req.get("PAYMENT-SIGNATURE");
      if (!signature) {
        const c = payments.challenge(quote());
        res.status(402).set("PAYMENT-REQUIRED", c.header).json(c.body);
        return;
      }
      let verified: VerifiedPayment;
      try {
        verified = await payments.verify(signature, quote());
      } catch (e) {
        if (!(e instanceof PaymentError)) throw e;
        res.status(402).json({ error: e.code, reason: e.reason, message: e.message });
        return;
      }
      const cost = Math.min(Number(req.body?.cost ?? PRICE), PRICE);
      if (req.body?.fail === true || cost === 0) {
        res.status(req.body?.fail ? 500 : 200).json({ scheme: verified.scheme, settled: 0 });
        return;
      }
      const settled = await payments.settle(verified, cost);
      res.set("PAYMENT-RESPONSE", settled.header).json({
        scheme: verified.scheme,
        settled: settled.amountMicros,
        transaction: settled.transaction,
      });
    });
    server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    paying = payingClient(chain.payerKey, "upto");
  });

  after(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await chain?.stop();
  });

  test("@x402/fetch signs upto for the quote, and only what the call cost moves", async () => {
    const start = await balances();
    const res = await call({ cost: 400 });
    const body = (await res.json()) as { scheme: string; settled: number; transaction: string };
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(body.scheme, "upto");
    assert.equal(body.settled, 400);

    const sent = decodePaymentSignatureHeader(paying.sent.at(-1) ?? "") as PaymentPayload;
    assert.equal(sent.accepted.scheme, "upto");
    const auth = (sent.payload as { permit2Authorization: { permitted: { amount: string } } })
      .permit2Authorization;
    assert.equal(auth.permitted.amount, "1000", "the payer signed for at most the quote");

    const receipt = decodePaymentResponseHeader(res.headers.get("PAYMENT-RESPONSE") ?? "");
    assert.equal(receipt.success, true);
    assert.equal(receipt.transaction, body.transaction);
    assert.equal(receipt.amount, "400");
    const end = await balances();
    assert.equal(start.payer - end.payer, 400n);
    assert.equal(end.payTo - start.payTo, 400n);
  });

  test("a call that cost the whole quote settles the whole quote", async () => {
    const start = await balances();
    const res = await call({ cost: PRICE });
    assert.equal(res.status, 200, await res.text());
    assert.equal(start.payer - (await chain.balanceOf(chain.payer)), 1000n);
  });

  test("a call where nothing came out, or that failed, settles nothing", async () => {
    const start = await balances();
    const nothing = await call({ cost: 0 });
    assert.deepEqual(await nothing.json(), { scheme: "upto", settled: 0 });
    const failed = await call({ fail: true });
    assert.equal(failed.status, 500);
    await failed.text();
    assert.deepEqual(await balances(), start);
  });

  test("a settled upto signature is refused when replayed, and nothing moves", async () => {
    const replay = paying.sent[0];
    assert.ok(replay);
    const start = await balances();
    await assert.rejects(payments.verify(replay, quote()), {
      name: "PaymentError",
      code: "payment_replayed",
    });
    // A fresh process has no memory of it: the facilitator's simulation fails on the spent Permit2 nonce.
    const restarted = await createX402({
      network: "eip155:8453",
      asset: BASE_USDC,
      assetName: "USD Coin",
      assetVersion: "2",
      payTo: chain.payTo,
      maxTimeoutSeconds: 300,
      facilitatorPrivateKey: chain.facilitatorKey,
      rpcUrl: chain.rpcUrl,
    });
    await assert.rejects(restarted.verify(replay, quote()), { name: "PaymentError" });
    assert.deepEqual(await balances(), start);
  });

  test("never more than the payer signed for, and an exact payment only settles whole", async () => {
    const header = encodePaymentSignatureHeader(
      await paying.client.createPaymentPayload(payments.challenge(quote()).body),
    );
    const v = await payments.verify(header, quote());
    assert.equal(v.scheme, "upto");
    assert.equal(v.amountMicros, PRICE);
    await assert.rejects(payments.settle(v, PRICE + 1), RangeError);
    await assert.rejects(payments.settle(v, 0), RangeError);

    const exact = payingClient(chain.payerKey, "exact");
    const e = await payments.verify(
      encodePaymentSignatureHeader(await exact.client.createPaymentPayload(payments.challenge(quote()).body)),
      quote(),
    );
    assert.equal(e.scheme, "exact");
    await assert.rejects(payments.settle(e, 400), RangeError);
  });

  test("a wallet that never approved Permit2 is refused before any work", async () => {
    const key = "0x2222222222222222222222222222222222222222222222222222222222222222" as const;
    await chain.mint(privateKeyToAccount(key).address, 5000n);
    const client = payingClient(key, "upto").client;
    const header = encodePaymentSignatureHeader(
      await client.createPaymentPayload(payments.challenge(quote()).body),
    );
    await assert.rejects(payments.verify(header, quote()), (e: unknown) => {
      assert.ok(e instanceof PaymentError);
      assert.equal(e.code, "payment_invalid");
      assert.equal(e.reason, "permit2_allowance_required");
      return true;
    });
  });
});
