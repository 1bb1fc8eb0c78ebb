import type { LeaseWrite, Settlement } from "@browserfleet/billing";
import { type Quote, usd } from "@browserfleet/pricing";
import type { AllowanceRule } from "../allowance/index.ts";
import { ApiError } from "../errors.ts";

/** Who pays for a call. */
export type Payer =
  | { kind: "account"; accountId: string }
  | { kind: "wallet"; address: string }
  | { kind: "allowance"; client: string };

/** What the work of a priced call returns. */
export interface PaidWork<T> {
  result: T;
  /** What the caller owes for what came out. 0 means nothing came out: nothing is charged. */
  chargeMicros: number;
  /**
   * Of the free allowance units the call asked for (an act: one per action), how many it used (the
   * actions that ran). Unset: all of them, if anything came out.
   */
  allowanceUnitsUsed?: number;
  /** A write that goes with the charge (an act's record on its session). */
  alongside?: Alongside;
}

/** A write made with a call's charge, whichever way it is paid. */
export interface Alongside {
  /** Made on its own, beside the commit. */
  write(): Promise<void>;
  /** Made in the same statement as the settlement of a ledger hold: capture, refund the rest, write. */
  settle(holdId: string, capturedMicros: number): Promise<Settlement | undefined>;
  /** Made in the transaction that writes the charge's ledger row (a balance lease's batch). */
  within: LeaseWrite;
}

/** A hold of exactly `micros` on an account's balance for one call. */
export interface HoldRequest {
  accountId: string;
  micros: number;
  route: string;
  requestId: string;
  ttlMs: number;
}

/** What a way of paying needs to know of the call it sets money (or allowance) aside for. */
export interface CallToReserve {
  /** The route's name in usage rows and metrics: its allowance rule's name. */
  route: string;
  /** The operation's free-allowance rule, which a keyless call is counted by. */
  allowance: AllowanceRule;
  /** The validated request, for the free allowance's rules. */
  request: unknown;
  quote: Quote;
  /** What the wallet's 402 challenge says the call is. */
  description: string;
  /** How long a hold may stay open before the reaper refunds it (the call's worst-case duration). */
  holdMs: number;
  requestId: string;
}

/** The call's price, set aside until the work is done. */
export interface Reservation {
  payer: Payer;
  /**
   * The work is done: pay for what came out, `actualMicros` (0: nothing came out, nothing is charged), and
   * give back the rest. `unitsUsed`: of the free allowance units the call took, how many it used.
   */
  commit(actualMicros: number, unitsUsed?: number): Promise<void>;
  /** `commit`, with the work's write in the statement that settles its ledger hold. */
  commitWith?(actualMicros: number, alongside: Alongside): Promise<void>;
  /** The work failed (`failure` is what it threw): give back everything, charge nothing. */
  cancel(failure: unknown): Promise<void>;
}

/** Key balance, balance lease, keyless allowance or wallet. */
export interface WayOfPaying {
  /** Set the call's price aside, or refuse with the 402 that says why. */
  reserve(call: CallToReserve): Promise<Reservation>;
}

/** Who a usage row is for. */
export type UsageOf = { accountId?: string; payer?: string };

/** What a way of paying reports about its call: the usage row, the money metrics, response headers. */
export interface CallBooks {
  usage(status: number, priceMicros: number, who: UsageOf): void;
  charged(payer: "account" | "wallet", micros: number): void;
  refunded(micros: number): void;
  setHeader(name: string, value: string): void;
}

/** Reserve → work → commit what came out, or cancel when the work threw. */
export async function runPaid<T>(
  way: WayOfPaying,
  call: CallToReserve,
  work: (payer: Payer) => Promise<PaidWork<T>>,
): Promise<T> {
  const held = await way.reserve(call);
  let done: PaidWork<T>;
  try {
    done = await work(held.payer);
  } catch (err) {
    await held.cancel(err);
    throw err;
  }
  const { alongside } = done;
  if (alongside && held.commitWith) await held.commitWith(done.chargeMicros, alongside);
  else {
    const [committed, written] = await Promise.allSettled([
      held.commit(done.chargeMicros, done.allowanceUnitsUsed),
      alongside?.write(),
    ]);
    if (committed.status === "rejected") throw committed.reason;
    if (written.status === "rejected") throw written.reason;
  }
  return done.result;
}

export const price = (micros: number) => ({ usd: usd(micros), micros });

/** An account's call that set `quoteMicros` aside came to `chargedMicros`: its books, its header. */
export function bookAccountCharge(
  books: CallBooks,
  accountId: string,
  quoteMicros: number,
  chargedMicros: number,
): void {
  books.charged("account", chargedMicros);
  if (quoteMicros > chargedMicros) books.refunded(quoteMicros - chargedMicros);
  books.setHeader("X-Charged-Usd", usd(chargedMicros));
  books.usage(200, chargedMicros, { accountId });
}

export const statusOf = (err: unknown) => (err instanceof ApiError ? err.status : 500);

export const insufficient = (quote: number, balance: number) =>
  new ApiError(
    "insufficient_balance",
    `this call costs ${usd(quote)} and the balance is ${usd(balance)}; top up to continue`,
    undefined,
    undefined,
    { price: price(quote), balance: price(balance) },
  );
