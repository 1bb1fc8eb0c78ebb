import { type Db, schema } from "@browserfleet/db";
import { and, eq, lt } from "drizzle-orm";
import { newId } from "./ids.ts";

const { walletPayments, ledgerEntries } = schema;

export interface WalletPaymentClaim {
  network: string;
  asset: string;
  nonce: string;
  payer: string;
  amountMicros: number;
  route: string;
  requestId?: string;
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
 */
export async function recordWalletSettlement(
  db: Db,
  paymentId: string,
  transaction: string,
  amountMicros?: number,
): Promise<void> {
  await db.transaction(async (tx) => {
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
    if (!p) return;
    await tx.insert(ledgerEntries).values({
      accountId: null,
      kind: "wallet_payment",
      amountMicros: p.amountMicros,
      payer: p.payer,
      network: p.network,
      reference: transaction,
      route: p.route,
      requestId: p.requestId,
      note: `nonce ${p.nonce}`,
    });
  });
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

/** Drop claims whose call died before it settled or released them (their authorization has expired). */
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
