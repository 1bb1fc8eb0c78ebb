import {
  claimWalletPayment,
  placeHold,
  recordWalletSettlement,
  releaseWalletPayment,
  settleHold,
} from "@browserfleet/billing";
import type { PaymentSetup } from "@browserfleet/contracts";
import { type Quote, usd } from "@browserfleet/pricing";
import type { Request, Response } from "express";
import { type AllowanceRoute, allowanceFor, clientAddress } from "../allowance/index.ts";
import type { ApiContext } from "../context.ts";
import { ApiError } from "../errors.ts";
import { PaymentError, type VerifiedPayment } from "../payments/x402.ts";
import { HOW_TO_GET_A_KEY, paymentRequired } from "./unpaid.ts";

export { HOW_TO_GET_A_KEY } from "./unpaid.ts";

/** How this deployment takes payment: wallets only when the operator configured one (X402_PAY_TO). */
export const paymentSetup = (ctx: Pick<ApiContext, "x402">): PaymentSetup => ({
  wallets: ctx.x402 !== undefined,
});

/** Who pays for a call. */
export type Payer =
  | { kind: "account"; accountId: string }
  | { kind: "wallet"; address: string }
  | { kind: "allowance"; client: string };

/** The caller of a priced call, whatever the transport (REST or an MCP tool call). */
export interface Caller {
  auth?: { keyId: string; accountId: string };
  requestId: string;
  /** The x402 PAYMENT-SIGNATURE the caller sent, if any (REST only). */
  paymentSignature?: string;
  /** The URL a wallet's 402 challenge names as the resource. */
  resourceUrl: string;
  /** Keyless MCP callers spend the free allowance, counted per this client address. */
  allowanceClient?: string;
  setHeader(name: string, value: string): void;
}

export function restCaller(ctx: ApiContext, req: Request, res: Response): Caller {
  const base = ctx.config.PUBLIC_BASE_URL ?? `${req.protocol}://${req.headers.host ?? "localhost"}`;
  const sig = req.headers["payment-signature"];
  return {
    auth: req.auth,
    requestId: req.requestId,
    paymentSignature: typeof sig === "string" ? sig : undefined,
    resourceUrl: base.replace(/\/$/, "") + req.originalUrl,
    setHeader: (name, value) => res.setHeader(name, value),
  };
}

export function mcpCaller(ctx: ApiContext, req: Request, tool: string): Caller {
  return {
    auth: req.auth,
    requestId: req.requestId,
    resourceUrl: `mcp:${tool}`,
    allowanceClient: req.auth ? undefined : clientAddress(req, ctx.config.TRUSTED_PROXY_HOPS),
    setHeader: () => {},
  };
}

export interface PaidWork<T> {
  result: T;
  /** What the caller owes for what came out. 0 means nothing came out: nothing is charged. */
  chargeMicros: number;
  /**
   * Of the free allowance units the call asked for (an act: one per action), how many it used (the
   * actions that ran). Unset: all of them, if anything came out.
   */
  allowanceUnitsUsed?: number;
}

export interface PaidCall<T> {
  /** The route's name in usage rows, metrics and the free allowance. */
  route: AllowanceRoute;
  /** The validated request, for the free allowance's rules. */
  request: unknown;
  quote: Quote;
  /** What the wallet's 402 challenge says the call is. */
  description: string;
  /** Why this call needs a key, when it is not open to wallet payments (spec: crawl, batch, json). */
  keyOnly?: string;
  /** How long the hold may stay open before the reaper refunds it (the call's worst-case duration). */
  holdMs: number;
  /**
   * The quote is final before the work (a call served wholly from cache): an account is charged from the
   * replica's balance lease (no database round trip) instead of a hold and its settlement, and refunded
   * if the work throws after all.
   */
  final?: boolean;
  work(payer: Payer): Promise<PaidWork<T>>;
}

const price = (micros: number) => ({ usd: usd(micros), micros });

const insufficient = (quote: number, balance: number) =>
  new ApiError(
    "insufficient_balance",
    `this call costs ${usd(quote)} and the balance is ${usd(balance)}; top up to continue`,
    undefined,
    undefined,
    { price: price(quote), balance: price(balance) },
  );

function challenge(ctx: ApiContext, caller: Caller, call: PaidCall<unknown>, error: ApiError): ApiError {
  const x402 = ctx.x402;
  if (!x402) return error;
  const c = x402.challenge({
    amountMicros: call.quote.micros,
    resourceUrl: caller.resourceUrl,
    description: call.description,
    error: error.message,
  });
  return new ApiError(
    error.code,
    error.message,
    error.details,
    { "PAYMENT-REQUIRED": c.header },
    error.extra,
  );
}

/**
 * Run priced work for whoever pays: an account (hold the quote, capture what came out, refund the rest),
 * or a wallet (verify the x402 payment first, settle it only if something came out). A keyless call
 * without payment gets the 402 quote: a quote, not a charge.
 */
export async function payFor<T>(ctx: ApiContext, caller: Caller, call: PaidCall<T>): Promise<T> {
  const started = performance.now();
  const usage = (status: number, priceMicros: number, who: { accountId?: string; payer?: string }) =>
    ctx.usage.record({
      ...who,
      route: call.route,
      status,
      priceMicros,
      requestId: caller.requestId,
      ms: Math.round(performance.now() - started),
    });
  const statusOf = (err: unknown) => (err instanceof ApiError ? err.status : 500);

  if (caller.auth && call.final) {
    const accountId = caller.auth.accountId;
    const entry = { accountId, micros: call.quote.micros, route: call.route, requestId: caller.requestId };
    const charged = await ctx.leases.charge(entry);
    if (!charged.ok) {
      void usage(402, 0, { accountId });
      throw insufficient(call.quote.micros, charged.balanceMicros);
    }
    let done: PaidWork<T>;
    try {
      done = await call.work({ kind: "account", accountId });
    } catch (err) {
      await ctx.leases.refund(entry);
      void usage(statusOf(err), 0, { accountId });
      throw err;
    }
    ctx.metrics.charged.inc({ route: call.route, payer: "account" }, call.quote.micros);
    caller.setHeader("X-Charged-Usd", usd(call.quote.micros));
    void usage(200, call.quote.micros, { accountId });
    return done.result;
  }

  if (caller.auth) {
    const accountId = caller.auth.accountId;
    const hold = await placeHold(ctx.db.db, {
      accountId,
      micros: call.quote.micros,
      route: call.route,
      requestId: caller.requestId,
      ttlMs: call.holdMs,
    });
    if (!hold.ok) {
      void usage(402, 0, { accountId });
      throw insufficient(call.quote.micros, hold.balanceMicros);
    }
    let done: PaidWork<T>;
    try {
      done = await call.work({ kind: "account", accountId });
    } catch (err) {
      await settleHold(ctx.db.db, hold.holdId, 0, "the call failed");
      ctx.metrics.refunded.inc({ route: call.route }, call.quote.micros);
      void usage(statusOf(err), 0, { accountId });
      throw err;
    }
    const settled = await settleHold(ctx.db.db, hold.holdId, done.chargeMicros);
    const charged = settled?.capturedMicros ?? 0;
    ctx.metrics.charged.inc({ route: call.route, payer: "account" }, charged);
    if (call.quote.micros > charged)
      ctx.metrics.refunded.inc({ route: call.route }, call.quote.micros - charged);
    caller.setHeader("X-Charged-Usd", usd(charged));
    void usage(200, charged, { accountId });
    return done.result;
  }

  // Keyless MCP callers spend the free allowance, whose rules also refuse what needs a key.
  if (caller.allowanceClient !== undefined) return spendAllowance(ctx, caller.allowanceClient, call, usage);
  const signature = caller.paymentSignature;
  if (call.keyOnly || !ctx.x402)
    throw paymentRequired({ priceMicros: call.quote.micros, wallets: !!ctx.x402, keyOnly: call.keyOnly });
  if (typeof signature !== "string")
    throw challenge(ctx, caller, call, paymentRequired({ priceMicros: call.quote.micros, wallets: true }));

  const quote = {
    amountMicros: call.quote.micros,
    resourceUrl: caller.resourceUrl,
    description: call.description,
  };
  let verified: VerifiedPayment;
  try {
    verified = await ctx.x402.verify(signature, quote);
  } catch (err) {
    if (err instanceof PaymentError)
      throw challenge(
        ctx,
        caller,
        call,
        new ApiError(err.code, err.message, undefined, undefined, { price: price(call.quote.micros) }),
      );
    throw err;
  }
  const claim = await claimWalletPayment(ctx.db.db, {
    network: verified.network,
    asset: verified.asset,
    nonce: verified.nonce,
    payer: verified.payer,
    amountMicros: verified.amountMicros,
    route: call.route,
    requestId: caller.requestId,
  });
  if (!claim) {
    throw challenge(
      ctx,
      caller,
      call,
      new ApiError("payment_replayed", "this payment authorization was already used; sign a new one"),
    );
  }
  const payer = { payer: verified.payer };
  let done: PaidWork<T>;
  try {
    done = await call.work({ kind: "wallet", address: verified.payer });
  } catch (err) {
    await releaseWalletPayment(ctx.db.db, claim);
    void usage(statusOf(err), 0, payer);
    throw err;
  }
  if (done.chargeMicros === 0) {
    // Nothing came out: the authorization is not used and may be sent again.
    await releaseWalletPayment(ctx.db.db, claim);
    void usage(200, 0, payer);
    return done.result;
  }
  try {
    const settled = await ctx.x402.settle(verified);
    await recordWalletSettlement(ctx.db.db, claim, settled.transaction);
    caller.setHeader("PAYMENT-RESPONSE", settled.header);
  } catch (err) {
    await releaseWalletPayment(ctx.db.db, claim);
    void usage(402, 0, payer);
    if (err instanceof PaymentError)
      throw new ApiError("payment_failed", `settlement failed: ${err.message}`);
    throw err;
  }
  ctx.metrics.charged.inc({ route: call.route, payer: "wallet" }, verified.amountMicros);
  void usage(200, verified.amountMicros, payer);
  return done.result;
}

type UsageFn = (status: number, priceMicros: number, who: { accountId?: string; payer?: string }) => void;

/** A keyless MCP call: spend one unit of each of the spec's allowance counters, give it back if nothing came out. */
async function spendAllowance<T>(
  ctx: ApiContext,
  client: string,
  call: PaidCall<T>,
  usage: UsageFn,
): Promise<T> {
  const rule = allowanceFor({ route: call.route, request: call.request }, new Date());
  if (!rule.ok)
    throw new ApiError("key_required", `${rule.reason}. ${HOW_TO_GET_A_KEY}.`, undefined, undefined, {
      price: price(call.quote.micros),
    });
  const spent = await ctx.allowance.consume(client, rule.buckets);
  if (!spent.ok) {
    const asked = spent.units > 1 ? `, and this call asks for ${spent.units}` : "";
    const wallet = ctx.x402 ? ", or pay per call with an x402 wallet over REST" : "";
    throw new ApiError(
      "allowance_exhausted",
      `the free allowance does not cover this call (${spent.bucket}: ${spent.used} of ${spent.limit} used${asked}). ${HOW_TO_GET_A_KEY}${wallet}.`,
      undefined,
      undefined,
      { price: price(call.quote.micros) },
    );
  }
  let done: PaidWork<T>;
  try {
    done = await call.work({ kind: "allowance", client });
  } catch (err) {
    await spent.release();
    throw err;
  }
  if (done.chargeMicros === 0) await spent.release();
  else if (done.allowanceUnitsUsed !== undefined)
    for (const b of rule.buckets)
      if ((b.units ?? 1) > done.allowanceUnitsUsed)
        await spent.giveBack(b.bucket, (b.units ?? 1) - done.allowanceUnitsUsed);
  usage(200, 0, {});
  return done.result;
}
