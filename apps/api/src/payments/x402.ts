/**
 * x402 (protocol v2) wallet payments: quote with a 402 + PAYMENT-REQUIRED, verify the client's
 * PAYMENT-SIGNATURE before doing the work, settle on chain only after the work succeeded.
 *
 * Two schemes are offered, `exact` first: `exact` (an EIP-3009 transferWithAuthorization of the whole
 * quote) settles the whole quote; `upto` (a Permit2 transfer the payer signs for at most the quote)
 * settles what the call really cost, anything from nothing to the quote.
 *
 * Everything protocol- and chain-shaped is @x402/core + @x402/evm: the resource server builds the
 * requirements and matches the client's echo, the facilitator (remote over HTTP, or in-process with
 * our own gas wallet) checks the EIP-712 signature, simulates transferWithAuthorization and settles.
 * We call x402ResourceServer.verifyPayment / settlePayment directly instead of the express-style
 * x402HTTPResourceServer, because the work sits between the two and the price is per call.
 */
import { x402Version } from "@x402/core";
import { x402Facilitator } from "@x402/core/facilitator";
import {
  decodePaymentSignatureHeader,
  encodePaymentRequiredHeader,
  encodePaymentResponseHeader,
} from "@x402/core/http";
import { parsePaymentPayload } from "@x402/core/schemas";
import { type FacilitatorClient, HTTPFacilitatorClient, x402ResourceServer } from "@x402/core/server";
import {
  type Network,
  type PaymentPayload,
  type PaymentRequired,
  type PaymentRequirements,
  SettleError,
  type SettleResponse,
  type SupportedResponse,
  VerifyError,
  type VerifyResponse,
} from "@x402/core/types";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { registerExactEvmScheme as registerExactEvmFacilitator } from "@x402/evm/exact/facilitator";
import { registerExactEvmScheme as registerExactEvmServer } from "@x402/evm/exact/server";
import { UptoEvmScheme as UptoEvmFacilitator } from "@x402/evm/upto/facilitator";
import { UptoEvmScheme as UptoEvmServer } from "@x402/evm/upto/server";
import { createWalletClient, defineChain, getAddress, http, isAddress, publicActions, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { z } from "zod";
import { createX402Chain, type X402Chain } from "./x402-chain.ts";
import { codeForReason, type PaymentErrorCode } from "./x402-reasons.ts";

export type { PaymentRequired } from "@x402/core/types";
export type { PaymentErrorCode } from "./x402-reasons.ts";

export const BASE_MAINNET = "eip155:8453" as const;
/** Circle's USDC on Base: the asset @x402/evm (and so every x402 client) knows for eip155:8453. */
export const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" as const;

export interface X402Settings {
  /** CAIP-2 id of an EVM chain; default "eip155:8453" (Base). */
  network: `${string}:${string}`;
  /** An EIP-3009 token; default Base USDC. Clients pay other tokens only if told to. */
  asset: `0x${string}`;
  /** The token's EIP-712 domain name and version; "USD Coin" and "2" for USDC on Base. */
  assetName: string;
  assetVersion: string;
  payTo: `0x${string}`;
  /** How long a signed authorization is valid; e.g. 300. */
  maxTimeoutSeconds: number;
  /** A remote facilitator (e.g. https://x402.org/facilitator), OR: */
  facilitatorUrl?: string;
  /** a self-hosted in-process facilitator, which pays settlement gas from this key through rpcUrl. */
  facilitatorPrivateKey?: `0x${string}`;
  rpcUrl?: string;
}

/** Why a payment was refused or could not be settled. `reason` is the facilitator's own code, if any. */
export class PaymentError extends Error {
  override readonly name = "PaymentError";
  readonly reason: string | undefined;
  /** Set when a settlement transaction was broadcast but its outcome is unknown (settlement_pending). */
  readonly transaction: string | undefined;
  constructor(
    readonly code: PaymentErrorCode,
    message: string,
    opts: { reason?: string; transaction?: string; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.reason = opts.reason;
    this.transaction = opts.transaction || undefined;
  }
}

export interface PaymentQuote {
  /** Price in the asset's atomic units (USDC micros: 6 decimals). */
  amountMicros: number;
  resourceUrl: string;
  description: string;
}

/**
 * The x402 schemes offered, in the order of the 402's `accepts`: `exact` settles the whole quote, `upto`
 * settles what the call cost (at most the quote).
 */
export type Scheme = "exact" | "upto";

/** A payment whose signature and funds the facilitator checked. Pass it to settle() after the work. */
export interface VerifiedPayment {
  readonly scheme: Scheme;
  /** The wallet that signed, checksummed. */
  readonly payer: `0x${string}`;
  /** The quote: what `exact` settles, and the most `upto` may settle. */
  readonly amountMicros: number;
  /**
   * The authorization nonce (32 bytes, lower-case hex): EIP-3009's for `exact`, Permit2's for `upto`.
   * Unique per payer; store it to refuse replays.
   */
  readonly nonce: `0x${string}`;
  readonly network: Network;
  readonly asset: `0x${string}`;
  readonly payTo: `0x${string}`;
  /** Unix seconds after which the authorization can no longer be settled. */
  readonly validBefore: number;
  /** What the library needs to settle. */
  readonly payload: PaymentPayload;
  readonly requirements: PaymentRequirements;
}

export interface SettledPayment {
  /** base64 JSON for the PAYMENT-RESPONSE header. */
  header: string;
  transaction: string;
  payer: string;
  network: string;
  /** The settled nonce (same as VerifiedPayment.nonce). */
  nonce: `0x${string}`;
  /** What moved: the whole quote with `exact`, the call's cost with `upto`. */
  amountMicros: number;
}

export interface X402Payments {
  /** The schemes this deployment offers, in the order of `accepts` (`upto` only where the facilitator settles it). */
  readonly schemes: readonly Scheme[];
  /** The base64 PAYMENT-REQUIRED header value and its decoded JSON for a quote of `amountMicros` (= USDC atomic units, 6 decimals) for this resource: one entry in `accepts` per scheme, the same amount in each. A quote, not a charge. */
  challenge(q: PaymentQuote & { error?: string }): { header: string; body: PaymentRequired };
  /** Decode + verify a PAYMENT-SIGNATURE header against this call's requirements in the scheme the client chose (amount must be the quote exactly, payTo/asset/network must match). Throws PaymentError. Does no settlement. */
  verify(headerValue: string, q: PaymentQuote): Promise<VerifiedPayment>;
  /**
   * Settle a verified payment on chain (only called after the work succeeded). `exact` settles the whole
   * quote; `upto` settles `amountMicros` (1 to the quote; default the quote). Returns the base64
   * PAYMENT-RESPONSE header value and details (transaction hash, payer, nonce, amount). Throws
   * PaymentError on failure.
   */
  settle(v: VerifiedPayment, amountMicros?: number): Promise<SettledPayment>;
  /**
   * What became of an authorization on chain, for claims whose settlement was never recorded: only with
   * the in-process facilitator, which has a node (rpcUrl). A remote facilitator answers verify and settle
   * only, and the api then has no node of its own to ask.
   */
  readonly chain?: X402Chain;
}

const hex = (bytes: number) => new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`);
const uint = z.string().regex(/^\d{1,78}$/);
const address = z.string().regex(hex(20));
/** The exact scheme's EIP-3009 payload: { authorization, signature }. */
const Eip3009Payload = z.object({
  authorization: z.object({
    from: z.string().regex(hex(20)),
    to: z.string().regex(hex(20)),
    value: uint,
    validAfter: uint,
    validBefore: uint,
    nonce: z.string().regex(hex(32)),
  }),
  signature: z.string().regex(/^0x[0-9a-fA-F]+$/),
});
/** The upto scheme's Permit2 payload: { permit2Authorization, signature }; the nonce is Permit2's uint256. */
const Permit2Payload = z.object({
  permit2Authorization: z.object({
    from: address,
    permitted: z.object({ token: address, amount: uint }),
    spender: address,
    nonce: uint,
    deadline: uint,
    witness: z.object({ to: address, facilitator: address, validAfter: uint }),
  }),
  signature: z.string().regex(/^0x[0-9a-fA-F]+$/),
});
const MAX_UINT256 = 2n ** 256n - 1n;

const MAX_HEADER_CHARS = 16_384;
/** How long the in-process replay guard remembers a nonce at most (the chain remembers forever). */
const GUARD_MAX_MS = 24 * 3600_000;

export async function createX402(settings: X402Settings): Promise<X402Payments> {
  const s = checkSettings(settings);
  const network = s.network as Network;

  const facilitator = makeFacilitator(s, network);
  const server = new x402ResourceServer(facilitator);
  registerExactEvmServer(server, { networks: [network] });
  server.register(network, new UptoEvmServer());
  try {
    await server.initialize(); // asks the facilitator which scheme/network kinds it settles
  } catch (err) {
    throw new Error(
      `x402: the facilitator (${s.facilitatorUrl ?? "in-process"}) could not be initialized: ${errText(err)}` +
        (err instanceof Error && err.cause !== undefined ? ` (${errText(err.cause)})` : ""),
      { cause: err },
    );
  }
  if (!server.getSupportedKind(x402Version, network, "exact")) {
    throw new Error(`x402: the facilitator does not settle the "exact" scheme on ${network}`);
  }
  // upto is offered only where the facilitator settles it (a remote one may not).
  const schemes: Scheme[] = server.getSupportedKind(x402Version, network, "upto")
    ? ["exact", "upto"]
    : ["exact"];

  // Built once by the library (our asset/payTo/timeout; exact adds extra {name, version}, upto the
  // facilitator's address and assetTransferMethod "permit2"); each quote only changes the amount, which
  // keeps challenge() synchronous.
  const templates = await Promise.all(
    schemes.map(async (scheme) => {
      const [template] = await server.buildPaymentRequirements({
        scheme,
        network,
        payTo: s.payTo,
        price: { amount: "0", asset: s.asset, extra: { name: s.assetName, version: s.assetVersion } },
        maxTimeoutSeconds: s.maxTimeoutSeconds,
      });
      if (!template) throw new Error(`x402: the resource server built no ${scheme} payment requirements`);
      return template;
    }),
  );

  const requirementsFor = (amountMicros: number): PaymentRequirements[] => {
    if (!Number.isSafeInteger(amountMicros) || amountMicros <= 0) {
      throw new RangeError(`x402: amountMicros must be a positive integer, got ${amountMicros}`);
    }
    return templates.map((t) => ({ ...t, amount: String(amountMicros), extra: { ...t.extra } }));
  };

  const guard = new NonceGuard();
  const chain = s.rpcUrl && !s.facilitatorUrl ? createX402Chain({ network, rpcUrl: s.rpcUrl }) : undefined;

  return {
    schemes,
    ...(chain ? { chain } : {}),

    challenge(q) {
      const body: PaymentRequired = {
        x402Version,
        error: q.error ?? "Payment required",
        resource: { url: q.resourceUrl, description: q.description, mimeType: "application/json" },
        accepts: requirementsFor(q.amountMicros),
      };
      return { header: encodePaymentRequiredHeader(body), body };
    },

    async verify(headerValue, q) {
      const payload = decode(headerValue);

      // The client echoes the requirements it signed for; they must be this call's exactly, in one of
      // the schemes offered.
      const requirements = server.findMatchingRequirements(requirementsFor(q.amountMicros), payload);
      if (!requirements) {
        const a = payload.accepted;
        throw new PaymentError(
          "payment_mismatch",
          `the payment is for ${a.amount} of ${a.asset} to ${a.payTo} on ${a.network} (${a.scheme}), ` +
            `this call costs ${q.amountMicros} of ${s.asset} to ${s.payTo} on ${network} (${schemes.join(" or ")})`,
        );
      }
      const scheme = requirements.scheme as Scheme;
      const auth = authorizationOf(scheme, payload.payload);
      const key = guard.key(scheme === "upto" ? "permit2" : s.asset, auth.from, auth.nonce);
      guard.refuseIfKnown(key);

      let result: VerifyResponse;
      try {
        result = await server.verifyPayment(payload, requirements);
      } catch (err) {
        if (err instanceof VerifyError)
          result = { isValid: false, invalidReason: err.invalidReason, payer: err.payer };
        else
          throw new PaymentError("payment_failed", `the facilitator could not verify: ${errText(err)}`, {
            cause: err,
          });
      }
      if (!result.isValid) {
        const reason = result.invalidReason ?? "unknown";
        throw new PaymentError(
          codeForReason(reason, "verify"),
          `payment refused: ${reason}${result.invalidMessage ? ` (${result.invalidMessage.slice(0, 300)})` : ""}`,
          { reason },
        );
      }

      const validBefore = auth.validBefore;
      guard.claim(key, validBefore); // throws payment_replayed if a concurrent verify got there first
      return {
        scheme,
        payer: getAddress(auth.from),
        amountMicros: q.amountMicros,
        nonce: auth.nonce,
        network,
        asset: s.asset,
        payTo: s.payTo,
        validBefore,
        payload,
        requirements,
      };
    },

    async settle(v, amountMicros = v.amountMicros) {
      if (
        !Number.isSafeInteger(amountMicros) ||
        amountMicros <= 0 ||
        amountMicros > v.amountMicros ||
        (v.scheme === "exact" && amountMicros !== v.amountMicros)
      ) {
        throw new RangeError(
          `x402: a ${v.scheme} payment of ${v.amountMicros} cannot settle ${amountMicros}` +
            (v.scheme === "exact" ? " (exact settles the whole quote)" : ""),
        );
      }
      const key = guard.key(v.scheme === "upto" ? "permit2" : v.asset, v.payer, v.nonce);
      guard.startSettling(key, v.validBefore);
      let result: SettleResponse;
      try {
        // upto settles the call's cost: the library's settlement override, in atomic units.
        const overrides = v.scheme === "upto" ? { amount: String(amountMicros) } : undefined;
        result = await server.settlePayment(v.payload, v.requirements, undefined, undefined, overrides);
      } catch (err) {
        if (err instanceof SettleError) {
          result = {
            success: false,
            errorReason: err.errorReason,
            errorMessage: err.errorMessage,
            transaction: err.transaction,
            network: v.network,
          };
        } else {
          guard.settleFailed(key, false);
          throw new PaymentError("payment_failed", `the facilitator could not settle: ${errText(err)}`, {
            cause: err,
          });
        }
      }
      if (!result.success) {
        const reason = result.errorReason ?? "unknown";
        const code = codeForReason(reason, "settle");
        guard.settleFailed(key, code === "payment_replayed");
        throw new PaymentError(
          code,
          `settlement failed: ${reason}${result.errorMessage ? ` (${result.errorMessage.slice(0, 300)})` : ""}`,
          { reason, transaction: result.transaction },
        );
      }
      guard.settled(key);
      return {
        header: encodePaymentResponseHeader(result),
        transaction: result.transaction,
        payer: result.payer ?? v.payer,
        network: result.network,
        nonce: v.nonce,
        amountMicros,
      };
    },
  };
}

/** Who signed, the nonce and until when it can be settled: the scheme's payload, read strictly. */
function authorizationOf(
  scheme: Scheme,
  payload: unknown,
): { from: `0x${string}`; nonce: `0x${string}`; validBefore: number } {
  if (scheme === "exact") {
    const parsed = Eip3009Payload.safeParse(payload);
    if (!parsed.success) {
      throw new PaymentError(
        "payment_invalid",
        "an exact payment must be an EIP-3009 transferWithAuthorization; the payload has no valid authorization",
      );
    }
    const a = parsed.data.authorization;
    return {
      from: a.from as `0x${string}`,
      nonce: a.nonce.toLowerCase() as `0x${string}`,
      validBefore: Number(a.validBefore),
    };
  }
  const parsed = Permit2Payload.safeParse(payload);
  const nonce = parsed.success ? BigInt(parsed.data.permit2Authorization.nonce) : -1n;
  if (!parsed.success || nonce > MAX_UINT256) {
    throw new PaymentError(
      "payment_invalid",
      "an upto payment must be a Permit2 transfer authorization; the payload has no valid one",
    );
  }
  const a = parsed.data.permit2Authorization;
  return {
    from: a.from as `0x${string}`,
    nonce: toHex(nonce, { size: 32 }),
    validBefore: Number(a.deadline),
  };
}

function decode(headerValue: string): PaymentPayload {
  if (typeof headerValue !== "string" || headerValue.length === 0 || headerValue.length > MAX_HEADER_CHARS) {
    throw new PaymentError("payment_invalid", "the PAYMENT-SIGNATURE header is empty or too long");
  }
  let raw: unknown;
  try {
    raw = decodePaymentSignatureHeader(headerValue.trim());
  } catch {
    throw new PaymentError("payment_invalid", "the PAYMENT-SIGNATURE header is not base64 of JSON");
  }
  const parsed = parsePaymentPayload(raw);
  if (!parsed.success) {
    throw new PaymentError("payment_invalid", "the PAYMENT-SIGNATURE header is not an x402 payment payload");
  }
  if (parsed.data.x402Version !== x402Version) {
    throw new PaymentError("payment_invalid", `only x402 version ${x402Version} payments are accepted`);
  }
  return parsed.data as PaymentPayload;
}

function makeFacilitator(s: X402Settings, network: Network): FacilitatorClient {
  if (s.facilitatorUrl) return new HTTPFacilitatorClient({ url: s.facilitatorUrl });

  const account = privateKeyToAccount(s.facilitatorPrivateKey as `0x${string}`);
  const chain = defineChain({
    id: Number(network.split(":")[1]),
    name: network,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [s.rpcUrl as string] } },
  });
  const wallet = createWalletClient({
    account,
    chain,
    transport: http(s.rpcUrl, { timeout: 30_000 }),
    pollingInterval: 1_000,
  }).extend(publicActions);
  const signer = toFacilitatorEvmSigner(
    {
      address: account.address,
      getCode: (args) => wallet.getCode(args),
      readContract: (args) => wallet.readContract({ ...args, args: args.args ?? [] } as never),
      verifyTypedData: (args) => wallet.verifyTypedData(args as never),
      writeContract: (args) => wallet.writeContract({ ...args, args: args.args ?? [] } as never),
      sendTransaction: (args) => wallet.sendTransaction(args),
      waitForTransactionReceipt: (args) => wallet.waitForTransactionReceipt(args),
    },
    { confirmationTimeoutMs: 60_000 },
  );
  // simulateInSettle: re-simulate right before broadcasting, so a nonce spent since verify() is refused
  // as nonce_already_used instead of costing gas for a reverting transaction.
  const local = new x402Facilitator();
  registerExactEvmFacilitator(local, { signer, networks: network, simulateInSettle: true });
  // upto pays through Permit2 and the x402 upto proxy at their canonical addresses (which @x402/evm
  // hard-codes); it re-simulates before broadcasting too.
  local.register(network, new UptoEvmFacilitator(signer));

  let chainChecked: Promise<void> | undefined;
  const checkChain = () => {
    chainChecked ??= wallet.getChainId().then((id) => {
      if (id !== chain.id) throw new Error(`rpcUrl serves chain id ${id}, not ${chain.id} (${network})`);
    });
    chainChecked.catch(() => {
      chainChecked = undefined;
    });
    return chainChecked;
  };
  return {
    verify: (payload, requirements) => local.verify(payload, requirements),
    settle: (payload, requirements) => local.settle(payload, requirements),
    // Called by x402ResourceServer.initialize(). x402Facilitator answers synchronously and types
    // kinds[].network as a plain string.
    getSupported: async () => {
      await checkChain();
      return local.getSupported() as SupportedResponse;
    },
  };
}

function checkSettings(settings: X402Settings): X402Settings {
  const problems: string[] = [];
  const s = { ...settings };
  if (!/^eip155:[1-9]\d*$/.test(s.network))
    problems.push(`network must be an EVM CAIP-2 id (eip155:<chain id>), got ${s.network}`);
  if (!isAddress(s.asset, { strict: false })) problems.push(`asset must be a token address, got ${s.asset}`);
  else s.asset = getAddress(s.asset);
  if (!isAddress(s.payTo, { strict: false })) problems.push(`payTo must be an address, got ${s.payTo}`);
  else s.payTo = getAddress(s.payTo);
  if (!s.assetName || !s.assetVersion)
    problems.push("assetName and assetVersion (the EIP-712 domain) are required");
  if (!Number.isSafeInteger(s.maxTimeoutSeconds) || s.maxTimeoutSeconds < 10) {
    problems.push(`maxTimeoutSeconds must be an integer >= 10, got ${s.maxTimeoutSeconds}`);
  }
  const selfHosted = s.facilitatorPrivateKey !== undefined || s.rpcUrl !== undefined;
  if (s.facilitatorUrl && selfHosted) {
    problems.push("set either facilitatorUrl or facilitatorPrivateKey + rpcUrl, not both");
  } else if (s.facilitatorUrl) {
    if (!/^https?:\/\//.test(s.facilitatorUrl)) problems.push("facilitatorUrl must be an http(s) URL");
  } else if (!s.facilitatorPrivateKey || !s.rpcUrl) {
    problems.push("a facilitator is required: facilitatorUrl, or facilitatorPrivateKey + rpcUrl");
  } else {
    if (!hex(32).test(s.facilitatorPrivateKey))
      problems.push("facilitatorPrivateKey must be 32 bytes of 0x hex");
    if (!/^https?:\/\//.test(s.rpcUrl)) problems.push("rpcUrl must be an http(s) URL");
  }
  if (problems.length > 0) throw new Error(`x402 settings: ${problems.join("; ")}`);
  return s;
}

function errText(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 500);
}

/**
 * In-process replay guard, in front of the chain's own authorizationState: refuses a nonce this process
 * has already verified (still in flight, or whose work failed) or settled, so two concurrent requests
 * with one signature cannot both get work done. The durable guard is the caller's unique nonce column.
 * Entries are forgotten when the authorization expires (after which the facilitator refuses it anyway).
 */
class NonceGuard {
  private readonly entries = new Map<string, { state: "verified" | "settling" | "settled"; until: number }>();
  private nextPrune = 0;

  key(asset: string, from: string, nonce: string): string {
    return `${asset}:${from}:${nonce}`.toLowerCase();
  }

  refuseIfKnown(key: string): void {
    this.prune();
    const e = this.entries.get(key);
    if (e) {
      throw new PaymentError(
        "payment_replayed",
        e.state === "settled"
          ? "this payment authorization was already settled"
          : "this payment authorization was already presented",
        { reason: "nonce_already_presented" },
      );
    }
  }

  claim(key: string, validBefore: number): void {
    this.refuseIfKnown(key);
    this.entries.set(key, { state: "verified", until: this.until(validBefore) });
  }

  startSettling(key: string, validBefore: number): void {
    const e = this.entries.get(key);
    if (e?.state === "settled" || e?.state === "settling") {
      throw new PaymentError(
        "payment_replayed",
        e.state === "settled" ? "this payment was already settled" : "this payment is being settled",
        { reason: "nonce_already_presented" },
      );
    }
    this.entries.set(key, { state: "settling", until: this.until(validBefore) });
  }

  settled(key: string): void {
    const e = this.entries.get(key);
    if (e) e.state = "settled";
  }

  /** consumed: the chain says the nonce is used, so it stays refused; otherwise settle() may be retried. */
  settleFailed(key: string, consumed: boolean): void {
    const e = this.entries.get(key);
    if (e) e.state = consumed ? "settled" : "verified";
  }

  private until(validBefore: number): number {
    return Math.min(validBefore * 1000, Date.now() + GUARD_MAX_MS);
  }

  private prune(): void {
    const now = Date.now();
    if (now < this.nextPrune) return;
    this.nextPrune = now + 30_000;
    for (const [k, e] of this.entries) if (e.until < now && e.state !== "settling") this.entries.delete(k);
  }
}
