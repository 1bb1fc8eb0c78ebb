import { x402Client } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

/**
 * The official x402 client (@x402/fetch) paying from `payerKey` on Base, with every PAYMENT-SIGNATURE it
 * sends recorded in `sent` so tests can replay one. It knows one scheme, so it picks that one out of the
 * 402's `accepts`: `exact` (EIP-3009, the default) or `upto` (Permit2; the payer must have approved
 * Permit2 once, see Chain.approvePermit2).
 */
export function payingClient(
  payerKey: Hex,
  scheme: "exact" | "upto" = "exact",
): { fetch: typeof fetch; client: x402Client; sent: string[] } {
  const sent: string[] = [];
  const recording: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const sig = request.headers.get("PAYMENT-SIGNATURE");
    if (sig) sent.push(sig);
    return fetch(request);
  };
  const client = new x402Client();
  const signer = privateKeyToAccount(payerKey);
  if (scheme === "exact") registerExactEvmScheme(client, { signer, networks: ["eip155:8453"] });
  else client.register("eip155:8453", new UptoEvmScheme(signer));
  return { fetch: wrapFetchWithPayment(recording, client), client, sent };
}
