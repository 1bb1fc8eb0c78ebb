import { x402Client } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

/**
 * The official x402 client (@x402/fetch) paying from `payerKey` on Base, with every PAYMENT-SIGNATURE it
 * sends recorded in `sent` so tests can replay one.
 */
export function payingClient(payerKey: Hex): { fetch: typeof fetch; client: x402Client; sent: string[] } {
  const sent: string[] = [];
  const recording: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const sig = request.headers.get("PAYMENT-SIGNATURE");
    if (sig) sent.push(sig);
    return fetch(request);
  };
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(payerKey), networks: ["eip155:8453"] });
  return { fetch: wrapFetchWithPayment(recording, client), client, sent };
}
