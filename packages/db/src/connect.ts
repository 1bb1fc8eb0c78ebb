import { drizzle, type PostgresJsDatabase } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as schema from "./schema.ts";

export type Db = PostgresJsDatabase<typeof schema> & { $client: postgres.Sql };

export interface Database {
  db: Db;
  sql: postgres.Sql;
  close(): Promise<void>;
}

/** A pooled connection to the server at `url`, with the drizzle schema attached. */
export function connectDb(url: string, opts: { max?: number; name?: string } = {}): Database {
  const sql = postgres(url, {
    max: opts.max ?? 10,
    backoff: reconnectDelaySeconds,
    onnotice: () => {},
    connection: { application_name: opts.name ?? "browserfleet" },
  });
  return {
    db: drizzle(sql, { schema }),
    sql,
    close: () => sql.end({ timeout: 5 }),
  };
}

/**
 * Seconds a pooled connection waits before it reconnects after `retries` failed attempts in a row (shared by
 * the pool). postgres.js's own grows as 3^n/100 up to 20 s, so a two-second restart under load left
 * connections waiting 10-20 s after the server was back, and every call waiting for one with them. Doubling
 * from 50 ms up to 1 s, with jitter, finds the server within a second of its return; a pool tries at most
 * `max` connects a second while it is down.
 */
export function reconnectDelaySeconds(retries: number): number {
  return (0.5 + Math.random() / 2) * Math.min(0.05 * 2 ** retries, 1);
}
