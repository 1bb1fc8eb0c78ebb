import { type Db, schema } from "@browserfleet/db";
import { and, eq, isNull, sql } from "drizzle-orm";
import { newId } from "./ids.ts";
import { displayPrefix, generateKey, hashKey, looksLikeKey } from "./keys.ts";

const { accounts, apiKeys, ledgerEntries } = schema;

export class BillingError extends Error {
  constructor(
    readonly code: "not_found" | "invalid_amount",
    message: string,
  ) {
    super(message);
  }
}

export interface IssuedKey {
  keyId: string;
  accountId: string;
  /** The key itself: shown once, never stored. */
  key: string;
  prefix: string;
}

export async function createAccount(db: Db, opts: { name?: string; balanceMicros?: number } = {}) {
  const id = newId("acct");
  await db.transaction(async (tx) => {
    await tx.insert(accounts).values({ id, name: opts.name ?? null });
    if (opts.balanceMicros) await creditIn(tx, id, opts.balanceMicros, "initial balance");
  });
  return { accountId: id };
}

export async function issueKey(db: Db, accountId: string, label?: string): Promise<IssuedKey> {
  const [acct] = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId));
  if (!acct) throw new BillingError("not_found", `no account ${accountId}`);
  const key = generateKey();
  const keyId = newId("key");
  await db.insert(apiKeys).values({
    id: keyId,
    accountId,
    prefix: displayPrefix(key),
    hash: hashKey(key),
    label: label ?? null,
  });
  return { keyId, accountId, key, prefix: displayPrefix(key) };
}

/** Revoke by key id or by the key itself. Returns false when no live key matched. */
export async function revokeKey(db: Db, keyIdOrKey: string): Promise<boolean> {
  const where = looksLikeKey(keyIdOrKey) ? eq(apiKeys.hash, hashKey(keyIdOrKey)) : eq(apiKeys.id, keyIdOrKey);
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(where, isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return rows.length > 0;
}

export type KeyLookup =
  | { status: "ok"; keyId: string; accountId: string; prefix: string }
  | { status: "revoked"; keyId: string }
  | { status: "unknown" };

export async function findKey(db: Db, key: string): Promise<KeyLookup> {
  if (!looksLikeKey(key)) return { status: "unknown" };
  const [row] = await db
    .select({
      id: apiKeys.id,
      accountId: apiKeys.accountId,
      prefix: apiKeys.prefix,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .where(eq(apiKeys.hash, hashKey(key)));
  if (!row) return { status: "unknown" };
  if (row.revokedAt) return { status: "revoked", keyId: row.id };
  return { status: "ok", keyId: row.id, accountId: row.accountId, prefix: row.prefix };
}

export async function touchKey(db: Db, keyId: string): Promise<void> {
  await db.update(apiKeys).set({ lastUsedAt: new Date() }).where(eq(apiKeys.id, keyId));
}

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

async function creditIn(tx: Tx, accountId: string, micros: number, note: string) {
  const [row] = await tx
    .update(accounts)
    .set({ balanceMicros: sql`${accounts.balanceMicros} + ${micros}` })
    .where(eq(accounts.id, accountId))
    .returning({ balance: accounts.balanceMicros });
  if (!row) throw new BillingError("not_found", `no account ${accountId}`);
  await tx.insert(ledgerEntries).values({
    accountId,
    kind: "topup",
    amountMicros: micros,
    balanceAfterMicros: row.balance,
    note,
  });
  return row.balance;
}

/** Add prepaid money to an account; returns the new balance. */
export async function topUp(db: Db, accountId: string, micros: number, note = "top-up"): Promise<number> {
  if (!Number.isSafeInteger(micros) || micros <= 0)
    throw new BillingError("invalid_amount", "a top-up must be a positive amount");
  return db.transaction((tx) => creditIn(tx, accountId, micros, note));
}

export async function getAccount(db: Db, accountId: string) {
  const [row] = await db.select().from(accounts).where(eq(accounts.id, accountId));
  return row;
}

/**
 * What an account can spend: its balance plus what its balance leases still hold unspent (leases are a
 * replica's reservation, not the caller's spending), and apart from that the money held by calls still
 * running. Write a replica's unwritten lease captures first for an exact figure.
 */
export async function accountBalance(db: Db, accountId: string) {
  const rows = await db.execute<{ balance: string; leased: string; held: string }>(sql`
    select a.balance_micros as balance,
      coalesce(sum(h.amount_micros - h.captured_micros - h.refunded_micros) filter (where h.route = 'lease'), 0) as leased,
      coalesce(sum(h.amount_micros - h.captured_micros - h.refunded_micros) filter (where h.route <> 'lease'), 0) as held
    from ${accounts} a left join ${schema.holds} h on h.account_id = a.id and h.status = 'open'
    where a.id = ${accountId}
    group by a.id`);
  const row = rows[0];
  if (!row) return undefined;
  return { balanceMicros: Number(row.balance) + Number(row.leased), heldMicros: Number(row.held) };
}

export async function listKeys(db: Db, accountId: string) {
  return db
    .select({
      keyId: apiKeys.id,
      prefix: apiKeys.prefix,
      label: apiKeys.label,
      createdAt: apiKeys.createdAt,
      revokedAt: apiKeys.revokedAt,
      lastUsedAt: apiKeys.lastUsedAt,
    })
    .from(apiKeys)
    .where(eq(apiKeys.accountId, accountId))
    .orderBy(apiKeys.createdAt);
}
