import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestPostgres, type TestPostgres } from "../../../test/helpers/postgres.ts";
import { AllowanceStore } from "../src/allowance/index.ts";
import { allowanceFor } from "./allowance-of.ts";

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
    assert.deepEqual(await store.consume(client, b), {
      ok: false,
      bucket: "search:ever",
      limit: 2,
      used: 2,
      units: 1,
    });
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
      units: 1,
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
    assert.deepEqual(r, { ok: false, bucket: "zero", limit: 0, used: 0, units: 1 });
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

  const NOW = new Date("2026-11-22T12:00:00Z");
  const scrapeOf = (client: string, url: string, now = NOW) => {
    const d = allowanceFor({ route: "scrape", request: { url } }, now);
    assert.ok(d.ok);
    return store.consume(client, d.buckets);
  };

  it("counts distinct pages per site: the same page again takes no page, subdomains share the site", async () => {
    const client = newClient();
    for (const url of [
      "https://example.com/a",
      "https://example.com/a#again",
      "https://example.com/a",
      "https://blog.example.com/b",
      "https://shop.example.com/c",
      "https://example.com/a",
    ])
      assert.equal((await scrapeOf(client, url)).ok, true, url);
    const refused = await scrapeOf(client, "https://www.example.com/d");
    assert.equal(refused.ok, false);
    assert.equal(!refused.ok && refused.bucket, "scrape-site:example.com:2026-11-22");
    // an already counted page of the full site still goes, as long as the daily counter allows
    assert.equal((await scrapeOf(client, "https://blog.example.com/b")).ok, true);
    assert.deepEqual(await store.usage(client), {
      "scrape:2026-11-22": 7,
      "scrape-site:example.com:2026-11-22": 3,
    });
  });

  it("is exact under concurrency on pages: 20 concurrent scrapes of 5 pages of one site count 3 pages", async () => {
    const client = newClient();
    const pages = ["p1", "p2", "p3", "p4", "p5"];
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => scrapeOf(client, `https://example.org/${pages[i % 5]}`)),
    );
    const ok = results.filter((r) => r.ok).length;
    assert.ok(ok <= 10, "never more than the daily 10");
    const usage = await store.usage(client);
    assert.equal(usage["scrape-site:example.org:2026-11-22"], 3);
    assert.equal(usage["scrape:2026-11-22"], ok);
    const markers = await pg.database.sql<{ n: number }[]>`
      select count(*)::int as n from allowance_counters where client = ${client} and bucket like 'scrape-site:%|%'`;
    assert.equal(markers[0]?.n, 3, "one marker per counted page");
  });

  it("a page goes back only when its last holder gives it back", async () => {
    const client = newClient();
    const first = await scrapeOf(client, "https://example.net/a");
    const second = await scrapeOf(client, "https://example.net/a");
    assert.ok(first.ok && second.ok);
    await first.release();
    assert.equal(
      (await store.usage(client))["scrape-site:example.net:2026-11-22"],
      1,
      "still held by the second",
    );
    await second.release();
    await second.release();
    assert.deepEqual(await store.usage(client), {
      "scrape:2026-11-22": 0,
      "scrape-site:example.net:2026-11-22": 0,
    });
  });

  it("an act takes one unit per action, refuses more than is left, and gives back actions that did not run", async () => {
    const client = newClient();
    const act = (n: number) => {
      const d = allowanceFor(
        { route: "act", request: { actions: Array.from({ length: n }, () => ({ press: "Tab" })) } },
        NOW,
      );
      assert.ok(d.ok);
      return store.consume(client, d.buckets);
    };
    const six = await act(6);
    assert.ok(six.ok);
    const five = await act(5);
    assert.deepEqual(five, { ok: false, bucket: "act:ever", limit: 10, used: 6, units: 5 });
    await six.giveBack("act:ever", 2); // only 4 of the 6 ran
    assert.deepEqual(await store.usage(client), { "act:ever": 4 });
    await six.release();
    await six.release();
    assert.deepEqual(
      await store.usage(client),
      { "act:ever": 0 },
      "release returns only what was still held",
    );
    assert.equal((await act(25)).ok, false, "25 actions never fit a 10-action allowance");
  });

  it("sweeps the counters whose day is over, and keeps today's and the ever counters", async () => {
    const client = newClient();
    const yesterday = new Date(Date.now() - 86_400_000);
    assert.ok((await scrapeOf(client, "https://old.test/a", yesterday)).ok);
    assert.ok((await scrapeOf(client, "https://new.test/a", new Date())).ok);
    assert.ok((await store.consume(client, [{ bucket: "session:ever", limit: 1 }])).ok);
    assert.ok((await store.sweep()) >= 3, "yesterday's daily, site and page counters");
    const left = await pg.database.sql<{ bucket: string }[]>`
      select bucket from allowance_counters where client = ${client} order by bucket`;
    const today = new Date().toISOString().slice(0, 10);
    assert.deepEqual(
      left.map((r) => r.bucket.replace(/\|.*/, "|page")),
      [
        `scrape-site:new.test:${today}`,
        `scrape-site:new.test:${today}|page`,
        `scrape:${today}`,
        "session:ever",
      ],
    );
  });
});
