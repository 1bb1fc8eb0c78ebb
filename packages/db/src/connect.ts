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
    onnotice: () => {},
    connection: { application_name: opts.name ?? "browserfleet" },
  });
  return {
    db: drizzle(sql, { schema }),
    sql,
    close: () => sql.end({ timeout: 5 }),
  };
}
