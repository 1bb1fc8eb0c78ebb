import { fileURLToPath } from "node:url";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";

export const MIGRATIONS_DIR = fileURLToPath(new URL("../migrations", import.meta.url));

/** An arbitrary constant: every process that migrates takes this advisory lock first. */
const MIGRATION_LOCK = 7_401_992_113;

/**
 * Apply the checked-in migrations. Several api replicas may start at once, so the migration runs
 * under a session advisory lock on its own single connection.
 */
export async function migrateDb(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`;
    await migrate(drizzle(sql), { migrationsFolder: MIGRATIONS_DIR });
    await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
