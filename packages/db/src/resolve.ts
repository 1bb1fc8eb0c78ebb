import { resolve } from "node:path";
import { startLocalPostgres } from "./local-postgres.ts";

export interface DatabaseLocation {
  url: string;
  /** Where it came from, for the start-up log. */
  describe: string;
  stop(): Promise<void>;
  /** An embedded server that would not stop: asked for an immediate shutdown. */
  kill?(): void;
}

/**
 * DATABASE_URL when given; otherwise the embedded PostgreSQL in DATA_DIR/postgres, started if it is not
 * running yet (and stopped by `stop` only if this process started it).
 */
export async function locateDatabase(cfg: {
  DATABASE_URL?: string;
  DATA_DIR: string;
  POSTGRES_PORT: number;
  EMBEDDED_POSTGRES_DIR?: string;
}): Promise<DatabaseLocation> {
  if (cfg.DATABASE_URL) {
    const u = new URL(cfg.DATABASE_URL);
    return { url: cfg.DATABASE_URL, describe: `PostgreSQL at ${u.host}${u.pathname}`, stop: async () => {} };
  }
  const dataDir = resolve(cfg.DATA_DIR, "postgres");
  const pg = await startLocalPostgres({
    dataDir,
    port: cfg.POSTGRES_PORT,
    embeddedHome: cfg.EMBEDDED_POSTGRES_DIR,
  });
  const where = pg.clusterDir === dataDir ? dataDir : `${pg.clusterDir}, linked from ${dataDir}`;
  return {
    url: pg.url,
    describe: `${pg.owned ? "embedded" : "running embedded"} PostgreSQL on ${new URL(pg.url).host} (data in ${where})`,
    stop: pg.stop,
    kill: pg.kill,
  };
}
