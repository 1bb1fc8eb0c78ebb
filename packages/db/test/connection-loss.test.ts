/**
 * A connection PostgreSQL drops (a restart, a failover, an admin's pg_terminate_backend) must fail the
 * queries on it with an error the caller can catch, never end the process. postgres.js 3.4.9 wrote a
 * query scheduled for the next tick to a socket already gone and threw from an Immediate (upstream
 * porsager/postgres#1154, #1208); patches/postgres+3.4.9.patch settles those queries instead.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import postgres from "postgres";
import { startTestPostgres, type TestPostgres } from "../../../test/helpers/postgres.ts";
import { waitFor } from "../../../test/helpers/wait-for.ts";
import { reconnectDelaySeconds } from "../src/connect.ts";

let pg: TestPostgres;
before(async () => {
  pg = await startTestPostgres();
});
after(async () => {
  await pg?.stop();
});

test("queries on a connection the server dropped are rejected with CONNECTION_CLOSED; the process lives on and the pool serves", async () => {
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => uncaught.push(err);
  process.on("uncaughtException", onUncaught);
  const sql = postgres(pg.url, { max: 2, onnotice: () => {} });
  try {
    // A reserved connection stays pinned after its backend dies, so each statement on it meets the
    // closed socket: the same path a pooled query takes when the close lands between its write and send.
    const pinned = await sql.reserve();
    const [row] = await pinned<{ pid: number }[]>`select pg_backend_pid() as pid`;
    await pg.database.sql`select pg_terminate_backend(${row?.pid ?? 0})`;
    await waitFor(
      "the backend to be gone",
      async () =>
        (await pg.database.sql`select 1 from pg_stat_activity where pid = ${row?.pid ?? 0}`).length === 0,
      10_000,
      10,
    );
    for (let i = 0; i < 3; i++) {
      await assert.rejects(
        pinned`select 1`,
        (err: Error & { code?: string }) => err.code === "CONNECTION_CLOSED",
      );
    }
    // The crash came from an Immediate: let the ones those rejections scheduled run.
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    assert.deepEqual(uncaught, []);
    const answers = await Promise.all([1, 2, 3].map((n) => sql<{ n: number }[]>`select ${n}::int as n`));
    assert.deepEqual(
      answers.map((rows) => rows[0]?.n),
      [1, 2, 3],
    );
  } finally {
    process.off("uncaughtException", onUncaught);
    await sql.end({ timeout: 1 });
  }
});

test("after any run of failed connects, a pooled connection retries within a second (postgres.js's own waits up to 20 s)", () => {
  for (const retries of [0, 1, 3, 6, 10, 40]) {
    for (let i = 0; i < 50; i++) {
      const s = reconnectDelaySeconds(retries);
      assert.ok(s > 0 && s <= 1, `retries ${retries}: ${s}`);
    }
  }
  assert.ok(reconnectDelaySeconds(0) <= 0.05, "the first retry is at once");
});
