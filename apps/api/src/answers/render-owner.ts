import { renderOwner } from "@browserfleet/render-cache";
import type { Payer } from "../billing/payment.ts";

/** Who may read a render kept for a cursor: whoever paid for the call that cut it. */
export function renderOwnerOf(payer: Payer): string {
  switch (payer.kind) {
    case "account":
      return renderOwner.account(payer.accountId);
    case "wallet":
      return renderOwner.wallet(payer.address);
    case "allowance":
      return renderOwner.client(payer.client);
  }
}
