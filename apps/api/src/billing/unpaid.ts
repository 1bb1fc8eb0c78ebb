import { acceptedPayments } from "@browserfleet/contracts";
import { usd } from "@browserfleet/pricing";
import { ApiError } from "../errors.ts";

export const HOW_TO_GET_A_KEY =
  "Get an API key from the operator of this service (npm run admin -- create-key) and send it as Authorization: Bearer <key>";

/**
 * The 402 a priced POST gets without key or payment (spec, Errors): a quote, not a charge. It carries the
 * exact price of the call and says how to pay it: with a key or a wallet where the deployment takes
 * wallets, with a key only where it does not or where the call needs one (`keyOnly`: why).
 */
export function paymentRequired(opts: { priceMicros: number; wallets: boolean; keyOnly?: string }): ApiError {
  const cost = `this call costs ${usd(opts.priceMicros)}`;
  const message = opts.keyOnly
    ? `${opts.keyOnly}, not a wallet payment; ${cost}. ${HOW_TO_GET_A_KEY}.`
    : opts.wallets
      ? `${cost}: pay with x402 (the quote is in the PAYMENT-REQUIRED header) or send an API key`
      : `${cost}: pay with an API key, since this deployment takes no wallet payments. ${HOW_TO_GET_A_KEY}.`;
  return new ApiError("payment_required", message, undefined, undefined, {
    price: { usd: usd(opts.priceMicros), micros: opts.priceMicros },
    payWith: acceptedPayments(opts.keyOnly !== undefined, opts),
  });
}
