import type { BalanceLeases } from "@browserfleet/billing";
import { usd } from "@browserfleet/pricing";
import {
  bookAccountCharge,
  type CallBooks,
  insufficient,
  statusOf,
  type WayOfPaying,
} from "./way-of-paying.ts";

export type Leases = Pick<BalanceLeases, "charge" | "reserve">;

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
          await charged.refund();
          books.usage(statusOf(failure), 0, { accountId });
        },
      };
    },
  };
}

/**
 * An API key's balance, for a short call charged what came out, at most its quote (an act: the actions
 * that ran): the quote is set aside from the replica's balance lease, and what came out is charged there
 * once the work is done, the rest given back; its ledger row (and the write that goes with it) is written
 * with the lease's next batch. No database round trip on the call's path.
 */
export function leaseReservation(deps: { leases: Leases; books: CallBooks }, accountId: string): WayOfPaying {
  const { leases, books } = deps;
  return {
    async reserve(call) {
      const quote = call.quote.micros;
      const entry = { accountId, micros: quote, route: call.route, requestId: call.requestId };
      const reserved = await leases.reserve(entry);
      if (!reserved.ok) {
        books.usage(402, 0, { accountId });
        throw insufficient(quote, reserved.balanceMicros);
      }
      const { reservation } = reserved;
      const booked = (actualMicros: number) =>
        bookAccountCharge(books, accountId, quote, Math.max(0, Math.min(actualMicros, quote)));
      return {
        payer: { kind: "account", accountId },
        async commit(actualMicros) {
          reservation.settle(actualMicros);
          booked(actualMicros);
        },
        async commitWith(actualMicros, alongside) {
          reservation.settle(actualMicros, alongside.within);
          booked(actualMicros);
        },
        async cancel(failure) {
          reservation.release();
          books.refunded(quote);
          books.usage(statusOf(failure), 0, { accountId });
        },
      };
    },
  };
}
