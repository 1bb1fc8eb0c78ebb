import type { BalanceLeases } from "@browserfleet/billing";
import { usd } from "@browserfleet/pricing";
import { type CallBooks, insufficient, statusOf, type WayOfPaying } from "./way-of-paying.ts";

export type Leases = Pick<BalanceLeases, "charge" | "refund">;

/**
 * An API key's balance, for a call whose quote is final before the work (served wholly from cache): the
 * quote is charged from the replica's balance lease up front, with no database round trip, and given
 * back if the work throws after all. What came out is the quote, so commit charges nothing more or less.
 */
export function balanceLease(deps: { leases: Leases; books: CallBooks }, accountId: string): WayOfPaying {
  const { leases, books } = deps;
  return {
    async reserve(call) {
      const entry = { accountId, micros: call.quote.micros, route: call.route, requestId: call.requestId };
      const charged = await leases.charge(entry);
      if (!charged.ok) {
        books.usage(402, 0, { accountId });
        throw insufficient(entry.micros, charged.balanceMicros);
      }
      return {
        payer: { kind: "account", accountId },
        async commit() {
          books.charged("account", entry.micros);
          books.setHeader("X-Charged-Usd", usd(entry.micros));
          books.usage(200, entry.micros, { accountId });
        },
        async cancel(failure) {
          await leases.refund(entry);
          books.usage(statusOf(failure), 0, { accountId });
        },
      };
    },
  };
}
