import { z } from "zod";

/** Ways a priced call can be paid: an API key's prepaid balance, or an x402 v2 wallet payment. */
export const payWith = z.enum(["api_key", "x402"]);
export type PayWith = z.infer<typeof payWith>;

/** What about this deployment changes how a call is paid: whether the operator configured a wallet (X402_PAY_TO). */
export interface PaymentSetup {
  wallets: boolean;
  /** Wallets may also pay with the x402 `upto` scheme (the facilitator settles it): they pay what came out. */
  upto?: boolean;
}

/** Who may pay for a route: anyone (key or wallet), or a key only (batch, crawl). */
export type RoutePayment = "any" | "key";

/** The ways to pay one call: a key-only call (batch, crawl, the json format) takes a key even where wallets are on. */
export function acceptedPayments(keyOnly: boolean, setup: PaymentSetup): PayWith[] {
  return setup.wallets && !keyOnly ? ["api_key", "x402"] : ["api_key"];
}

const KEY = "an API key (Authorization: Bearer <key>, charged against a prepaid balance)";
const QUOTE =
  "402 payment_required, a quote and not a charge: error.price is the exact price of that call and error.payWith lists the ways to pay it";

/**
 * What a caller of a priced route is told about paying, exactly as this deployment behaves: the `auth` of
 * its GET self-description, OpenAPI and llms.txt. `jsonFormat`: the route takes the json format, which
 * needs a key.
 */
export function paymentTerms(
  route: { payment: RoutePayment; jsonFormat?: boolean },
  setup: PaymentSetup,
): string {
  if (route.payment === "key")
    return `Needs ${KEY}; not open to wallet payments or the keyless allowance. A POST without a key answers ${QUOTE} (["api_key"]; the price is the most the job can cost, which a key's balance holds), with no PAYMENT-REQUIRED header.`;
  const parts = setup.wallets
    ? [
        `Pay with ${KEY} or an x402 v2 wallet payment. A POST with neither answers ${QUOTE} (["api_key", "x402"]), and the PAYMENT-REQUIRED header carries the x402 quote (network eip155:8453, USDC) ${setup.upto ? "in two schemes, exact first, then upto, for the same amount" : "in scheme exact"}; repeat the call with PAYMENT-SIGNATURE to pay it. A wallet paying with scheme exact pays the whole quote: it is settled in full once anything came out, even when some formats failed or some actions did not run (a key pays only for what came out), and not at all when nothing did.${setup.upto ? " A wallet paying with scheme upto signs a Permit2 authorization of at most the quote (having approved Permit2 for its USDC once) and pays what came out, as a key does: the formats rendered, the actions that ran, the session minutes; nothing when nothing came out." : ""}`,
      ]
    : [
        `Pay with ${KEY}: this deployment takes no wallet payments (no x402 wallet is configured). A POST without a key answers ${QUOTE} (["api_key"]), with no PAYMENT-REQUIRED header.`,
      ];
  if (route.jsonFormat)
    parts.push(
      `With the json format a key is needed${setup.wallets ? " even here" : ""}: without one, 402 payment_required with the price, error.payWith ["api_key"] and no PAYMENT-REQUIRED header.`,
    );
  parts.push("Over MCP (POST /mcp), a caller with no key spends the keyless free allowance instead.");
  return parts.join(" ");
}
