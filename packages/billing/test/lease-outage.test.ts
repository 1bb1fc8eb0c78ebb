/**
 * Balance leases while PostgreSQL is away: calls answered from a lease in memory are charged once the
 * database is back, whatever happened to the lease meanwhile (its time ran out and it was given back, or
 * the reaper closed its hold). The api keeps running through all of it, so nothing here relies on the
 * journal replay that a restarted replica does.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sql } from "drizzle-orm";
import { startTestPostgres, type TestPostgres } from "../../../test/helpers/postgres.ts";
import { waitFor } from "../../../test/helpers/wait-for.ts";
import { BalanceLeases, createAccount, getAccount, reapExpiredHolds } from "../src/index.ts";

let pg: TestPostgres;
before(async () => {
  pg = await startTestPostgres({ max: 2 });
});
after(async () => {
  await pg?.stop();
});

const db = () => pg.database.db;

async function ledgerOf(accountId: string) {
  const rows = await db().execute<{ kind: string; n: string; amount: string; held: string }>(sql`
    select kind, count(*)::text as n, coalesce(sum(amount_micros), 0)::text as amount,
      coalesce(sum(held_micros), 0)::text as held
    from ledger_entries where account_id = ${accountId} and route = 'scrape' group by kind`);
  const [sums] = await db().execute<{ amount: string; held: string }>(sql`
    select coalesce(sum(amount_micros), 0)::text as amount, coalesce(sum(held_micros), 0)::text as held
    from ledger_entries where account_id = ${accountId}`);
  const calls = rows.reduce((n, r) => n + Number(r.n), 0);
  return { calls, amount: Number(sums?.amount), held: Number(sums?.held) };
}

const openHolds = async (accountId: string) =>
  Number(
    (
      await db().execute<{ n: string }>(
        sql`select count(*)::text as n from holds where account_id = ${accountId} and status = 'open'`,
      )
    )[0]?.n,
  );

test("a lease that ends while PostgreSQL is away keeps its answered calls and writes them once it is back", async (t) => {
  const server = pg.server;
  if (!server) return t.skip("needs the embedded server, to stop and start it");
  const { accountId } = await createAccount(db(), { balanceMicros: 100_000 });
  const errors: string[] = [];
  const leases = new BalanceLeases(db(), { leaseMicros: 10_000, leaseMs: 200, flushMs: 40 }, (err) =>
    errors.push((err as Error).message),
  );
  const call = (i: number) => leases.charge({ accountId, micros: 300, route: "scrape", requestId: `r${i}` });
  assert.ok((await call(0)).ok);
  await leases.flush(accountId);
  await server.stop();
  // Answered from the lease in memory while the database is gone.
  for (let i = 1; i <= 6; i++) assert.ok((await call(i)).ok);
  // Long enough for the lease's time to run out and its give-back to fail more than once.
  await new Promise((r) => setTimeout(r, 1_500));
  assert.ok(errors.length > 0, "the failed writes are reported");
  await server.start();
  await waitFor(
    "all 7 answered calls in the ledger while the api runs on",
    async () => (await ledgerOf(accountId)).calls === 7,
    20_000,
  );
  await waitFor("the lease given back", async () => (await openHolds(accountId)) === 0, 20_000);
  await leases.close();
  const balance = (await getAccount(db(), accountId))?.balanceMicros;
  assert.equal(balance, 100_000 - 7 * 300);
  assert.deepEqual(await ledgerOf(accountId), { calls: 7, amount: balance, held: 0 });
});

test("calls whose lease's hold the reaper closed while they waited to be written are charged from the balance, once", async () => {
  const { accountId } = await createAccount(db(), { balanceMicros: 100_000 });
  const leases = new BalanceLeases(db(), { leaseMicros: 10_000, leaseMs: 60_000, flushMs: 60_000 });
  const a = await leases.charge({ accountId, micros: 300, route: "scrape", requestId: "a" });
  const b = await leases.charge({ accountId, micros: 300, route: "scrape", requestId: "b" });
  assert.ok(a.ok && b.ok);
  // The hold outlives its TTL unwritten (a long outage): the reaper gives all of it back.
  await db().execute(
    sql`update holds set expires_at = now() - interval '1 second' where account_id = ${accountId}`,
  );
  assert.equal(await reapExpiredHolds(db()), 1);
  await leases.flush(accountId);
  assert.equal((await ledgerOf(accountId)).calls, 2, "both answered calls are in the ledger");
  // One of them failed after all: given back from the ledger, once.
  await b.refund();
  await b.refund();
  await leases.close();
  const balance = (await getAccount(db(), accountId))?.balanceMicros;
  assert.equal(balance, 100_000 - 300);
  assert.deepEqual(await ledgerOf(accountId), { calls: 3, amount: balance, held: 0 });
});
