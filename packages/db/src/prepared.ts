import { fillPlaceholders, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { Db } from "./connect.ts";

/**
 * A statement written once with drizzle's sql`` (values as `sql.placeholder(name)`) and run as a named
 * prepared statement. `db.execute` sends every statement unnamed: Postgres parses, analyzes and plans it
 * on every call, and postgres.js first asks the server for its parameter types, one more round trip.
 * Prepared, a call is one round trip that runs a plan the connection already holds (an act's hold
 * settlement: 1.3 against 0.27 ms of Postgres CPU).
 */
export function preparedSql<Row, Values extends Record<string, unknown>>(
  query: SQL,
): (db: Db, values: Values) => Promise<Row[]> {
  const { sql: text, params } = new PgDialect().sqlToQuery(query);
  return async (db, values) =>
    (await db.$client.unsafe(text, fillPlaceholders(params, values) as never[], {
      prepare: true,
    })) as unknown as Row[];
}
