import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sql } from "drizzle-orm";
import { startTestPostgres, type TestPostgres } from "../../../test/helpers/postgres.ts";
import { preparedSql, schema } from "../src/index.ts";

let pg: TestPostgres;
before(async () => {
  pg = await startTestPostgres();
});
after(async () => {
  await pg?.stop();
});

const p = sql.placeholder;

const credit = preparedSql<
  { id: string; balance: string; note: string | null },
  { id: string; micros: number; note: string | null }
>(sql`
  update ${schema.accounts} set balance_micros = balance_micros + ${p("micros")}::bigint
  where id = ${p("id")}
  returning id, balance_micros::text as balance, ${p("note")}::text as note, ${p("micros")}::bigint - ${p("micros")}::bigint as zero`);

test("a prepared statement binds each call's values by name, on every pooled connection, and is prepared once per connection", async () => {
  await pg.database.sql`insert into accounts (id, balance_micros) values ('acct_a', 0), ('acct_b', 0)`;
  // More calls at once than the pool has connections: each connection prepares it, then reuses it.
  const calls = Array.from({ length: 60 }, (_, i) => ({
    id: i % 2 ? "acct_a" : "acct_b",
    micros: i + 1,
    note: i % 3 ? `n${i}` : null,
  }));
  const answers = await Promise.all(calls.map((c) => credit(pg.database.db, c)));
  answers.forEach((rows, i) => {
    const c = calls[i];
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.id, c?.id);
    assert.equal(rows[0]?.note, c?.note);
  });
  const balances = await pg.database.sql<{ id: string; balance: string }[]>`
    select id, balance_micros::text as balance from accounts where id in ('acct_a', 'acct_b') order by id`;
  const sum = (odd: boolean) => calls.reduce((s, c, i) => s + (i % 2 === (odd ? 1 : 0) ? c.micros : 0), 0);
  assert.deepEqual(
    balances.map((r) => [r.id, Number(r.balance)]),
    [
      ["acct_a", sum(true)],
      ["acct_b", sum(false)],
    ],
  );
  // No row: an empty answer, not an error.
  assert.equal((await credit(pg.database.db, { id: "acct_none", micros: 1, note: null })).length, 0);
  // Server-side named statements, as many as the connections that ran it, not one per call.
  const prepared = await Promise.all(
    Array.from({ length: 10 }, () =>
      pg.database.sql.unsafe(
        "select count(*)::int as n from pg_prepared_statements where statement like '%balance_micros + $1::bigint%'",
      ),
    ),
  );
  assert.ok(prepared.some((r) => (r[0]?.n ?? 0) === 1));
  assert.ok(prepared.every((r) => (r[0]?.n ?? 0) <= 1));
});
