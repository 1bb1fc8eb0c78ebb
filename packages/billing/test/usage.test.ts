import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { schema } from "@browserfleet/db";
import { asc } from "drizzle-orm";
import { startTestPostgres, type TestPostgres } from "../../../test/helpers/postgres.ts";
import { createAccount, UsageRecorder } from "../src/index.ts";

let pg: TestPostgres;
before(async () => {
  pg = await startTestPostgres();
});
after(async () => {
  await pg?.stop();
});

const rows = () => pg.database.db.select().from(schema.usage).orderBy(asc(schema.usage.id));

test("usage rows are written in batches, every field and every absent one as given", async () => {
  await pg.database.db.delete(schema.usage);
  const { accountId } = await createAccount(pg.database.db, { balanceMicros: 0 });
  const errors: unknown[] = [];
  const recorder = new UsageRecorder(pg.database.db, {
    flushMs: 60_000,
    maxBatch: 1_000,
    onError: (e) => errors.push(e),
  });
  recorder.record({
    accountId,
    client: "mcp",
    route: "/web/v1/scrape",
    status: 200,
    priceMicros: 4_000_000_000_000,
    requestId: "req-1",
    ms: 12,
  });
  recorder.record({ payer: "0xabc", route: "/web/v1/map", status: 402, priceMicros: 0 });
  // A quote past 2^31 micros (bigint column) and text no one would put in SQL by hand.
  recorder.record({ route: "/web/v1/act", status: 200, priceMicros: 1, requestId: 'it\'s "quoted", {a,b}' });
  await recorder.flush();
  assert.deepEqual(errors, []);
  const written = await rows();
  assert.equal(written.length, 3);
  assert.deepEqual(
    written.map(({ accountId, payer, client, route, status, priceMicros, requestId, ms }) => ({
      accountId,
      payer,
      client,
      route,
      status,
      priceMicros,
      requestId,
      ms,
    })),
    [
      {
        accountId,
        payer: null,
        client: "mcp",
        route: "/web/v1/scrape",
        status: 200,
        priceMicros: 4_000_000_000_000,
        requestId: "req-1",
        ms: 12,
      },
      {
        accountId: null,
        payer: "0xabc",
        client: null,
        route: "/web/v1/map",
        status: 402,
        priceMicros: 0,
        requestId: null,
        ms: null,
      },
      {
        accountId: null,
        payer: null,
        client: null,
        route: "/web/v1/act",
        status: 200,
        priceMicros: 1,
        requestId: 'it\'s "quoted", {a,b}',
        ms: null,
      },
    ],
  );
  for (const r of written) assert.ok(r.createdAt instanceof Date);
  await recorder.close();
});

test("a full batch is written without waiting, and close writes what is left", async () => {
  await pg.database.db.delete(schema.usage);
  const recorder = new UsageRecorder(pg.database.db, { flushMs: 60_000, maxBatch: 250 });
  for (let i = 0; i < 260; i++) recorder.record({ route: "/web/v1/scrape", status: 200, priceMicros: i });
  await recorder.close();
  const written = await rows();
  assert.equal(written.length, 260);
  assert.deepEqual(
    written.map((r) => r.priceMicros),
    Array.from({ length: 260 }, (_, i) => i),
  );
  recorder.record({ route: "/web/v1/scrape", status: 200, priceMicros: 1 });
  await recorder.flush();
  assert.equal((await rows()).length, 260, "nothing is recorded after close");
});
