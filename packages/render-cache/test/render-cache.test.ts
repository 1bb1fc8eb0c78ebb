import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import {
  type Format,
  type ScrapeRequestInput,
  type ScrapeResponse,
  scrapeRequest,
} from "@browserfleet/contracts";
import { Registry } from "prom-client";
import { startTestPostgres, type TestPostgres } from "../../../test/helpers/postgres.ts";
import { waitFor } from "../../../test/helpers/wait-for.ts";
import { cacheKeyFor, RenderCache } from "../src/index.ts";

const req = (input: ScrapeRequestInput) => scrapeRequest.parse(input);
const URL_A = "https://example.com/a";

function response(
  data: Partial<Record<Format, unknown>>,
  extra: { errors?: ScrapeResponse["errors"]; cached?: Format[]; title?: string } = {},
): ScrapeResponse {
  const formats = [...Object.keys(data), ...Object.keys(extra.errors ?? {})] as Format[];
  return {
    success: Object.keys(data).length > 0,
    data,
    errors: extra.errors ?? {},
    metadata: {
      url: URL_A,
      title: extra.title ?? "Page A",
      formats,
      renders: formats.length,
      browserMsUsed: 10,
      ms: 12,
      ...(extra.cached ? { cached: extra.cached } : {}),
    },
  };
}

let pg: TestPostgres;
let registry: Registry;
let cache: RenderCache;
const errors: unknown[] = [];

async function metric(name: string, labels: Record<string, string> = {}): Promise<number> {
  const m = await registry.getSingleMetric(name)?.get();
  const v = m?.values.find((x) => Object.entries(labels).every(([k, l]) => x.labels[k] === l));
  return v?.value ?? 0;
}

async function rowCount(): Promise<number> {
  const [r] = await pg.database.sql<{ n: number }[]>`select count(*)::int as n from cache_entries`;
  return r?.n ?? -1;
}

async function backdate(interval: string): Promise<void> {
  await pg.database.sql`update cache_entries set rendered_at = now() - ${interval}::interval`;
}

before(async () => {
  pg = await startTestPostgres();
});
after(async () => {
  await pg?.stop();
});
beforeEach(async () => {
  await pg.database.sql`delete from cache_entries`;
  registry = new Registry();
  errors.length = 0;
  cache = new RenderCache({
    database: pg.database,
    retentionMs: 3600_000,
    maxEntryBytes: 10_000,
    registry,
    onError: (err) => errors.push(err),
  });
});

describe("RenderCache", () => {
  it("serves a stored render within maxAge, with body, title and renderedAt", async () => {
    const r = req({ url: URL_A, formats: ["markdown", "links"] });
    const links = [{ href: "https://example.com/b", text: "B" }];
    await cache.store(r, response({ markdown: "# A", links }, { title: "Title A" }));
    assert.equal(await rowCount(), 2);
    const [row] = await pg.database.sql<{ t: string; bytes: number; url: string }[]>`
      select jsonb_typeof(body) as t, bytes, url from cache_entries where format = 'links'`;
    assert.equal(row?.t, "array", "body is stored as JSON, not as a JSON string");
    assert.equal(row?.bytes, Buffer.byteLength(JSON.stringify(links)));
    assert.equal(row?.url, URL_A);

    const hit = await cache.lookup(r, 60_000);
    assert.deepEqual(hit.formats, ["markdown", "links"]);
    assert.deepEqual(hit.data, { markdown: "# A", links });
    assert.equal(hit.title, "Title A");
    assert.ok(hit.renderedAt instanceof Date);
    assert.ok(Math.abs(Date.now() - hit.renderedAt.getTime()) < 10_000);

    // Another request for a subset, with unrelated options, reuses the same entries.
    const other = req({ url: `${URL_A}#frag`, formats: ["links", "pdf"], pdf: { landscape: true } });
    const partial = await cache.lookup(other, 60_000);
    assert.deepEqual(partial.formats, ["links"]);
    assert.deepEqual(partial.data, { links });
  });

  it("misses when the entry is older than maxAge, hits when maxAge reaches it", async () => {
    const r = req({ url: URL_A, formats: ["markdown"] });
    await cache.store(r, response({ markdown: "old" }));
    await backdate("10 minutes");
    assert.deepEqual((await cache.lookup(r, 5 * 60_000)).formats, []);
    assert.deepEqual((await cache.lookup(r, 0)).formats, []);
    const hit = await cache.lookup(r, 15 * 60_000);
    assert.deepEqual(hit.formats, ["markdown"]);
    assert.ok(hit.renderedAt && Date.now() - hit.renderedAt.getTime() >= 9 * 60_000);
  });

  it("misses an entry past expiresAt even if maxAge would accept it", async () => {
    const r = req({ url: URL_A, formats: ["markdown"] });
    await cache.store(r, response({ markdown: "x" }));
    await pg.database.sql`update cache_entries set expires_at = now() - interval '1 second'`;
    assert.deepEqual((await cache.lookup(r, 3600_000)).formats, []);
  });

  it("a different option for a format misses that format only", async () => {
    const r = req({ url: URL_A, formats: ["markdown", "screenshot"], screenshot: { fullPage: true } });
    await cache.store(r, response({ markdown: "m", screenshot: "iVBORw0KGgo=" }));
    const changed = req({ url: URL_A, formats: ["markdown", "screenshot"], screenshot: { fullPage: false } });
    assert.deepEqual((await cache.lookup(changed, 60_000)).formats, ["markdown"]);
    const vp = req({ url: URL_A, formats: ["markdown", "screenshot"], viewport: { width: 500 } });
    assert.deepEqual((await cache.lookup(vp, 60_000)).formats, []);
  });

  it("a job's render is copied from its page's recorded result: the same rows as a plain store", async () => {
    const r = req({ url: URL_A, formats: ["markdown", "links"] });
    const links = [{ href: "https://example.com/b", text: "B" }];
    const result = response({ markdown: "# A from a job", links }, { title: "Job page" });
    await cache.store(r, result);
    const plain = await pg.database.sql`
      select key, url, format, body, title, bytes from cache_entries order by key`;
    await pg.database.sql`delete from cache_entries`;

    await pg.database.sql`insert into accounts (id) values ('acct-cache-copy') on conflict do nothing`;
    const [job] = await pg.database.sql<{ id: string }[]>`
      insert into jobs (id, kind, account_id, status, request, hold_id, page_micros, page_limit, deadline_at, expires_at)
      values ('job-cache-copy', 'batch', 'acct-cache-copy', 'running', '{}', 'hold-x', 0, 1, now() + interval '1 hour', now() + interval '1 day')
      returning id`;
    const [page] = await pg.database.sql<{ id: number }[]>`
      insert into job_pages (job_id, url, url_key, status, result)
      values (${job!.id}, ${URL_A}, ${URL_A}, 'completed', ${JSON.stringify(result)}::jsonb)
      returning id`;
    await cache.store(r, result, undefined, Number(page!.id));
    const copied = await pg.database.sql`
      select key, url, format, body, title, bytes from cache_entries order by key`;
    assert.deepEqual(copied, plain);
    assert.deepEqual(errors, []);
    const hit = await cache.lookup(r, 60_000);
    assert.deepEqual(hit.data, { markdown: "# A from a job", links });
    assert.equal(hit.title, "Job page");
    await pg.database.sql`delete from jobs where id = ${job!.id}`;
  });

  it("stores only the formats that succeeded", async () => {
    const r = req({ url: URL_A, formats: ["markdown", "screenshot", "pdf"] });
    await cache.store(
      r,
      response(
        { markdown: "ok" },
        {
          errors: {
            screenshot: { code: "render_failed", message: "boom" },
            pdf: { code: "timeout", message: "slow" },
          },
        },
      ),
    );
    const rows = await pg.database.sql<{ format: string }[]>`select format from cache_entries`;
    assert.deepEqual(
      rows.map((x) => x.format),
      ["markdown"],
    );
    assert.deepEqual((await cache.lookup(r, 60_000)).formats, ["markdown"]);
  });

  it("does not store a format that was not requested", async () => {
    const r = req({ url: URL_A, formats: ["markdown"] });
    await cache.store(r, response({ markdown: "m", html: "<p>stray</p>" }));
    const rows = await pg.database.sql<{ format: string }[]>`select format from cache_entries`;
    assert.deepEqual(
      rows.map((x) => x.format),
      ["markdown"],
    );
  });

  it("does not re-store formats that were served from cache (their renderedAt stays)", async () => {
    const r = req({ url: URL_A, formats: ["markdown", "links"] });
    await cache.store(r, response({ markdown: "first", links: [] }));
    await backdate("5 minutes");
    // (raw SQL: drizzle makes postgres.js return timestamps as text, so compare epoch milliseconds)
    const before = await pg.database.sql<{ format: string; ms: number }[]>`
      select format, (extract(epoch from rendered_at) * 1000)::float8 as ms from cache_entries`;
    // markdown came from cache, links was rendered afresh.
    await cache.store(r, response({ markdown: "first", links: ["fresh"] }, { cached: ["markdown"] }));
    const afterRows = await pg.database.sql<{ format: string; ms: number; body: unknown }[]>`
      select format, (extract(epoch from rendered_at) * 1000)::float8 as ms, body from cache_entries`;
    const ms = (rows: { format: string; ms: number }[], f: string) => rows.find((x) => x.format === f)?.ms;
    assert.equal(afterRows.length, 2);
    assert.equal(ms(afterRows, "markdown"), ms(before, "markdown"));
    assert.ok((ms(afterRows, "links") ?? 0) > (ms(before, "links") ?? Number.POSITIVE_INFINITY));
    assert.deepEqual(afterRows.find((x) => x.format === "links")?.body, ["fresh"]);
    assert.equal(await metric("fleet_cache_stored_bytes_total", { format: "markdown" }), '"first"'.length);
  });

  it("a fresh render replaces an older entry (upsert)", async () => {
    const r = req({ url: URL_A, formats: ["markdown"] });
    await cache.store(r, response({ markdown: "v1" }, { title: "T1" }));
    await backdate("1 hour");
    await cache.store(r, response({ markdown: "v2" }, { title: "T2" }));
    assert.equal(await rowCount(), 1);
    const hit = await cache.lookup(r, 60_000);
    assert.deepEqual(hit.data, { markdown: "v2" });
    assert.equal(hit.title, "T2");
  });

  it("skips values larger than maxEntryBytes", async () => {
    const r = req({ url: URL_A, formats: ["markdown", "screenshot"] });
    await cache.store(r, response({ markdown: "small", screenshot: "A".repeat(20_000) }));
    const rows = await pg.database.sql<{ format: string }[]>`select format from cache_entries`;
    assert.deepEqual(
      rows.map((x) => x.format),
      ["markdown"],
    );
    assert.equal(await metric("fleet_cache_stored_bytes_total", { format: "screenshot" }), 0);
  });

  it("sweep deletes expired rows only, in chunks, and counts them", async () => {
    await pg.database.sql`
      insert into cache_entries (key, url, format, body, bytes, rendered_at, expires_at)
      select 'old' || i, 'https://x/', 'markdown', '"x"'::jsonb, 3, now() - interval '2 days', now() - interval '1 day'
      from generate_series(1, 5003) as i`;
    const r = req({ url: URL_A, formats: ["markdown"] });
    await cache.store(r, response({ markdown: "live" }));
    assert.equal(await rowCount(), 5004);
    assert.equal(await cache.sweep(), 5003);
    assert.equal(await rowCount(), 1);
    assert.deepEqual((await cache.lookup(r, 60_000)).data, { markdown: "live" });
    assert.equal(await metric("fleet_cache_evicted_total"), 5003);
    assert.equal(await cache.sweep(), 0);
  });

  it("the sweeper runs sweep periodically and stops", async () => {
    await pg.database.sql`
      insert into cache_entries (key, url, format, body, bytes, rendered_at, expires_at)
      values ('gone', 'https://x/', 'markdown', '"x"'::jsonb, 3, now(), now() - interval '1 second')`;
    const stop = cache.startSweeper(20);
    try {
      await waitFor("the sweeper to delete the expired row", async () => (await rowCount()) === 0, 5_000, 20);
    } finally {
      stop();
    }
  });

  it("a request with cookies, auth or headers neither reads nor writes", async () => {
    const plain = req({ url: URL_A, formats: ["markdown"] });
    await cache.store(plain, response({ markdown: "public" }));
    const personal = [
      req({ url: URL_A, formats: ["markdown"], request: { cookies: [{ name: "sid", value: "1" }] } }),
      req({ url: URL_A, formats: ["markdown"], request: { auth: { username: "u", password: "p" } } }),
      req({ url: URL_A, formats: ["markdown"], request: { headers: { "x-api-key": "k" } } }),
    ];
    for (const p of personal) {
      const hit = await cache.lookup(p, 3600_000);
      assert.deepEqual(hit, { data: {}, formats: [] });
      await cache.store(p, response({ markdown: "private" }));
    }
    assert.equal(await rowCount(), 1);
    assert.deepEqual((await cache.lookup(plain, 60_000)).data, { markdown: "public" });
    // They count neither hits nor misses: they never touched the cache.
    assert.equal(await metric("fleet_cache_misses_total", { format: "markdown" }), 0);
    assert.equal(await metric("fleet_cache_hits_total", { format: "markdown" }), 1);
  });

  it("html input is never cached", async () => {
    const r = req({ html: "<h1>x</h1>", formats: ["markdown"] });
    await cache.store(r, response({ markdown: "# x" }));
    assert.equal(await rowCount(), 0);
    assert.deepEqual((await cache.lookup(r, 60_000)).formats, []);
  });

  it("scopes isolate entries from each other and from the shared cache", async () => {
    const r = req({ url: URL_A, formats: ["markdown"] });
    await cache.store(r, response({ markdown: "for a" }), "acct_a");
    assert.deepEqual((await cache.lookup(r, 60_000, "acct_a")).data, { markdown: "for a" });
    assert.deepEqual((await cache.lookup(r, 60_000, "acct_b")).formats, []);
    assert.deepEqual((await cache.lookup(r, 60_000)).formats, []);
    await cache.store(r, response({ markdown: "shared" }));
    assert.deepEqual((await cache.lookup(r, 60_000)).data, { markdown: "shared" });
    assert.deepEqual((await cache.lookup(r, 60_000, "acct_a")).data, { markdown: "for a" });
  });

  it("counts a hit or a miss per requested format, and stored bytes per format", async () => {
    const r = req({ url: URL_A, formats: ["markdown", "html", "links"] });
    await cache.store(r, response({ markdown: "abc", links: [1, 2] }));
    assert.equal(await metric("fleet_cache_stored_bytes_total", { format: "markdown" }), 5);
    assert.equal(await metric("fleet_cache_stored_bytes_total", { format: "links" }), 5);
    await cache.lookup(r, 60_000);
    await cache.lookup(r, 60_000);
    assert.equal(await metric("fleet_cache_hits_total", { format: "markdown" }), 2);
    assert.equal(await metric("fleet_cache_hits_total", { format: "links" }), 2);
    assert.equal(await metric("fleet_cache_misses_total", { format: "html" }), 2);
    assert.equal(await metric("fleet_cache_misses_total", { format: "markdown" }), 0);
    const text = await registry.getSingleMetricAsString("fleet_cache_hits_total");
    assert.match(text, /fleet_cache_hits_total\{format="markdown"\} 2/);
  });

  it("a write failure never reaches the caller; it is counted", async () => {
    const broken = new RenderCache({
      database: { ...pg.database, db: undefined as never, sql: undefined as never },
      retentionMs: 1000,
      maxEntryBytes: 1000,
      registry,
      onError: (err) => errors.push(err),
    });
    const r = req({ url: URL_A, formats: ["markdown"] });
    await broken.store(r, response({ markdown: "m" }));
    assert.equal(await metric("fleet_cache_store_errors_total"), 1);
    assert.equal(errors.length, 1);
    // A failed read is a miss, not an error for the scrape.
    assert.deepEqual(await broken.lookup(r, 60_000), { data: {}, formats: [] });
    assert.equal(await metric("fleet_cache_misses_total", { format: "markdown" }), 1);
    assert.equal(await metric("fleet_cache_lookup_errors_total"), 1);
  });

  it("a write failure from the database (e.g. a dropped table) is swallowed too", async () => {
    const r = req({ url: URL_A, formats: ["markdown"] });
    await pg.database.sql`alter table cache_entries rename to cache_entries_moved`;
    try {
      await cache.store(r, response({ markdown: "m" }));
      assert.equal(await metric("fleet_cache_store_errors_total"), 1);
      assert.match(String(errors[0]), /cache_entries/);
    } finally {
      await pg.database.sql`alter table cache_entries_moved rename to cache_entries`;
    }
  });

  it("entries are keyed exactly as cacheKeyFor says", async () => {
    const r = req({ url: URL_A, formats: ["elements"], selectors: ["h1"] });
    await cache.store(r, response({ elements: [{ selector: "h1", text: "A" }] }));
    const [row] = await pg.database.sql<{ key: string }[]>`select key from cache_entries`;
    assert.equal(row?.key, cacheKeyFor(r, "elements"));
  });
});

describe("RenderCache memory tier", () => {
  it("serves a hot entry without the database, and still honours maxAge against its render time", async () => {
    await pg.database.sql`delete from cache_entries`;
    const reg = new Registry();
    // The memory tier's clock, stepped past maxAge below instead of waiting for an entry to age.
    let skewMs = 0;
    const hot = new RenderCache({
      database: pg.database,
      retentionMs: 3_600_000,
      maxEntryBytes: 1_000_000,
      memoryBytes: 1_000_000,
      registry: reg,
      now: () => Date.now() + skewMs,
    });
    const r = req({ url: `${URL_A}?hot=1`, formats: ["markdown"], maxAge: 60_000 });
    await hot.store(r, response({ markdown: "# hot" }));
    // The database loses the row; the replica's memory still has it.
    await pg.database.sql`delete from cache_entries`;
    const hit = await hot.lookup(r, 60_000);
    assert.deepEqual(hit.data, { markdown: "# hot" });
    const memoryHits = await reg.getSingleMetric("fleet_cache_memory_hits_total")?.get();
    assert.equal(memoryHits?.values.find((v) => v.labels.format === "markdown")?.value, 1);
    skewMs = 60_001;
    const tooOld = await hot.lookup(r, 60_000);
    assert.deepEqual(tooOld.formats, [], "an entry older than maxAge is not served from memory either");
  });

  it("keeps within its byte budget by dropping the least recently used entries", async () => {
    const small = new RenderCache({
      database: pg.database,
      retentionMs: 3_600_000,
      maxEntryBytes: 1_000_000,
      memoryBytes: 16_000,
    });
    const body = "x".repeat(900);
    for (let i = 0; i < 20; i++)
      await small.store(
        req({ url: `${URL_A}?lru=${i}`, formats: ["markdown"] }),
        response({ markdown: body }),
      );
    await pg.database.sql`delete from cache_entries`;
    const first = await small.lookup(req({ url: `${URL_A}?lru=0`, formats: ["markdown"] }), 60_000);
    const last = await small.lookup(req({ url: `${URL_A}?lru=19`, formats: ["markdown"] }), 60_000);
    assert.deepEqual(first.formats, [], "the oldest entry was evicted");
    assert.deepEqual(last.formats, ["markdown"]);
  });

  it("weighs small entries with what they cost besides their body, so the budget bounds the heap", async () => {
    const budget = 20_000;
    const small = new RenderCache({
      database: pg.database,
      retentionMs: 3_600_000,
      maxEntryBytes: 1_000_000,
      memoryBytes: budget,
    });
    // 100 bodies of 12 JSON bytes: 1,200 bytes by their bodies alone, about 45 KB in a V8 heap.
    for (let i = 0; i < 100; i++)
      await small.store(
        req({ url: `${URL_A}?tiny=${i}`, formats: ["markdown"] }),
        response({ markdown: `tiny ${String(i).padStart(5, "0")}` }),
      );
    await pg.database.sql`delete from cache_entries`;
    const kept = [];
    for (let i = 0; i < 100; i++)
      if (
        (await small.lookup(req({ url: `${URL_A}?tiny=${i}`, formats: ["markdown"] }), 60_000)).formats.length
      )
        kept.push(i);
    assert.ok(kept.length > 0 && kept.length < 60, `kept ${kept.length} of 100`);
    assert.equal(kept.at(-1), 99, "the newest are the ones kept");
  });
});
