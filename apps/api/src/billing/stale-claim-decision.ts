/**
 * What to do with a wallet payment claim left pending past its call (the api died, or PostgreSQL failed,
 * between the on-chain settlement and its record; or the settlement's outcome was unknown), given what
 * the chain says of its authorization. Pure: the chain reads are in payments/x402-chain.ts, the sweep
 * that applies the verdict in stale-claims.ts.
 */
import type { AuthorizationFacts } from "../payments/x402-chain.ts";

export interface StaleClaim {
  scheme: "exact" | "upto";
  /** The quote: what `exact` moves, the most `upto` may move. */
  amountMicros: number;
  /** Unix seconds after which the authorization can no longer be settled. */
  validBefore: number;
}

export type Verdict =
  /** Settled on chain: record `amountMicros` (what moved) with `transaction` as the ledger's reference. */
  | { action: "record"; transaction: string; amountMicros: number }
  /** Never settled, and never can be: drop the claim. */
  | { action: "release"; why: string }
  /** Not known yet (or needs an operator): leave the claim pending and ask again at the next sweep. */
  | { action: "keep"; why: string; attention: boolean };

export function decideStaleClaim(claim: StaleClaim, chain: AuthorizationFacts): Verdict {
  if (chain.used) {
    const s = chain.settlement;
    if (s) {
      // What moved is the Transfer's value; with `exact` it is the authorization's, the whole quote.
      if (s.amountMicros > 0 && Number.isSafeInteger(s.amountMicros))
        return { action: "record", transaction: s.transaction, amountMicros: s.amountMicros };
      return {
        action: "keep",
        why: `the nonce was spent in ${s.transaction}, which moved ${s.amountMicros} from the payer`,
        attention: true,
      };
    }
    if (chain.canceled) return { action: "release", why: "the payer cancelled the authorization on chain" };
    // Spent, but the transaction was not found (outside the searched blocks, a node that prunes logs, a
    // Permit2 nonce the owner invalidated, a settlement through another contract): the money may have
    // moved, so the claim is never dropped. An operator looks at it.
    return {
      action: "keep",
      why: "the nonce is spent on chain, but its transaction was not found",
      attention: true,
    };
  }
  // Not spent as of a block whose timestamp is past validBefore: no later block can spend it (the token
  // and Permit2 refuse an authorization once block.timestamp passes it), so nothing moved nor ever will.
  if (chain.block.timestamp > claim.validBefore)
    return { action: "release", why: "the authorization expired unused" };
  return {
    action: "keep",
    why: `unused so far, and usable until ${new Date(claim.validBefore * 1000).toISOString()}`,
    attention: false,
  };
}
