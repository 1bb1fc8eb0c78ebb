import {
  chargeNow,
  claimWalletPayment,
  placeHold,
  recordWalletSettlement,
  refundCharge,
  releaseWalletPayment,
  settleHold,
} from "@browserfleet/billing";
import { type Quote, usd } from "@browserfleet/pricing";
import type { Request, Response } from "express";
import type { ApiContext } from "../context.ts";
import { ApiError } from "../errors.ts";
import { PaymentError, type VerifiedPayment } from "../payments/x402.ts";

/** Who pays for a call. */
export type Payer = { kind: "account"; accountId: string } | { kind: "wallet"; address: string };

export interface PaidWork<T> {
  result: T;
  /** What the caller owes for what came out. 0 means nothing came out: nothing is charged. */
  chargeMicros: number;
}

export interface PaidCall<T> {
  /** The route's name in usage rows and metrics: scrape, session, act, map, ... */
  route: string;
  quote: Quote;
  /** What the wallet's 402 challenge says the call is. */
  description: string;
  /** Set when this call is not open to wallet payments (spec: crawl, batch, json need a key). */
  keyOnly?: string;
  /** How long the hold may stay open before the reaper refunds it (the call's worst-case duration). */
  holdMs: number;
  /**
   * The quote is final before the work (a call served wholly from cache): an account is charged in one
   * statement instead of a hold and its settlement, and refunded if the work throws after all.
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

function resourceUrl(ctx: ApiContext, req: Request): string {
  const base = ctx.config.PUBLIC_BASE_URL ?? `${req.protocol}://${req.headers.host ?? "localhost"}`;
  return base.replace(/\/$/, "") + req.originalUrl;
}

function challenge(ctx: ApiContext, req: Request, call: PaidCall<unknown>, error: ApiError): ApiError {
  const x402 = ctx.x402;
  if (!x402) return error;
  const c = x402.challenge({
    amountMicros: call.quote.micros,
    resourceUrl: resourceUrl(ctx, req),
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
export async function payFor<T>(ctx: ApiContext, req: Request, res: Response, call: PaidCall<T>): Promise<T> {
  const started = performance.now();
  const usage = (status: number, priceMicros: number, who: { accountId?: string; payer?: string }) =>
    ctx.usage.record({
      ...who,
      route: call.route,
      status,
      priceMicros,
      requestId: req.requestId,
      ms: Math.round(performance.now() - started),
    });
  const statusOf = (err: unknown) => (err instanceof ApiError ? err.status : 500);

  if (req.auth && call.final) {
    const accountId = req.auth.accountId;
    const entry = { accountId, micros: call.quote.micros, route: call.route, requestId: req.requestId };
    const charged = await chargeNow(ctx.db.db, entry);
    if (!charged.ok) {
      void usage(402, 0, { accountId });
      throw insufficient(call.quote.micros, charged.balanceMicros);
    }
    let done: PaidWork<T>;
    try {
      done = await call.work({ kind: "account", accountId });
    } catch (err) {
      await refundCharge(ctx.db.db, entry);
      void usage(statusOf(err), 0, { accountId });
      throw err;
    }
    ctx.metrics.charged.inc({ route: call.route, payer: "account" }, call.quote.micros);
    res.setHeader("X-Charged-Usd", usd(call.quote.micros));
    void usage(200, call.quote.micros, { accountId });
    return done.result;
  }

  if (req.auth) {
    const accountId = req.auth.accountId;
    const hold = await placeHold(ctx.db.db, {
      accountId,
      micros: call.quote.micros,
      route: call.route,
      requestId: req.requestId,
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
      void usage(statusOf(err), 0, { accountId });
      throw err;
    }
    const settled = await settleHold(ctx.db.db, hold.holdId, done.chargeMicros);
    const charged = settled?.capturedMicros ?? 0;
    ctx.metrics.charged.inc({ route: call.route, payer: "account" }, charged);
    res.setHeader("X-Charged-Usd", usd(charged));
    void usage(200, charged, { accountId });
    return done.result;
  }

  if (call.keyOnly) throw new ApiError("key_required", call.keyOnly);
  const signature = req.headers["payment-signature"];
  if (!ctx.x402) {
    throw new ApiError(
      "key_required",
      "this deployment takes API keys only: send Authorization: Bearer <API key>",
      undefined,
      undefined,
      { price: price(call.quote.micros) },
    );
  }
  if (typeof signature !== "string") {
    throw challenge(
      ctx,
      req,
      call,
      new ApiError(
        "payment_required",
        `this call costs ${usd(call.quote.micros)}: pay with x402 (the quote is in the PAYMENT-REQUIRED header) or send an API key`,
        undefined,
        undefined,
        { price: price(call.quote.micros) },
      ),
    );
  }

  const quote = {
    amountMicros: call.quote.micros,
    resourceUrl: resourceUrl(ctx, req),
    description: call.description,
  };
  let verified: VerifiedPayment;
  try {
    verified = await ctx.x402.verify(signature, quote);
  } catch (err) {
    if (err instanceof PaymentError)
      throw challenge(
        ctx,
        req,
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
    requestId: req.requestId,
  });
  if (!claim) {
    throw challenge(
      ctx,
      req,
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
    res.setHeader("PAYMENT-RESPONSE", settled.header);
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
