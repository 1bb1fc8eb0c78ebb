import { type Db, schema } from "@browserfleet/db";

export interface UsageRecord {
  accountId?: string;
  payer?: string;
  client?: string;
  route: string;
  status: number;
  priceMicros: number;
  requestId?: string;
  ms?: number;
}

/** One row per priced call, whoever paid. */
export async function recordUsage(db: Db, u: UsageRecord): Promise<void> {
  await db.insert(schema.usage).values({
    accountId: u.accountId ?? null,
    payer: u.payer ?? null,
    client: u.client ?? null,
    route: u.route,
    status: u.status,
    priceMicros: u.priceMicros,
    requestId: u.requestId ?? null,
    ms: u.ms ?? null,
  });
}
