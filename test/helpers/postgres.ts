import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@browserfleet/bus";
import { connectDb, type Database, migrateDb, startLocalPostgres } from "@browserfleet/db";

export interface TestPostgres {
  url: string;
  database: Database;
  stop(): Promise<void>;
  /** The embedded server itself, to take it away and bring it back on its data (absent for an external one). */
  server?: { stop(): Promise<void>; start(): Promise<void> };
}

/**
 * A real, throwaway PostgreSQL for a test file: `DATABASE_URL` if the environment gives one (each call
 * gets its own fresh schema-less database there), else an embedded server in a temporary folder.
 */
export async function startTestPostgres(opts: { max?: number } = {}): Promise<TestPostgres> {
  const external = process.env.TEST_DATABASE_URL;
  if (external) {
    const admin = connectDb(external, { max: 1 });
    const name = `fleet_test_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
    await admin.sql.unsafe(`create database ${name}`);
    const url = new URL(external);
    url.pathname = `/${name}`;
    await migrateDb(url.href);
    const database = connectDb(url.href, opts);
    return {
      url: url.href,
      database,
      async stop() {
        await database.close();
        await admin.sql.unsafe(`drop database if exists ${name} with (force)`);
        await admin.close();
      },
    };
  }
  const dir = await mkdtemp(join(tmpdir(), "fleet-pg-"));
  const port = await freePort();
  const start = () => startLocalPostgres({ dataDir: join(dir, "pg"), port, ephemeral: true });
  let pg = await start();
  await migrateDb(pg.url);
  const database = connectDb(pg.url, opts);
  return {
    url: pg.url,
    database,
    async stop() {
      await database.close();
      await pg.stop();
      await rm(dir, { recursive: true, force: true });
    },
    server: {
      stop: () => pg.stop(),
      async start() {
        pg = await start();
      },
    },
  };
}
