import type { AllowanceStore } from "../allowance/index.ts";
import { ApiError } from "../errors.ts";
import { HOW_TO_GET_A_KEY } from "./unpaid.ts";
import { type CallBooks, price, type WayOfPaying } from "./way-of-paying.ts";

export type AllowanceCounters = Pick<AllowanceStore, "consume">;

/**
 * The keyless free allowance of an MCP caller: take one unit of each of the spec's counters the call
 * uses (whose rules also refuse what needs a key), give them back if nothing came out, and give back the
 * actions an act did not run.
 */
export function keylessAllowance(
  deps: {
    allowance: AllowanceCounters;
    books: CallBooks;
    /** Whether this deployment takes wallet payments, which the refusal then mentions. */
    wallets: boolean;
    now?: () => Date;
  },
  client: string,
): WayOfPaying {
  const { allowance, books } = deps;
  return {
    async reserve(call) {
      const rule = call.allowance.decide(call.request, deps.now?.() ?? new Date());
      if (!rule.ok)
        throw new ApiError("key_required", `${rule.reason}. ${HOW_TO_GET_A_KEY}.`, undefined, undefined, {
          price: price(call.quote.micros),
        });
      const spent = await allowance.consume(client, rule.buckets);
      if (!spent.ok) {
        const asked = spent.units > 1 ? `, and this call asks for ${spent.units}` : "";
        const wallet = deps.wallets ? ", or pay per call with an x402 wallet over REST" : "";
        throw new ApiError(
          "allowance_exhausted",
          `the free allowance does not cover this call (${spent.bucket}: ${spent.used} of ${spent.limit} used${asked}). ${HOW_TO_GET_A_KEY}${wallet}.`,
          undefined,
          undefined,
          { price: price(call.quote.micros) },
        );
      }
      return {
        payer: { kind: "allowance", client },
        async commit(actualMicros, unitsUsed) {
          if (actualMicros === 0) await spent.release();
          else if (unitsUsed !== undefined)
            for (const b of rule.buckets)
              if ((b.units ?? 1) > unitsUsed) await spent.giveBack(b.bucket, (b.units ?? 1) - unitsUsed);
          books.usage(200, 0, {});
        },
        async cancel() {
          await spent.release();
        },
      };
    },
  };
}
