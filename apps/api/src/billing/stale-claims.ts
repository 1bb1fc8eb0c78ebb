import {
  type PendingWalletClaim,
  pendingWalletClaims,
  recordWalletSettlement,
  releaseWalletPayment,
} from "@browserfleet/billing";
import type { Db } from "@browserfleet/db";
import type { ApiMetrics } from "../metrics.ts";
import type { AuthorizationFacts, X402Chain } from "../payments/x402-chain.ts";
import { decideStaleClaim, type Verdict } from "./stale-claim-decision.ts";

export interface StaleClaimSweepDeps {
  db: Db;
  /** Read access to the chain the claims' authorizations live on. */
  chain: X402Chain;
  /** The network `chain` reads (CAIP-2); claims on another one are left alone. */
  network: string;
  /** X402_MAX_TIMEOUT_SECONDS: the validBefore of claims written before it was stored. */
  maxTimeoutSeconds: number;
  metrics?: Pick<ApiMetrics, "walletClaimsRecovered" | "walletClaimsUnresolved">;
  log?: (line: string) => void;
}

export interface SweepResult {
  recorded: number;
  released: number;
  kept: number;
  /** Of `kept`: claims an operator should look at (spent on chain, its transaction not found; or errors). */
  unresolved: number;
}

/**
 * Resolve wallet claims pending for more than `olderThanMs` (their call died, or PostgreSQL failed between
 * the settlement and its record, or the settlement's outcome was unknown) by asking the chain what became
 * of each authorization: settled, it is recorded in the ledger with its transaction; expired unused, the
 * claim is dropped; anything else, it stays pending for the next sweep. Replicas may sweep at once: a
 * record or release only touches a claim still pending, so each claim is recorded once.
 */
export async function sweepStaleWalletClaims(
  deps: StaleClaimSweepDeps,
  olderThanMs: number,
): Promise<SweepResult> {
  const log = deps.log ?? ((line: string) => console.error(line));
  const result: SweepResult = { recorded: 0, released: 0, kept: 0, unresolved: 0 };
  for (const claim of await pendingWalletClaims(deps.db, olderThanMs, 500)) {
    if (claim.network !== deps.network) {
      result.kept++;
      continue;
    }
    let verdict: Verdict;
    let scheme: "exact" | "upto";
    try {
      ({ verdict, scheme } = await judge(deps, claim));
    } catch (err) {
      log(`wallet claim ${claim.id}: the chain could not be asked (${(err as Error).message}); kept`);
      result.kept++;
      result.unresolved++;
      continue;
    }
    if (verdict.action === "record") {
      if (
        await recordWalletSettlement(deps.db, claim.id, verdict.transaction, verdict.amountMicros, {
          recovered: true,
        })
      ) {
        result.recorded++;
        deps.metrics?.walletClaimsRecovered.inc({ scheme });
        log(
          `wallet claim ${claim.id} (${scheme}, nonce ${claim.nonce}): settled on chain in ${verdict.transaction} ` +
            `for ${verdict.amountMicros}, recorded from the chain`,
        );
      }
    } else if (verdict.action === "release") {
      await releaseWalletPayment(deps.db, claim.id);
      result.released++;
    } else {
      result.kept++;
      if (verdict.attention) {
        result.unresolved++;
        log(`wallet claim ${claim.id} (${scheme}, nonce ${claim.nonce}) kept: ${verdict.why}`);
      }
    }
  }
  deps.metrics?.walletClaimsUnresolved.set(result.unresolved);
  return result;
}

/** The verdict on one claim. A claim from before the scheme was stored is asked as `exact`, then `upto`. */
async function judge(
  deps: StaleClaimSweepDeps,
  claim: PendingWalletClaim,
): Promise<{ verdict: Verdict; scheme: "exact" | "upto" }> {
  const seconds = (d: Date) => Math.floor(d.getTime() / 1000);
  const validBefore = claim.validBefore
    ? seconds(claim.validBefore)
    : seconds(claim.createdAt) + deps.maxTimeoutSeconds;
  const ask = (scheme: "exact" | "upto"): Promise<AuthorizationFacts> =>
    deps.chain.authorization({
      scheme,
      payer: claim.payer as `0x${string}`,
      asset: claim.asset as `0x${string}`,
      nonce: claim.nonce as `0x${string}`,
      createdAt: seconds(claim.createdAt),
      ...(claim.validBefore ? { validBefore } : {}),
      ...(claim.transaction ? { transaction: claim.transaction as `0x${string}` } : {}),
    });
  const schemes = claim.scheme ? [claim.scheme] : (["exact", "upto"] as const);
  let facts: AuthorizationFacts | undefined;
  let scheme: "exact" | "upto" = schemes[0];
  for (const s of schemes) {
    scheme = s;
    facts = await ask(s);
    if (facts.used) break;
  }
  return {
    verdict: decideStaleClaim(
      { scheme, amountMicros: claim.amountMicros, validBefore },
      facts as AuthorizationFacts,
    ),
    scheme,
  };
}
