import { type Db, schema } from "@browserfleet/db";
import { and, asc, eq, lt } from "drizzle-orm";
import { newId } from "./ids.ts";

const { walletPayments, ledgerEntries } = schema;

/** What every claim names: the authorization (network, asset, nonce, payer), its amount and its route. */
interface ClaimedAuthorization {
  network: string;
  asset: string;
  nonce: string;
  payer: string;
  amountMicros: number;
  route: string;
}

export interface WalletPaymentClaim extends ClaimedAuthorization {
  requestId?: string;
  /** The x402 scheme: what kind of nonce it is (EIP-3009 for `exact`, Permit2 for `upto`). */
  scheme: "exact" | "upto";
  /** When the authorization can no longer be settled on chain. */
  validBefore: Date;
}

/** A claim still pending: its call is in flight, or died before it recorded or released it. */
export interface PendingWalletClaim extends ClaimedAuthorization {
  id: string;
  /** Null on claims written before the column existed. */
  scheme: "exact" | "upto" | null;
  validBefore: Date | null;
  /** A settlement broadcast whose outcome was unknown (settlement_pending), if any. */
  transaction: string | null;
  createdAt: Date;
}

/**
 * Claim a verified payment's authorization nonce before running the work. The unique index makes a
 * replayed (or concurrently repeated) signature lose: it never runs work twice.
 */
export async function claimWalletPayment(db: Db, c: WalletPaymentClaim): Promise<string | undefined> {
  const id = newId("pay");
  const rows = await db
    .insert(walletPayments)
    .values({ id, ...c, requestId: c.requestId ?? null })
    .onConflictDoNothing()
    .returning({ id: walletPayments.id });
  return rows[0]?.id;
}

/**
 * The work succeeded and the payment settled on chain: record it in the ledger. `amountMicros`: what
 * moved, when it is less than the claim's amount (an x402 `upto` payment settles the call's cost).
 * `recovered`: found on chain by the stale-claim sweep, not recorded by its call (said in the row's note).
 * True when this call recorded it; false when the claim was no longer pending (recorded already, or gone).
 */
export async function recordWalletSettlement(
  db: Db,
  paymentId: string,
  transaction: string,
  amountMicros?: number,
  opts: { recovered?: boolean } = {},
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [p] = await tx
      .update(walletPayments)
      .set({
        status: "settled",
        transaction,
        settledAt: new Date(),
        ...(amountMicros === undefined ? {} : { amountMicros }),
      })
      .where(and(eq(walletPayments.id, paymentId), eq(walletPayments.status, "pending")))
      .returning();
    if (!p) return false;
    await tx.insert(ledgerEntries).values({
      accountId: null,
      kind: "wallet_payment",
      amountMicros: p.amountMicros,
      payer: p.payer,
      network: p.network,
      reference: transaction,
      route: p.route,
      requestId: p.requestId,
      note: opts.recovered ? `nonce ${p.nonce} (recovered from the chain)` : `nonce ${p.nonce}`,
    });
    return true;
  });
}

/**
 * The settlement failed, or its outcome is unknown: keep the claim pending (the nonce stays refused) for
 * the stale-claim sweep, which asks the chain what became of the authorization. `transaction`: one that
 * was broadcast, kept on the row for the sweep and an operator to look at.
 */
export async function keepUnsettledWalletPayment(
  db: Db,
  paymentId: string,
  transaction?: string,
): Promise<void> {
  if (!transaction) return;
  await db
    .update(walletPayments)
    .set({ transaction })
    .where(and(eq(walletPayments.id, paymentId), eq(walletPayments.status, "pending")));
}

/**
 * The work failed (or settlement did): drop the claim, so the caller's still-unused authorization
 * may be sent again. Nothing was charged.
 */
export async function releaseWalletPayment(db: Db, paymentId: string): Promise<void> {
  await db
    .delete(walletPayments)
    .where(and(eq(walletPayments.id, paymentId), eq(walletPayments.status, "pending")));
}

/** Pending claims created more than `olderThanMs` ago, oldest first: calls that died, or never settled. */
export async function pendingWalletClaims(
  db: Db,
  olderThanMs: number,
  limit = 100,
): Promise<PendingWalletClaim[]> {
  return db
    .select({
      id: walletPayments.id,
      network: walletPayments.network,
      asset: walletPayments.asset,
      nonce: walletPayments.nonce,
      payer: walletPayments.payer,
      amountMicros: walletPayments.amountMicros,
      route: walletPayments.route,
      scheme: walletPayments.scheme,
      validBefore: walletPayments.validBefore,
      transaction: walletPayments.transaction,
      createdAt: walletPayments.createdAt,
    })
    .from(walletPayments)
    .where(
      and(
        eq(walletPayments.status, "pending"),
        lt(walletPayments.createdAt, new Date(Date.now() - olderThanMs)),
      ),
    )
    .orderBy(asc(walletPayments.createdAt))
    .limit(limit);
}

/**
 * Drop claims whose call died before it settled or released them (their authorization has expired),
 * without asking the chain: where the api cannot read it (a remote facilitator). Where it can, the
 * api's stale-claim sweep asks the chain first and records what was settled.
 */
export async function releaseStaleWalletClaims(db: Db, olderThanMs: number): Promise<number> {
  const rows = await db
    .delete(walletPayments)
    .where(
      and(
        eq(walletPayments.status, "pending"),
        lt(walletPayments.createdAt, new Date(Date.now() - olderThanMs)),
      ),
    )
    .returning({ id: walletPayments.id });
  return rows.length;
}
