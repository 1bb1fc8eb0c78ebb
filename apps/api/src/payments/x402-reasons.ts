/**
 * Our four payment error codes, and how the facilitator's reason strings (@x402/evm's exact and upto
 * schemes, same strings from a remote facilitator) map onto them.
 */
export type PaymentErrorCode = "payment_invalid" | "payment_replayed" | "payment_mismatch" | "payment_failed";

/** The authorization's nonce is already used on chain (or was already presented to this process). */
const REPLAYED = new Set([
  "invalid_exact_evm_nonce_already_used",
  "nonce_already_presented",
  "permit2_invalid_nonce",
]);

/** The signed transfer is not the one quoted: amount, recipient, network, token or scheme differ. */
const MISMATCH = new Set([
  "invalid_exact_evm_payload_authorization_value_mismatch",
  "invalid_exact_evm_recipient_mismatch",
  "invalid_exact_evm_network_mismatch",
  "invalid_exact_evm_scheme",
  "invalid_exact_evm_token_name_mismatch",
  "invalid_exact_evm_token_version_mismatch",
  "permit2_amount_mismatch",
  "permit2_recipient_mismatch",
  "invalid_permit2_recipient_mismatch",
  "invalid_permit2_spender",
  "permit2_token_mismatch",
  "invalid_upto_evm_scheme",
  "invalid_upto_evm_network_mismatch",
  "upto_facilitator_mismatch",
  "unsupported_scheme",
  "invalid_network",
]);

/**
 * Anything else is the client's fault at verify time (bad signature, expired, insufficient balance:
 * payment_invalid) and a failed settlement at settle time (reverted, pending, balance spent meanwhile:
 * payment_failed).
 */
export function codeForReason(reason: string, phase: "verify" | "settle"): PaymentErrorCode {
  if (REPLAYED.has(reason)) return "payment_replayed";
  if (MISMATCH.has(reason)) return "payment_mismatch";
  return phase === "verify" ? "payment_invalid" : "payment_failed";
}
