import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startTestPostgres, type TestPostgres } from "../../../test/helpers/postgres.ts";
import { migrateDb } from "../src/index.ts";

let pg: TestPostgres;
before(async () => {
  pg = await startTestPostgres();
});
after(async () => {
  await pg?.stop();
});

test("migrations create every table, and running them again (as a second replica would) changes nothing", async () => {
  await Promise.all([migrateDb(pg.url), migrateDb(pg.url)]);
  const rows = await pg.database.sql<{ table_name: string }[]>`
    select table_name from information_schema.tables where table_schema = 'public' order by table_name`;
  assert.deepEqual(
    rows.map((r) => r.table_name),
    [
      "accounts",
      "allowance_counters",
      "api_keys",
      "cache_entries",
      "feedback",
      "holds",
      "job_pages",
      "jobs",
      "ledger_entries",
      "page_snapshots",
      "profiles",
      "recording_parts",
      "sessions",
      "usage",
      "wallet_payments",
      "webhook_attempts",
      "webhook_events",
      "webhook_secrets",
    ],
  );
});

test("the database refuses a negative balance even if code tried to write one", async () => {
  await pg.database.sql`insert into accounts (id, balance_micros) values ('acct_neg', 5)`;
  await assert.rejects(
    pg.database.sql`update accounts set balance_micros = balance_micros - 10 where id = 'acct_neg'`,
    /balance_not_negative/,
  );
});
