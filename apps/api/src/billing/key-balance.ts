import { type HoldResult, placeHold, type Settlement, settleHold } from "@browserfleet/billing";
import type { Db } from "@browserfleet/db";
import {
  bookAccountCharge,
  type CallBooks,
  type HoldRequest,
  insufficient,
  statusOf,
  type WayOfPaying,
} from "./way-of-paying.ts";

/** Holds on an account's balance in the ledger. */
export interface Holds {
  place(h: HoldRequest): Promise<HoldResult>;
  /** Capture `capturedMicros` (never more than the hold) and refund the rest; undefined if already closed. */
  settle(holdId: string, capturedMicros: number, note?: string): Promise<Settlement | undefined>;
}

export const ledgerHolds = (db: Db): Holds => ({
  place: (h) => placeHold(db, h),
  settle: (holdId, capturedMicros, note) => settleHold(db, holdId, capturedMicros, note),
});

/**
 * An API key's prepaid balance: hold the call's quote, capture what came out and refund the rest at once;
 * a call that fails is refunded in full.
 */
export function keyBalance(deps: { holds: Holds; books: CallBooks }, accountId: string): WayOfPaying {
  const { holds, books } = deps;
  return {
    async reserve(call) {
      const quote = call.quote.micros;
      const placing = {
        accountId,
        micros: quote,
        route: call.route,
        requestId: call.requestId,
        ttlMs: call.holdMs,
      };
      const hold = await holds.place(placing);
      if (!hold.ok) {
        books.usage(402, 0, { accountId });
        throw insufficient(quote, hold.balanceMicros);
      }
      const booked = (settled: Settlement | undefined) =>
        bookAccountCharge(books, accountId, quote, settled?.capturedMicros ?? 0);
      return {
        payer: { kind: "account", accountId },
        commit: async (actualMicros) => booked(await holds.settle(hold.holdId, actualMicros)),
        commitWith: async (actualMicros, alongside) =>
          booked(await alongside.settle(hold.holdId, actualMicros)),
        async cancel(failure) {
          await holds.settle(hold.holdId, 0, "the call failed");
          books.refunded(quote);
          books.usage(statusOf(failure), 0, { accountId });
        },
      };
    },
  };
}
