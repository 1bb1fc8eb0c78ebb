/**
 * What became of an x402 authorization on chain: read-only questions the stale-claim sweep asks the node
 * the in-process facilitator settles through (X402_RPC_URL). No gas, no key.
 *
 * - `exact` (EIP-3009): the token's authorizationState(authorizer, nonce) says whether the nonce is spent;
 *   its AuthorizationUsed(authorizer, nonce) event names the transaction, and the Transfer the token emits
 *   right after it in that transaction says what moved (AuthorizationCanceled: the payer cancelled it).
 * - `upto` (Permit2 permitWitnessTransferFrom through the x402 upto proxy): Permit2's nonceBitmap(owner,
 *   word) says whether the nonce is spent; Permit2 logs no event for a spent nonce, so the transaction is
 *   found among the payer's Transfers of the token, as the one whose call to the upto proxy carries this
 *   nonce, and what moved is its Transfer's value.
 */
import { eip3009ABI, PERMIT2_ADDRESS, x402UptoPermit2ProxyABI, x402UptoPermit2ProxyAddress } from "@x402/evm";
import {
  type Address,
  createPublicClient,
  decodeFunctionData,
  defineChain,
  type Hex,
  http,
  isAddressEqual,
  type Log,
  type PublicClient,
  parseAbi,
  parseEventLogs,
} from "viem";

/** The token events EIP-3009 adds to ERC-20 (@x402/evm's eip3009ABI has the functions only). */
const eip3009Events = parseAbi([
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
  "event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)",
]);
/** Permit2's unordered nonces: bit `nonce & 255` of word `nonce >> 8` is set once the nonce is spent. */
const permit2NonceAbi = parseAbi([
  "function nonceBitmap(address owner, uint256 wordPos) view returns (uint256)",
]);

/** A claim, as the chain is asked about it. */
export interface ClaimOnChain {
  scheme: "exact" | "upto";
  payer: Address;
  /** The token the payment is in. */
  asset: Address;
  /** 32 bytes of hex: EIP-3009's nonce, or Permit2's uint256 nonce. */
  nonce: Hex;
  /** When the claim was made: the settlement, if any, came after it. Unix seconds. */
  createdAt: number;
  /** When the authorization stops being usable, if known. Unix seconds. */
  validBefore?: number;
  /** A settlement broadcast whose outcome was unknown: looked at first. */
  transaction?: Hex;
}

/** What the chain says of an authorization. */
export interface AuthorizationFacts {
  /** The block the nonce's state was read at: the latest. `timestamp` in unix seconds. */
  block: { number: bigint; timestamp: number };
  /** The nonce is spent as of that block (settled, or for `exact` cancelled by the payer). */
  used: boolean;
  /** The transaction that spent it and what it moved from the payer, when found. */
  settlement?: { transaction: Hex; to: Address; amountMicros: number };
  /** `exact`: the payer cancelled the authorization (AuthorizationCanceled); nothing moved. */
  canceled?: boolean;
}

export interface X402Chain {
  authorization(claim: ClaimOnChain): Promise<AuthorizationFacts>;
}

/** How far before a claim's creation its settlement is looked for: clocks of PostgreSQL and the chain differ. */
const CLOCK_SLACK_S = 600;
/** Blocks per eth_getLogs request: public RPC providers refuse wide ranges. */
const LOG_RANGE = 2_000n;

export function createX402Chain(opts: { network: string; rpcUrl: string }): X402Chain {
  const chain = defineChain({
    id: Number(opts.network.split(":")[1]),
    name: opts.network,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [opts.rpcUrl] } },
  });
  const client: PublicClient = createPublicClient({
    chain,
    transport: http(opts.rpcUrl, { timeout: 30_000 }),
  });
  return {
    async authorization(claim) {
      const latest = await client.getBlock({ blockTag: "latest" });
      const block = { number: latest.number, timestamp: Number(latest.timestamp) };
      const used =
        claim.scheme === "exact"
          ? await client.readContract({
              address: claim.asset,
              abi: eip3009ABI,
              functionName: "authorizationState",
              args: [claim.payer, claim.nonce],
              blockNumber: block.number,
            })
          : permit2NonceUsed(
              await client.readContract({
                address: PERMIT2_ADDRESS,
                abi: permit2NonceAbi,
                functionName: "nonceBitmap",
                args: [claim.payer, BigInt(claim.nonce) >> 8n],
                blockNumber: block.number,
              }),
              BigInt(claim.nonce),
            );
      if (!used) return { block, used };
      const found =
        claim.scheme === "exact"
          ? await findExact(client, claim, await windowOf(client, claim, block))
          : await findUpto(client, claim, await windowOf(client, claim, block));
      return { block, used, ...found };
    },
  };
}

export function permit2NonceUsed(bitmap: bigint, nonce: bigint): boolean {
  return ((bitmap >> (nonce & 255n)) & 1n) === 1n;
}

interface Window {
  from: bigint;
  to: bigint;
}
type Found = Pick<AuthorizationFacts, "settlement" | "canceled">;

/** The blocks the settlement can be in: from shortly before the claim to when the authorization expired. */
async function windowOf(
  client: PublicClient,
  claim: ClaimOnChain,
  latest: { number: bigint; timestamp: number },
): Promise<Window> {
  const times = new Map<bigint, number>([[latest.number, latest.timestamp]]);
  const timestampOf = async (n: bigint): Promise<number> => {
    let t = times.get(n);
    if (t === undefined) {
      t = Number((await client.getBlock({ blockNumber: n })).timestamp);
      times.set(n, t);
    }
    return t;
  };
  const from = await firstBlockAtOrAfter(claim.createdAt - CLOCK_SLACK_S, latest, timestampOf);
  const to =
    claim.validBefore === undefined || claim.validBefore >= latest.timestamp
      ? latest.number
      : await firstBlockAtOrAfter(claim.validBefore, latest, timestampOf);
  return { from, to };
}

/**
 * The first block whose timestamp is at least `t` (or the latest one): galloping back from the latest
 * block, then bisecting, so a recent `t` costs a handful of reads.
 */
export async function firstBlockAtOrAfter(
  t: number,
  latest: { number: bigint; timestamp: number },
  timestampOf: (n: bigint) => Promise<number>,
): Promise<bigint> {
  if (latest.timestamp < t) return latest.number;
  let hi = latest.number; // timestampOf(hi) >= t
  let lo = -1n; // timestampOf(lo) < t, or before the first block
  for (let step = 1n; ; step *= 2n) {
    const probe = hi - step;
    if (probe < 0n) break;
    if ((await timestampOf(probe)) < t) {
      lo = probe;
      break;
    }
    hi = probe;
  }
  while (hi - lo > 1n) {
    const mid = (lo + hi) / 2n;
    if ((await timestampOf(mid)) < t) lo = mid;
    else hi = mid;
  }
  return hi;
}

async function getLogsChunked<T>(w: Window, get: (from: bigint, to: bigint) => Promise<T[]>): Promise<T[]> {
  const all: T[] = [];
  for (let from = w.from; from <= w.to; from += LOG_RANGE) {
    const to = from + LOG_RANGE - 1n < w.to ? from + LOG_RANGE - 1n : w.to;
    all.push(...(await get(from, to)));
  }
  return all;
}

/** exact: the AuthorizationUsed (or AuthorizationCanceled) event of this nonce, and its Transfer. */
async function findExact(client: PublicClient, claim: ClaimOnChain, w: Window): Promise<Found> {
  const inReceipt = async (hash: Hex): Promise<Found | undefined> => {
    const receipt = await client.getTransactionReceipt({ hash }).catch(() => undefined);
    if (receipt?.status !== "success") return undefined;
    return exactInLogs(receipt.logs, claim, hash);
  };
  if (claim.transaction) {
    const found = await inReceipt(claim.transaction);
    if (found) return found;
  }
  const spent = (event: (typeof eip3009Events)[1] | (typeof eip3009Events)[2]) =>
    getLogsChunked(w, (fromBlock, toBlock) =>
      client.getLogs({
        address: claim.asset,
        event,
        args: { authorizer: claim.payer, nonce: claim.nonce },
        fromBlock,
        toBlock,
      }),
    );
  for (const e of await spent(eip3009Events[1])) {
    const found = e.transactionHash ? await inReceipt(e.transactionHash) : undefined;
    if (found) return found;
  }
  if ((await spent(eip3009Events[2])).length > 0) return { canceled: true };
  return {};
}

/** In one transaction's logs: this nonce's AuthorizationUsed and the payer's Transfer right after it. */
export function exactInLogs(logs: readonly Log[], claim: ClaimOnChain, hash: Hex): Found | undefined {
  const events = parseEventLogs({
    abi: eip3009Events,
    logs: logs.filter((l) => isAddressEqual(l.address, claim.asset)),
  });
  const at = events.findIndex(
    (e) =>
      (e.eventName === "AuthorizationUsed" || e.eventName === "AuthorizationCanceled") &&
      isAddressEqual(e.args.authorizer, claim.payer) &&
      e.args.nonce.toLowerCase() === claim.nonce.toLowerCase(),
  );
  const used = events[at];
  if (!used) return undefined;
  if (used.eventName === "AuthorizationCanceled") return { canceled: true };
  const transfer = events
    .slice(at + 1)
    .find((e) => e.eventName === "Transfer" && isAddressEqual(e.args.from, claim.payer));
  if (transfer?.eventName !== "Transfer") return undefined;
  return {
    settlement: { transaction: hash, to: transfer.args.to, amountMicros: Number(transfer.args.value) },
  };
}

/** upto: the payer's Transfer in a transaction that called the upto proxy with this Permit2 nonce. */
async function findUpto(client: PublicClient, claim: ClaimOnChain, w: Window): Promise<Found> {
  const transfers = await getLogsChunked(w, (fromBlock, toBlock) =>
    client.getLogs({
      address: claim.asset,
      event: eip3009Events[0],
      args: { from: claim.payer },
      fromBlock,
      toBlock,
    }),
  );
  const hashes = [
    ...new Set([
      ...(claim.transaction ? [claim.transaction] : []),
      ...transfers.flatMap((t) => (t.transactionHash ? [t.transactionHash] : [])),
    ]),
  ];
  for (const hash of hashes) {
    const tx = await client.getTransaction({ hash }).catch(() => undefined);
    if (!tx?.to || !isAddressEqual(tx.to, x402UptoPermit2ProxyAddress)) continue;
    if (!uptoCallSpends(tx.input, claim)) continue;
    const receipt = await client.getTransactionReceipt({ hash });
    if (receipt.status !== "success") continue;
    const moved = parseEventLogs({
      abi: eip3009Events,
      eventName: "Transfer",
      logs: receipt.logs.filter((l) => isAddressEqual(l.address, claim.asset)),
    }).find((e) => isAddressEqual(e.args.from, claim.payer));
    if (!moved) continue;
    return { settlement: { transaction: hash, to: moved.args.to, amountMicros: Number(moved.args.value) } };
  }
  return {};
}

/** A call to the upto proxy (settle or settleWithPermit) that spends this owner's Permit2 nonce. */
export function uptoCallSpends(input: Hex, claim: Pick<ClaimOnChain, "payer" | "nonce">): boolean {
  try {
    const call = decodeFunctionData({ abi: x402UptoPermit2ProxyABI, data: input });
    if (call.functionName === "settle") {
      const [permit, , owner] = call.args;
      return permit.nonce === BigInt(claim.nonce) && isAddressEqual(owner, claim.payer);
    }
    if (call.functionName === "settleWithPermit") {
      const [, permit, , owner] = call.args;
      return permit.nonce === BigInt(claim.nonce) && isAddressEqual(owner, claim.payer);
    }
  } catch {
    // another function, or not the proxy's ABI
  }
  return false;
}
