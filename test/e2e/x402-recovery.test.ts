/**
 * Wallet payments settled on chain but never recorded, found again. A local chain (anvil, chain id 8453,
 * the EIP-3009 token at the Base USDC address, Permit2 and the x402 upto proxy), the whole stack with the
 * in-process facilitator, and the official @x402/fetch client.
 *
 * The gap: the api settles on chain, then records the settlement in PostgreSQL. If PostgreSQL fails in
 * between, or the api dies (kill -9), the payer's money has moved and the ledger has no row. Here it is
 * made for real, twice: PostgreSQL refuses the api's record (a trigger, once), and a "killed api" is played
 * by the x402 library itself (verify, claim, settle on chain, and nothing after). The stale-claim sweep
 * then asks the chain and records each settlement with its transaction, so the ledger's wallet payments
 * add up to exactly what moved from payer to payTo on chain. A claim whose authorization was never used
 * is kept while it can still be used, and dropped once the chain's clock is past its validBefore.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { claimWalletPayment, keepUnsettledWalletPayment } from "@browserfleet/billing";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { createPublicClient, http, parseAbiItem } from "viem";
import { sweepStaleWalletClaims } from "../../apps/api/src/billing/stale-claims.ts";
import { createApiMetrics } from "../../apps/api/src/metrics.ts";
import { createX402, type VerifiedPayment, type X402Payments } from "../../apps/api/src/payments/x402.ts";
import { createX402Chain } from "../../apps/api/src/payments/x402-chain.ts";
import { type Chain, startChain, walletEnv } from "../helpers/chain.ts";
import { payingClient } from "../helpers/paying-client.ts";
import { type Stack, startStack } from "../helpers/stack.ts";

let chain: Chain;
let stack: Stack;
/** The same library and settings as the api's: what a killed api did before it died. */
let library: X402Payments;
let exact: ReturnType<typeof payingClient>;
let upto: ReturnType<typeof payingClient>;
const metrics = createApiMetrics({
  backlog: async () => ({ pending: 0, ackPending: 0 }),
  slots: () => ({ total: 0, busy: 0, workers: 0, sessions: 0 }),
});

before(async () => {
  chain = await startChain();
  await chain.approvePermit2(chain.payerKey);
  stack = await startStack({ env: walletEnv(chain) });
  library = await createX402({
    network: "eip155:8453",
    asset: chain.usdc,
    assetName: "USD Coin",
    assetVersion: "2",
    payTo: chain.payTo,
    maxTimeoutSeconds: 300,
    facilitatorPrivateKey: chain.facilitatorKey,
    rpcUrl: chain.rpcUrl,
  });
  exact = payingClient(chain.payerKey, "exact");
  upto = payingClient(chain.payerKey, "upto");
});
after(async () => {
  await stack?.stop();
  await chain?.stop();
});

const rpc = () => createPublicClient({ transport: http(chain.rpcUrl) });
const scrapeUrl = () => `${stack.api.url}/web/v1/scrape`;
const article = () => ({ url: `${stack.site.url}/article`, formats: ["markdown", "links"] });

/** The sweep as the api runs it, on every claim (not only those older than twice an authorization's life). */
const sweep = () =>
  sweepStaleWalletClaims(
    {
      db: stack.pg.database.db,
      chain: createX402Chain({ network: "eip155:8453", rpcUrl: chain.rpcUrl }),
      network: "eip155:8453",
      maxTimeoutSeconds: 300,
      metrics,
      log: () => {},
    },
    -60_000,
  );

/** Every payment from payer to payTo on chain, by transaction. */
async function movedOnChain(): Promise<Map<string, number>> {
  const logs = await rpc().getLogs({
    address: chain.usdc,
    event: parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)"),
    args: { from: chain.payer, to: chain.payTo },
    fromBlock: 0n,
    toBlock: "latest",
  });
  const moved = new Map<string, number>();
  for (const l of logs) {
    const hash = l.transactionHash as string;
    moved.set(hash, (moved.get(hash) ?? 0) + Number(l.args.value));
  }
  return moved;
}

/** The ledger's wallet payments, by transaction. */
async function walletLedger(): Promise<Map<string, number>> {
  const rows = await stack.pg.database.sql`
    select reference, sum(amount_micros)::bigint as micros from ledger_entries
    where kind = 'wallet_payment' group by reference`;
  return new Map(rows.map((r) => [String(r.reference), Number(r.micros)]));
}

const pendingClaims = async () =>
  (
    await stack.pg.database.sql`
      select id, scheme, valid_before, transaction from wallet_payments where status = 'pending' order by created_at`
  ).map((r) => ({ id: String(r.id), scheme: r.scheme, validBefore: r.valid_before as Date | null }));

/** A signed authorization for the scrape's quote, from the official client, that nobody has sent yet. */
async function signed(client: ReturnType<typeof payingClient>): Promise<string> {
  const quoted = await stack.postKeyless("/web/v1/scrape", article());
  assert.equal(quoted.status, 402);
  const required = decodePaymentRequiredHeader(quoted.headers.get("PAYMENT-REQUIRED") ?? "");
  return encodePaymentSignatureHeader(await client.client.createPaymentPayload(required));
}

/** What the api does before the work: verify the signature, then claim its nonce. */
async function verifyAndClaim(signature: string): Promise<{ verified: VerifiedPayment; claimId: string }> {
  const verified = await library.verify(signature, {
    amountMicros: 2000,
    resourceUrl: scrapeUrl(),
    description: "scrape",
  });
  const claimId = await claimWalletPayment(stack.pg.database.db, {
    network: verified.network,
    asset: verified.asset,
    nonce: verified.nonce,
    payer: verified.payer,
    amountMicros: verified.amountMicros,
    route: "scrape",
    scheme: verified.scheme,
    validBefore: new Date(verified.validBefore * 1000),
  });
  assert.ok(claimId);
  return { verified, claimId };
}

const recovered = async (scheme: string) =>
  (await metrics.walletClaimsRecovered.get()).values.find((v) => v.labels.scheme === scheme)?.value ?? 0;

describe("x402 settlements the ledger missed are recovered from the chain", () => {
  test("PostgreSQL fails the record after an exact settlement: the caller is answered, the sweep records the transaction", async () => {
    const sql = stack.pg.database.sql;
    await sql.unsafe(`
      create function fail_wallet_record() returns trigger language plpgsql as $$
      begin raise exception 'test: PostgreSQL fails the record of a settlement'; end $$;
      create trigger fail_wallet_record before update on wallet_payments
        for each row when (new.status = 'settled') execute function fail_wallet_record();`);
    const payerBefore = await chain.balanceOf(chain.payer);
    let res: Response;
    try {
      res = await exact.fetch(scrapeUrl(), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(article()),
      });
      await res.text();
    } finally {
      await sql.unsafe(
        `drop trigger fail_wallet_record on wallet_payments; drop function fail_wallet_record();`,
      );
    }
    assert.equal(payerBefore - (await chain.balanceOf(chain.payer)), 2000n, "the money moved on chain");
    assert.equal((await walletLedger()).size, 0, "and the ledger has no row for it");
    assert.equal(res.status, 200, "the caller paid, and gets its answer");
    assert.ok(res.headers.get("PAYMENT-RESPONSE"));
    const pending = await pendingClaims();
    assert.equal(pending.length, 1, "the claim is kept, not dropped");
    assert.equal(pending[0]?.scheme, "exact");

    assert.deepEqual(await sweep(), { recorded: 1, released: 0, kept: 0, unresolved: 0 });
    const moved = await movedOnChain();
    assert.equal(moved.size, 1);
    assert.deepEqual(await walletLedger(), moved, "the ledger has the transaction and what it moved");
    assert.deepEqual(await pendingClaims(), []);
    assert.equal(await recovered("exact"), 1);
    assert.deepEqual(await sweep(), { recorded: 0, released: 0, kept: 0, unresolved: 0 }, "recorded once");
  });

  test("the api dies between the settlement and its record (upto, and exact left settlement_pending): both recorded", async () => {
    // upto: the call cost 1200 of its 2000 quote; the api settled that much and died.
    const u = await verifyAndClaim(await signed(upto));
    assert.equal(u.verified.scheme, "upto");
    const uptoSettled = await library.settle(u.verified, 1200);
    // exact: the settlement's outcome was unknown to the api (settlement_pending); it kept the claim with
    // the broadcast transaction, and died.
    const e = await verifyAndClaim(await signed(exact));
    assert.equal(e.verified.scheme, "exact");
    const exactSettled = await library.settle(e.verified);
    await keepUnsettledWalletPayment(stack.pg.database.db, e.claimId, exactSettled.transaction);
    const ledgerBefore = await walletLedger();
    assert.equal((await pendingClaims()).length, 2);

    assert.deepEqual(await sweep(), { recorded: 2, released: 0, kept: 0, unresolved: 0 });
    const ledger = await walletLedger();
    assert.equal(ledger.get(uptoSettled.transaction), 1200, "upto: the Transfer's value, not the quote");
    assert.equal(ledger.get(exactSettled.transaction), 2000);
    assert.equal(ledger.size, ledgerBefore.size + 2);
    assert.deepEqual(ledger, await movedOnChain(), "the ledger reconciles with the chain");
    assert.deepEqual(await pendingClaims(), []);
    assert.equal(await recovered("upto"), 1);
    assert.equal(await recovered("exact"), 2);
  });

  test("claims whose authorization was never used: kept while it can be used, dropped once the chain is past validBefore", async () => {
    const payerBefore = await chain.balanceOf(chain.payer);
    const ledgerBefore = await walletLedger();
    const e = await verifyAndClaim(await signed(exact));
    const u = await verifyAndClaim(await signed(upto));

    assert.deepEqual(await sweep(), { recorded: 0, released: 0, kept: 2, unresolved: 0 });
    assert.deepEqual(
      (await pendingClaims()).map((c) => c.id),
      [e.claimId, u.claimId],
      "still usable: a settlement may yet land",
    );

    // The chain's clock passes both authorizations' validBefore; nothing was ever settled.
    const latest = await rpc().getBlock({ blockTag: "latest" });
    const validBefore = Math.max(e.verified.validBefore, u.verified.validBefore);
    await rpc().request({
      method: "evm_increaseTime" as never,
      params: [validBefore - Number(latest.timestamp) + 5] as never,
    });
    await rpc().request({ method: "evm_mine" as never, params: [] as never });

    assert.deepEqual(await sweep(), { recorded: 0, released: 2, kept: 0, unresolved: 0 });
    assert.deepEqual(await pendingClaims(), []);
    assert.equal(await chain.balanceOf(chain.payer), payerBefore, "nothing moved");
    assert.deepEqual(await walletLedger(), ledgerBefore, "and nothing was recorded");
    assert.deepEqual(await walletLedger(), await movedOnChain());
  });
});
