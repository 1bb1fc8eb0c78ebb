/**
 * The pure parts of reading an authorization's fate off the chain: which block a time falls in, a
 * Permit2 nonce bit, an upto proxy call's nonce, and an EIP-3009 AuthorizationUsed with its Transfer.
 * The reads themselves run against anvil in test/e2e/x402-recovery.test.ts.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { x402UptoPermit2ProxyABI } from "@x402/evm";
import {
  type Address,
  encodeAbiParameters,
  encodeEventTopics,
  encodeFunctionData,
  type Hex,
  type Log,
  parseAbi,
} from "viem";
import {
  type ClaimOnChain,
  exactInLogs,
  firstBlockAtOrAfter,
  permit2NonceUsed,
  uptoCallSpends,
} from "../src/payments/x402-chain.ts";

const TOKEN = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" as const;
const PAYER = "0x00000000000000000000000000000000000000a1" as const;
const PAY_TO = "0x00000000000000000000000000000000000000b2" as const;
const NONCE = `0x${"ab".repeat(32)}` as const;
const TX = `0x${"11".repeat(32)}` as const;

describe("firstBlockAtOrAfter", () => {
  // Blocks 0..999, one every 2 s from t=1000.
  const timestampOf = async (n: bigint) => 1000 + Number(n) * 2;
  const latest = { number: 999n, timestamp: 1000 + 999 * 2 };

  it("finds the first block at or after a time, reading few blocks", async () => {
    let reads = 0;
    const counted = async (n: bigint) => {
      reads++;
      return timestampOf(n);
    };
    assert.equal(await firstBlockAtOrAfter(1000 + 990 * 2, latest, counted), 990n);
    assert.ok(reads < 12, `${reads} reads for a recent time`);
    assert.equal(await firstBlockAtOrAfter(1001, latest, timestampOf), 1n, "between blocks: the next one");
    assert.equal(await firstBlockAtOrAfter(1000 + 500 * 2, latest, timestampOf), 500n);
  });

  it("before the first block: block 0; after the latest: the latest", async () => {
    assert.equal(await firstBlockAtOrAfter(0, latest, timestampOf), 0n);
    assert.equal(await firstBlockAtOrAfter(latest.timestamp + 100, latest, timestampOf), 999n);
  });
});

describe("permit2NonceUsed", () => {
  it("reads bit nonce & 255 of the word", () => {
    const nonce = (5n << 8n) | 37n;
    assert.equal(permit2NonceUsed(1n << 37n, nonce), true);
    assert.equal(permit2NonceUsed((1n << 36n) | (1n << 38n), nonce), false);
    assert.equal(permit2NonceUsed(1n << 255n, 255n), true);
  });
});

describe("uptoCallSpends", () => {
  const settle = (nonce: bigint, owner: Address) =>
    encodeFunctionData({
      abi: x402UptoPermit2ProxyABI,
      functionName: "settle",
      args: [
        { permitted: { token: TOKEN, amount: 2000n }, nonce, deadline: 1_800_000_000n },
        1000n,
        owner,
        { to: PAY_TO, facilitator: PAY_TO, validAfter: 0n },
        "0x",
      ],
    });

  it("matches the proxy's settle call by owner and Permit2 nonce", () => {
    const claim = { payer: PAYER, nonce: NONCE } satisfies Pick<ClaimOnChain, "payer" | "nonce">;
    assert.equal(uptoCallSpends(settle(BigInt(NONCE), PAYER), claim), true);
    assert.equal(uptoCallSpends(settle(BigInt(NONCE) - 1n, PAYER), claim), false);
    assert.equal(uptoCallSpends(settle(BigInt(NONCE), PAY_TO), claim), false);
    assert.equal(uptoCallSpends("0xa9059cbb", claim), false, "another call");
  });
});

describe("exactInLogs", () => {
  const events = parseAbi([
    "event Transfer(address indexed from, address indexed to, uint256 value)",
    "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
    "event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)",
  ]);
  const log = (topics: Hex[], data: Hex = "0x", address: Address = TOKEN) =>
    ({ address, topics, data }) as unknown as Log;
  const used = (
    nonce: Hex = NONCE,
    name: "AuthorizationUsed" | "AuthorizationCanceled" = "AuthorizationUsed",
  ) => log(encodeEventTopics({ abi: events, eventName: name, args: { authorizer: PAYER, nonce } }) as Hex[]);
  const transfer = (from: Address, value: bigint, address: Address = TOKEN) =>
    log(
      encodeEventTopics({ abi: events, eventName: "Transfer", args: { from, to: PAY_TO } }) as Hex[],
      encodeAbiParameters([{ type: "uint256" }], [value]),
      address,
    );
  const claim: ClaimOnChain = { scheme: "exact", payer: PAYER, asset: TOKEN, nonce: NONCE, createdAt: 0 };

  it("the Transfer right after this nonce's AuthorizationUsed is what moved", () => {
    const logs = [
      transfer(PAYER, 7n),
      used(`0x${"cd".repeat(32)}`),
      transfer(PAYER, 9n),
      used(),
      transfer(PAYER, 2000n),
    ];
    assert.deepEqual(exactInLogs(logs, claim, TX), {
      settlement: { transaction: TX, to: PAY_TO, amountMicros: 2000 },
    });
  });

  it("another token's events, or no Transfer after it, are not a settlement; a cancellation is said", () => {
    assert.equal(exactInLogs([used(), transfer(PAYER, 2000n, PAY_TO)], claim, TX), undefined);
    assert.equal(exactInLogs([transfer(PAYER, 2000n)], claim, TX), undefined);
    assert.deepEqual(exactInLogs([used(NONCE, "AuthorizationCanceled")], claim, TX), { canceled: true });
  });
});
