import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestPostgres, type TestPostgres } from "../../../test/helpers/postgres.ts";
import { AllowanceStore, allowanceFor } from "../src/allowance/index.ts";

let pg: TestPostgres;
let store: AllowanceStore;
let n = 0;
/** A fresh client per test, so tests do not share counters. */
const newClient = () => `203.0.113.${++n}`;

before(async () => {
  pg = await startTestPostgres();
  store = new AllowanceStore(pg.database);
});
after(async () => {
  await pg?.stop();
});

describe("AllowanceStore", () => {
  it("counts up to the limit, then refuses with the bucket, limit and use", async () => {
    const client = newClient();
    const b = [{ bucket: "search:ever", limit: 2 }];
    assert.equal((await store.consume(client, b)).ok, true);
    assert.equal((await store.consume(client, b)).ok, true);
    assert.deepEqual(await store.consume(client, b), { ok: false, bucket: "search:ever", limit: 2, used: 2 });
    assert.deepEqual(await store.usage(client), { "search:ever": 2 });
    // another client has its own counter
    assert.equal((await store.consume(newClient(), b)).ok, true);
  });

  it("is exact under concurrency: 50 concurrent consumes of a limit-10 bucket, exactly 10 succeed", async () => {
    const client = newClient();
    const b = [{ bucket: "scrape:2026-11-22", limit: 10 }];
    const results = await Promise.all(Array.from({ length: 50 }, () => store.consume(client, b)));
    assert.equal(results.filter((r) => r.ok).length, 10);
    assert.equal(results.filter((r) => !r.ok).length, 40);
    assert.deepEqual(await store.usage(client), { "scrape:2026-11-22": 10 });
    const [row] = await pg.database.sql<{ count: number }[]>`
      select count from allowance_counters where client = ${client} and bucket = 'scrape:2026-11-22'`;
    assert.equal(row?.count, 10);
  });

  it("is exact under concurrency across two buckets too (all or nothing, no deadlock)", async () => {
    const client = newClient();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        store.consume(
          client,
          // both orders, so an unordered implementation could deadlock
          i % 2
            ? [
                { bucket: "a", limit: 10 },
                { bucket: "b", limit: 4 },
              ]
            : [
                { bucket: "b", limit: 4 },
                { bucket: "a", limit: 10 },
              ],
        ),
      ),
    );
    assert.equal(results.filter((r) => r.ok).length, 4);
    assert.deepEqual(await store.usage(client), { a: 4, b: 4 });
  });

  it("multi-bucket is all or nothing: when the site bucket is exhausted the daily counter does not move", async () => {
    const client = newClient();
    const now = new Date("2026-11-22T12:00:00Z");
    const scrape = (url: string) => {
      const d = allowanceFor({ route: "scrape", request: { url } }, now);
      assert.ok(d.ok);
      return store.consume(client, d.buckets);
    };
    for (const path of ["a", "b", "c"])
      assert.equal((await scrape(`https://www.example.com/${path}`)).ok, true);
    const refused = await scrape("https://example.com/d");
    assert.deepEqual(refused, {
      ok: false,
      bucket: "scrape-site:example.com:2026-11-22",
      limit: 3,
      used: 3,
    });
    assert.deepEqual(await store.usage(client), {
      "scrape:2026-11-22": 3,
      "scrape-site:example.com:2026-11-22": 3,
    });
    // another site still works, and moves the daily counter
    assert.equal((await scrape("https://other.test/")).ok, true);
    assert.equal((await store.usage(client))["scrape:2026-11-22"], 4);
  });

  it("a refusal on a never-used bucket after another bucket was taken leaves no trace", async () => {
    const client = newClient();
    const r = await store.consume(client, [
      { bucket: "fresh", limit: 5 },
      { bucket: "zero", limit: 0 },
    ]);
    assert.deepEqual(r, { ok: false, bucket: "zero", limit: 0, used: 0 });
    assert.deepEqual(await store.usage(client), {});
  });

  it("release gives the units back, once, and never below 0", async () => {
    const client = newClient();
    const b = [
      { bucket: "session:ever", limit: 1 },
      { bucket: "act:ever", limit: 10 },
    ];
    const first = await store.consume(client, b);
    assert.ok(first.ok);
    assert.equal((await store.consume(client, b)).ok, false);
    await Promise.all([first.release(), first.release()]);
    await first.release();
    assert.deepEqual(await store.usage(client), { "act:ever": 0, "session:ever": 0 });
    const again = await store.consume(client, b);
    assert.ok(again.ok, "the released unit can be used again");
    assert.deepEqual(await store.usage(client), { "act:ever": 1, "session:ever": 1 });

    // idempotent: releasing one consume many times gives back one unit, not more
    const third = await store.consume(client, [{ bucket: "act:ever", limit: 10 }]);
    assert.ok(third.ok);
    assert.equal((await store.usage(client))["act:ever"], 2);
    await Promise.all([third.release(), third.release()]);
    await third.release();
    assert.equal((await store.usage(client))["act:ever"], 1);

    // someone reset the counter meanwhile: release must not go negative
    await pg.database.sql`update allowance_counters set count = 0 where client = ${client}`;
    await again.release();
    assert.deepEqual(await store.usage(client), { "act:ever": 0, "session:ever": 0 });
  });
});
