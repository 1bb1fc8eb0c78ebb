import {
  claimWalletPayment,
  keepUnsettledWalletPayment,
  recordWalletSettlement,
  releaseWalletPayment,
  type WalletPaymentClaim,
} from "@browserfleet/billing";
import type { Db } from "@browserfleet/db";
import { ApiError } from "../errors.ts";
import {
  PaymentError,
  type PaymentQuote,
  type SettledPayment,
  type VerifiedPayment,
  type X402Payments,
} from "../payments/x402.ts";
import { type CallBooks, price, statusOf, type WayOfPaying } from "./way-of-paying.ts";

/** Claims on x402 authorization nonces in PostgreSQL: a payment runs work at most once. */
export interface WalletClaims {
  /** The claim's id, or undefined when the nonce was already claimed (a replay). */
  claim(c: WalletPaymentClaim): Promise<string | undefined>;
  /** Settled on chain: `amountMicros` moved (what the ledger records). */
  settled(claimId: string, transaction: string, amountMicros: number): Promise<void>;
  /** Drop the claim: the authorization was not used and may be sent again. */
  release(claimId: string): Promise<void>;
  /**
   * The settlement failed or its outcome is unknown: keep the claim pending (its nonce stays refused) for
   * the stale-claim sweep, which asks the chain. `transaction`: one that was broadcast.
   */
  unsettled(claimId: string, transaction?: string): Promise<void>;
}

export const ledgerWalletClaims = (db: Db): WalletClaims => ({
  claim: (c) => claimWalletPayment(db, c),
  settled: async (claimId, transaction, amountMicros) => {
    await recordWalletSettlement(db, claimId, transaction, amountMicros);
  },
  release: (claimId) => releaseWalletPayment(db, claimId),
  unsettled: (claimId, transaction) => keepUnsettledWalletPayment(db, claimId, transaction),
});

/** The x402 facilitator side: quote, verify before the work, settle after it; and the chain, if it reads it. */
export type Facilitator = Pick<X402Payments, "challenge" | "verify" | "settle" | "chain">;

/** `error` with the x402 quote in its PAYMENT-REQUIRED header, so a wallet can pay and repeat the call. */
export function challenge(
  x402: Pick<X402Payments, "challenge">,
  quote: PaymentQuote,
  error: ApiError,
): ApiError {
  const c = x402.challenge({ ...quote, error: error.message });
  return new ApiError(
    error.code,
    error.message,
    error.details,
    { "PAYMENT-REQUIRED": c.header },
    error.extra,
  );
}

/**
 * A wallet paying with x402: the PAYMENT-SIGNATURE is verified and its nonce claimed before any work, and
 * settled only if something came out. With `upto` the wallet pays what came out (formats rendered, actions
 * run, session minutes), never more than the quote it signed for. With `exact` it pays the whole quote: a
 * call where only some of it came out is settled in full. Either way a call where nothing came out is not
 * settled, and its claim is dropped.
 */
export function wallet(
  deps: { x402: Facilitator; claims: WalletClaims; books: CallBooks },
  payment: { signature: string; resourceUrl: string },
): WayOfPaying {
  const { x402, claims, books } = deps;
  return {
    async reserve(call) {
      const quote = {
        amountMicros: call.quote.micros,
        resourceUrl: payment.resourceUrl,
        description: call.description,
      };
      let verified: VerifiedPayment;
      try {
        verified = await x402.verify(payment.signature, quote);
      } catch (err) {
        if (err instanceof PaymentError)
          throw challenge(
            x402,
            quote,
            new ApiError(err.code, err.message, undefined, undefined, { price: price(call.quote.micros) }),
          );
        throw err;
      }
      const claim = await claims.claim({
        network: verified.network,
        asset: verified.asset,
        nonce: verified.nonce,
        payer: verified.payer,
        amountMicros: verified.amountMicros,
        route: call.route,
        requestId: call.requestId,
        scheme: verified.scheme,
        validBefore: new Date(verified.validBefore * 1000),
      });
      if (!claim)
        throw challenge(
          x402,
          quote,
          new ApiError("payment_replayed", "this payment authorization was already used; sign a new one"),
        );
      const payer = { payer: verified.payer };
      return {
        payer: { kind: "wallet", address: verified.payer },
        async commit(actualMicros) {
          if (actualMicros === 0) {
            // Nothing came out: the authorization is not used and may be sent again.
            await claims.release(claim);
            books.usage(200, 0, payer);
            return;
          }
          const due =
            verified.scheme === "upto"
              ? Math.min(actualMicros, verified.amountMicros)
              : verified.amountMicros;
          let settled: SettledPayment;
          try {
            settled = await x402.settle(verified, due);
          } catch (err) {
            // A failed settlement may still have moved the money: a broadcast whose outcome is unknown
            // (settlement_pending) can land later, and an error can come after the transaction was sent.
            // Where the chain can be asked, or a transaction was broadcast, the claim stays pending: the
            // stale-claim sweep records the settlement if it landed, and drops the claim once the
            // authorization has expired unused. Otherwise (a remote facilitator that broadcast nothing)
            // it is dropped now, so the authorization may be sent again.
            const transaction = err instanceof PaymentError ? err.transaction : undefined;
            if (x402.chain || transaction) await claims.unsettled(claim, transaction);
            else await claims.release(claim);
            books.usage(402, 0, payer);
            if (err instanceof PaymentError)
              throw new ApiError("payment_failed", `settlement failed: ${err.message}`);
            throw err;
          }
          try {
            await claims.settled(claim, settled.transaction, settled.amountMicros);
          } catch (err) {
            // The money has moved: the caller paid and gets its answer. The claim stays pending (never
            // released once settled), and the stale-claim sweep records the settlement from the chain.
            const why =
              err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : err;
            console.error(
              `wallet payment ${claim} settled in ${settled.transaction} but not recorded (${why}); ` +
                "its claim stays pending for the stale-claim sweep",
            );
          }
          books.setHeader("PAYMENT-RESPONSE", settled.header);
          books.charged("wallet", due);
          books.usage(200, due, payer);
        },
        async cancel(failure) {
          await claims.release(claim);
          books.usage(statusOf(failure), 0, payer);
        },
      };
    },
  };
}
