import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { schema } from "@browserfleet/db";
import { sql } from "drizzle-orm";
import { startTestPostgres, type TestPostgres } from "../../../test/helpers/postgres.ts";
import { deleteDoneEvents } from "../src/outbox.ts";

let pg: TestPostgres;
before(async () => {
  pg = await startTestPostgres();
});
after(async () => {
  await pg?.stop();
});

test("the sweep deletes settled events past their retention and keeps pending and recent ones", async () => {
  const day = 24 * 3600_000;
  const row = (msgId: string, status: "pending" | "delivered" | "failed", ageMs: number) => ({
    msgId,
    accountId: "acct",
    stream: "job:1",
    type: "job.completed",
    url: "https://example.com/hook",
    body: "{}",
    status,
    createdAt: new Date(Date.now() - ageMs),
  });
  await pg.database.db
    .insert(schema.webhookEvents)
    .values([
      row("old-delivered", "delivered", 10 * day),
      row("old-failed", "failed", 10 * day),
      row("old-pending", "pending", 10 * day),
      row("new-delivered", "delivered", 60_000),
    ]);
  assert.equal(await deleteDoneEvents(pg.database.db, new Date(Date.now() - 7 * day)), 2);
  const left = await pg.database.db.execute<{ msg_id: string }>(
    sql`select msg_id from webhook_events order by msg_id`,
  );
  assert.deepEqual(
    [...left].map((r) => r.msg_id),
    ["new-delivered", "old-pending"],
  );
});
