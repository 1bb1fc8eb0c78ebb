import { randomUUID } from "node:crypto";
import {
  cleanStoredJson,
  FORMATS,
  type Format,
  type ScrapeRequest,
  type ScrapeResponse,
} from "@browserfleet/contracts";
import { type Database, schema } from "@browserfleet/db";
import { and, eq, gt, gte, inArray, sql } from "drizzle-orm";
import { Counter, Gauge, type Registry } from "prom-client";
import { cacheKeysFor, cacheUrl, isCacheable } from "./cache-key.ts";

const { cacheEntries, jobPages } = schema;

export interface RenderCacheOptions {
  database: Database;
  /** How long a row is kept at most (CACHE_RETENTION_MS); maxAge can never reach further back. */
  retentionMs: number;
  /** Values whose JSON is larger than this are not stored (CACHE_MAX_ENTRY_BYTES). */
  maxEntryBytes: number;
  /**
   * Bytes of recently used entries each api replica also keeps in memory, in front of PostgreSQL, so a
   * hot page is served without a database round trip (0: off). An entry's age is still checked against
   * maxAge on every read, so this tier never serves anything PostgreSQL would not.
   */
  memoryBytes?: number;
  /** Metrics are registered here only; without it they are counted but not exported. */
  registry?: Registry;
  /** Told about cache read/write/sweep failures, which are otherwise swallowed (and counted). */
  onError?: (err: unknown, op: "lookup" | "store" | "sweep") => void;
  /** The clock the memory tier reads an entry's age and expiry by (Date.now; PostgreSQL reads its own). */
  now?: () => number;
}

export interface CacheHit {
  /** One key per requested format served from cache. */
  data: Partial<Record<Format, unknown>>;
  /** The formats in `data`, in the request's order. */
  formats: Format[];
  /** Page title of the most recent entry that has one. */
  title?: string;
  /** When the oldest of the entries served was rendered. */
  renderedAt?: Date;
}

/** A response made only of cache hits: no browser was needed. */
export function responseFromCache(req: ScrapeRequest, hit: CacheHit): ScrapeResponse {
  return {
    success: true,
    data: hit.data,
    errors: {},
    metadata: {
      url: req.url ?? "",
      ...(hit.title ? { title: hit.title } : {}),
      formats: req.formats,
      renders: 0,
      browserMsUsed: 0,
      ms: 0,
      cached: hit.formats,
    },
  };
}

/** A whole answer kept for reading on in parts (RenderCache.keep). */
export interface KeptRender {
  /** Who may read it: "account:<id>", "wallet:<address>" or "allowance:<client>". */
  owner: string;
  url: string;
  title?: string;
  /** The text formats, in the order the parts read them. */
  formats: string[];
  data: Record<string, unknown>;
  /** The budget of the call that kept it: the default of the calls that read on. */
  maxTokens: number;
}

/** Kept renders' keys: no cache key starts so (those are hashes). */
const KEPT_PREFIX = "render:";

/** Rows deleted per statement by `sweep`, so one sweep never holds a huge lock or transaction. */
const SWEEP_CHUNK = 5000;

const FORMAT_SET: ReadonlySet<string> = new Set(FORMATS);

interface MemoryEntry {
  body: unknown;
  title: string | null;
  renderedAt: Date;
  expiresAt: number;
  bytes: number;
}

/**
 * What an entry costs in V8's heap beyond its body's JSON bytes, its key and its title: the entry object,
 * its Date, the Map's slot, and the headers of the parsed body's strings, arrays and objects (measured:
 * 530-560 bytes an entry for small markdown and links bodies of 90-180 JSON bytes).
 */
export const MEMORY_ENTRY_OVERHEAD = 360;

/** What an entry of the memory tier weighs in the heap, as near as can be told without walking it. */
export const memoryWeight = (key: string, e: Pick<MemoryEntry, "bytes" | "title">): number =>
  e.bytes + key.length + (e.title?.length ?? 0) + MEMORY_ENTRY_OVERHEAD;

/**
 * A weight-bounded LRU (a Map keeps insertion order; a read moves the entry to the end). Entries are
 * weighed with their overhead, not by their body alone: many small bodies would otherwise hold several
 * times CACHE_MEMORY_BYTES.
 */
class MemoryTier {
  #entries = new Map<string, MemoryEntry>();
  #bytes = 0;
  constructor(readonly capacity: number) {}

  /** What the entries held weigh now, overhead included (at most `capacity`). */
  get bytes(): number {
    return this.#bytes;
  }

  get(key: string, now: number): MemoryEntry | undefined {
    const e = this.#entries.get(key);
    if (!e) return undefined;
    this.#entries.delete(key);
    if (e.expiresAt <= now) {
      this.#bytes -= memoryWeight(key, e);
      return undefined;
    }
    this.#entries.set(key, e);
    return e;
  }

  set(key: string, e: MemoryEntry): void {
    const weight = memoryWeight(key, e);
    if (this.capacity <= 0 || weight > this.capacity / 8) return;
    const old = this.#entries.get(key);
    if (old) {
      if (old.renderedAt >= e.renderedAt) return;
      this.#entries.delete(key);
      this.#bytes -= memoryWeight(key, old);
    }
    this.#entries.set(key, e);
    this.#bytes += weight;
    for (const [k, v] of this.#entries) {
      if (this.#bytes <= this.capacity) break;
      this.#entries.delete(k);
      this.#bytes -= memoryWeight(k, v);
    }
  }
}

/**
 * The shared render cache behind `maxAge`: one PostgreSQL row per URL, format and every option that
 * changes that format's output (see cache-key.ts). Lookups and stores never fail a scrape.
 */
export class RenderCache {
  readonly #database: Database;
  readonly #retentionMs: number;
  readonly #maxEntryBytes: number;
  readonly #onError?: RenderCacheOptions["onError"];
  readonly #hits: Counter<"format">;
  readonly #misses: Counter<"format">;
  readonly #storedBytes: Counter<"format">;
  readonly #storeErrors: Counter;
  readonly #lookupErrors: Counter;
  readonly #evicted: Counter;
  readonly #memoryHits: Counter<"format">;
  readonly #memory: MemoryTier;
  readonly #now: () => number;

  constructor(opts: RenderCacheOptions) {
    this.#database = opts.database;
    this.#retentionMs = opts.retentionMs;
    this.#maxEntryBytes = opts.maxEntryBytes;
    this.#onError = opts.onError;
    this.#now = opts.now ?? Date.now;
    const r = opts.registry;
    this.#hits = counter(r, "fleet_cache_hits_total", "Formats served from the render cache", ["format"]);
    this.#misses = counter(
      r,
      "fleet_cache_misses_total",
      "Formats looked up in the render cache and not found",
      ["format"],
    );
    this.#storedBytes = counter(
      r,
      "fleet_cache_stored_bytes_total",
      "Bytes of JSON written to the render cache",
      ["format"],
    );
    this.#storeErrors = counter(r, "fleet_cache_store_errors_total", "Render cache writes that failed", []);
    this.#lookupErrors = counter(
      r,
      "fleet_cache_lookup_errors_total",
      "Render cache reads that failed (served as misses)",
      [],
    );
    this.#evicted = counter(r, "fleet_cache_evicted_total", "Expired render cache rows deleted", []);
    this.#memoryHits = counter(
      r,
      "fleet_cache_memory_hits_total",
      "Cache hits served from the api replica's memory tier without a database round trip",
      ["format"],
    );
    const memory = new MemoryTier(opts.memoryBytes ?? 0);
    this.#memory = memory;
    // A bounded tier filling up to its capacity looks like growth in a process's memory: this tells them apart.
    if (r && !r.getSingleMetric("fleet_cache_memory_bytes"))
      new Gauge({
        name: "fleet_cache_memory_bytes",
        help: "Bytes of render cache entries held in this api replica's memory tier (at most CACHE_MEMORY_BYTES)",
        registers: [r],
        collect() {
          this.set(memory.bytes);
        },
      });
  }

  /**
   * The requested formats whose entry was rendered at most `maxAgeMs` ago and has not expired, in one
   * round trip. A request that must not touch the cache (cookies, auth, headers, html) gets an empty hit
   * and counts nothing. A database failure is served as a miss.
   */
  async lookup(req: ScrapeRequest, maxAgeMs: number, scope?: string): Promise<CacheHit> {
    const hit: CacheHit = { data: {}, formats: [] };
    const formats = [...new Set(req.formats)];
    const keys = cacheKeysFor(req, formats, scope);
    if (keys === undefined) return hit;
    const keyToFormat = new Map<string, Format>();
    for (const [f, key] of keys) keyToFormat.set(key, f);
    const rows: { key: string; body: unknown; title: string | null; renderedAt: Date; bytes: number }[] = [];
    const now = this.#now();
    const remembered = new Set<string>();
    for (const key of keyToFormat.keys()) {
      const e = maxAgeMs > 0 ? this.#memory.get(key, now) : undefined;
      if (e && now - e.renderedAt.getTime() <= maxAgeMs) {
        rows.push({ key, ...e });
        remembered.add(key);
        this.#memoryHits.inc({ format: keyToFormat.get(key) as Format });
      }
    }
    const wanted = [...keyToFormat.keys()].filter((k) => !remembered.has(k));
    if (wanted.length > 0 && maxAgeMs > 0) {
      try {
        const fromDb = await this.#database.db
          .select({
            key: cacheEntries.key,
            body: cacheEntries.body,
            title: cacheEntries.title,
            renderedAt: cacheEntries.renderedAt,
            expiresAt: cacheEntries.expiresAt,
            bytes: cacheEntries.bytes,
          })
          .from(cacheEntries)
          .where(
            and(
              inArray(cacheEntries.key, wanted),
              gte(cacheEntries.renderedAt, sql`now() - ${Math.floor(maxAgeMs)} * interval '1 millisecond'`),
              gt(cacheEntries.expiresAt, sql`now()`),
            ),
          );
        for (const row of fromDb) {
          this.#memory.set(row.key, { ...row, expiresAt: row.expiresAt.getTime() });
          rows.push(row);
        }
      } catch (err) {
        this.#lookupErrors.inc();
        this.#onError?.(err, "lookup");
      }
    }
    const found = new Map<Format, (typeof rows)[number]>();
    for (const row of rows) {
      const f = keyToFormat.get(row.key);
      if (f !== undefined) found.set(f, row);
    }
    let newest: Date | undefined;
    for (const f of formats) {
      const row = found.get(f);
      if (row === undefined) {
        this.#misses.inc({ format: f });
        continue;
      }
      this.#hits.inc({ format: f });
      hit.data[f] = row.body;
      hit.formats.push(f);
      if (hit.renderedAt === undefined || row.renderedAt < hit.renderedAt) hit.renderedAt = row.renderedAt;
      if (row.title !== null && (newest === undefined || row.renderedAt > newest)) {
        newest = row.renderedAt;
        hit.title = row.title;
      }
    }
    return hit;
  }

  /**
   * Upserts one row per format that succeeded in `result.data` and was not itself served from cache, in
   * one statement. Oversize values are skipped. Never throws: a failure is counted and reported to onError.
   *
   * `jobPageId`: `result` is the one already recorded as that job page's result (a job's render), so each
   * row's body is copied from there inside PostgreSQL rather than sent over again; the row is the same.
   */
  async store(req: ScrapeRequest, result: ScrapeResponse, scope?: string, jobPageId?: number): Promise<void> {
    try {
      if (!isCacheable(req)) return;
      const url = cacheUrl(req.url as string) as string;
      const fromCache = new Set<string>(result.metadata.cached ?? []);
      const title = result.metadata.title ?? null;
      const rows: { key: string; format: Format; body: unknown; bytes: number }[] = [];
      const keys = cacheKeysFor(req, [...new Set(req.formats)], scope);
      const seen = new Set<string>();
      for (const f of req.formats) {
        if (!FORMAT_SET.has(f) || fromCache.has(f) || !Object.hasOwn(result.data, f)) continue;
        const body = result.data[f];
        if (body === undefined || Object.hasOwn(result.errors, f)) continue;
        const json = JSON.stringify(body);
        if (json === undefined) continue;
        const bytes = Buffer.byteLength(json, "utf8");
        if (bytes > this.#maxEntryBytes) continue;
        const key = keys?.get(f);
        if (key === undefined || seen.has(key)) continue;
        seen.add(key);
        rows.push({ key, format: f, body, bytes });
      }
      if (rows.length === 0) return;
      const expires = sql`now() + ${Math.floor(this.#retentionMs)} * interval '1 millisecond'`;
      const written = await this.#database.db
        .insert(cacheEntries)
        .values(
          rows.map((r) => ({
            key: r.key,
            url,
            format: r.format,
            body:
              jobPageId === undefined
                ? r.body
                : sql`(select ${jobPages.result} -> 'data' -> ${r.format} from ${jobPages} where ${jobPages.id} = ${jobPageId})`,
            title,
            bytes: r.bytes,
            renderedAt: sql`now()`,
            expiresAt: expires,
          })),
        )
        .onConflictDoUpdate({
          target: cacheEntries.key,
          set: {
            url: sql`excluded.url`,
            format: sql`excluded.format`,
            body: sql`excluded.body`,
            title: sql`excluded.title`,
            bytes: sql`excluded.bytes`,
            renderedAt: sql`excluded.rendered_at`,
            expiresAt: sql`excluded.expires_at`,
          },
        })
        .returning({
          key: cacheEntries.key,
          renderedAt: cacheEntries.renderedAt,
          expiresAt: cacheEntries.expiresAt,
        });
      const byKey = new Map(rows.map((r) => [r.key, r]));
      for (const w of written) {
        const r = byKey.get(w.key);
        if (r)
          this.#memory.set(w.key, {
            body: r.body,
            title,
            renderedAt: w.renderedAt,
            expiresAt: w.expiresAt.getTime(),
            bytes: r.bytes,
          });
      }
      for (const r of rows) this.#storedBytes.inc({ format: r.format }, r.bytes);
    } catch (err) {
      this.#storeErrors.inc();
      this.#onError?.(err, "store");
    }
  }

  /**
   * Keeps a whole render (every text format of one answer) for `keepMs`, so a budgeted answer can be
   * read on in parts without loading the page again. Its row lives beside the cache's (same table, same
   * memory tier, same sweeper) under a key no request maps to. Returns undefined when it could not be
   * written (reported to onError) or is larger than CACHE_MAX_ENTRY_BYTES.
   */
  async keep(render: KeptRender, keepMs: number): Promise<{ id: string; expiresAt: Date } | undefined> {
    const id = randomUUID();
    const key = `${KEPT_PREFIX}${id}`;
    try {
      // jsonb holds no NUL nor lone surrogate: each becomes U+FFFD, one UTF-16 unit as before, so every
      // offset a cursor names still points where it did.
      render = cleanStoredJson(render);
      const bytes = Buffer.byteLength(JSON.stringify(render), "utf8");
      if (bytes > this.#maxEntryBytes) return undefined;
      const [row] = await this.#database.db
        .insert(cacheEntries)
        .values({
          key,
          url: render.url,
          format: "render",
          body: render,
          title: render.title ?? null,
          bytes,
          renderedAt: sql`now()`,
          expiresAt: sql`now() + ${Math.floor(keepMs)} * interval '1 millisecond'`,
        })
        .returning({ renderedAt: cacheEntries.renderedAt, expiresAt: cacheEntries.expiresAt });
      if (!row) return undefined;
      this.#memory.set(key, {
        body: render,
        title: render.title ?? null,
        ...row,
        expiresAt: row.expiresAt.getTime(),
        bytes,
      });
      return { id, expiresAt: row.expiresAt };
    } catch (err) {
      this.#storeErrors.inc();
      this.#onError?.(err, "store");
      return undefined;
    }
  }

  /** A render kept by `keep` and not yet expired; undefined when there is none (or it could not be read). */
  async kept(id: string): Promise<KeptRender | undefined> {
    const key = `${KEPT_PREFIX}${id}`;
    const remembered = this.#memory.get(key, this.#now());
    if (remembered) return remembered.body as KeptRender;
    try {
      const [row] = await this.#database.db
        .select({
          body: cacheEntries.body,
          title: cacheEntries.title,
          renderedAt: cacheEntries.renderedAt,
          expiresAt: cacheEntries.expiresAt,
          bytes: cacheEntries.bytes,
        })
        .from(cacheEntries)
        .where(and(eq(cacheEntries.key, key), gt(cacheEntries.expiresAt, sql`now()`)));
      if (!row) return undefined;
      this.#memory.set(key, { ...row, expiresAt: row.expiresAt.getTime() });
      return row.body as KeptRender;
    } catch (err) {
      this.#lookupErrors.inc();
      this.#onError?.(err, "lookup");
      return undefined;
    }
  }

  /** Deletes expired rows, SWEEP_CHUNK per statement until none is left; returns how many. */
  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.#database.sql`
        delete from cache_entries where key in (
          select key from cache_entries where expires_at <= now() limit ${SWEEP_CHUNK}
        )`;
      total += deleted.count;
      this.#evicted.inc(deleted.count);
      if (deleted.count < SWEEP_CHUNK) return total;
    }
  }

  /** Runs `sweep` every `intervalMs` (never two at once; the timer does not keep the process alive). */
  startSweeper(intervalMs: number): () => void {
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      this.sweep()
        .catch((err) => this.#onError?.(err, "sweep"))
        .finally(() => {
          running = false;
        });
    }, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }
}

/** A counter registered in `registry` only; reuses one already there (two caches on one registry). */
function counter<L extends string>(
  registry: Registry | undefined,
  name: string,
  help: string,
  labelNames: L[],
): Counter<L> {
  const existing = registry?.getSingleMetric(name);
  if (existing instanceof Counter) return existing as Counter<L>;
  return new Counter<L>({ name, help, labelNames, registers: registry ? [registry] : [] });
}
