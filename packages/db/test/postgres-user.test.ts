/**
 * As root, the embedded PostgreSQL runs as the `postgres` user. Where that user cannot enter the data
 * folder (a clone in root's 0700 home), the cluster lives under the embedded home instead, linked from
 * the data folder, and keeps its data across starts; a cluster already in such a folder is refused in
 * one line naming the folder, the user and the command that fixes it.
 */
import assert from "node:assert/strict";
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  connectDb,
  PostgresSetupError,
  postgresOwner,
  reachableBinaries,
  startLocalPostgres,
} from "../src/index.ts";

const root = process.getuid?.() === 0;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

describe("the embedded PostgreSQL as root, out of the postgres user's reach", {
  skip: root ? false : "only as root does PostgreSQL run as another user",
}, () => {
  let priv: string;
  let home: string;
  before(() => {
    priv = mkdtempSync(join(tmpdir(), "fleet-pg-private-")); // 0700: the postgres user cannot enter it
    home = mkdtempSync(join(tmpdir(), "fleet-pg-home-"));
    chmodSync(home, 0o755);
  });
  after(() => {
    rmSync(priv, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  it("keeps the cluster under the embedded home, linked from the data folder, and finds it again", async () => {
    const dataDir = join(priv, "data", "postgres");
    const port = await freePort();
    const first = await startLocalPostgres({ dataDir, port, embeddedHome: home, ephemeral: true });
    assert.ok(first.clusterDir.startsWith(join(home, "clusters")), first.clusterDir);
    assert.ok(lstatSync(dataDir).isSymbolicLink());
    const db = connectDb(first.url, { max: 1 });
    await db.sql`create table kept (note text)`;
    await db.sql`insert into kept values ('still here')`;
    await db.close();
    await first.stop();

    const second = await startLocalPostgres({ dataDir, port, embeddedHome: home, ephemeral: true });
    assert.equal(second.clusterDir, first.clusterDir);
    const again = connectDb(second.url, { max: 1 });
    assert.deepEqual([...(await again.sql`select note from kept`)], [{ note: "still here" }]);
    await again.close();
    await second.stop();
  });

  it("refuses a cluster already in a folder the postgres user cannot enter, naming the fix", async () => {
    const open = mkdtempSync(join(tmpdir(), "fleet-pg-open-"));
    chmodSync(open, 0o755);
    const dataDir = join(open, "data", "postgres");
    try {
      const port = await freePort();
      const pg = await startLocalPostgres({ dataDir, port, embeddedHome: home, ephemeral: true });
      assert.equal(pg.clusterDir, dataDir, "reachable: the cluster stays where DATA_DIR says");
      await pg.stop();
      chmodSync(open, 0o700);
      await assert.rejects(
        startLocalPostgres({ dataDir, port, embeddedHome: home, ephemeral: true }),
        (err: Error) =>
          err instanceof PostgresSetupError &&
          err.message.includes(`user postgres`) &&
          err.message.includes(`cannot enter ${open}`) &&
          err.message.includes(`chmod o+x ${open}`),
      );
    } finally {
      rmSync(open, { recursive: true, force: true });
    }
  });

  it("copies binaries the postgres user cannot reach to the embedded home, once", async () => {
    const owner = postgresOwner()!;
    const native = join(priv, "native");
    mkdirSync(join(native, "bin"), { recursive: true });
    cpSync("/bin/true", join(native, "bin", "postgres"));
    const copied = await reachableBinaries(owner, native, "9.9.9-test", home);
    assert.equal(copied, join(home, "postgres-9.9.9-test"));
    assert.ok(existsSync(join(copied, "bin", "postgres")));
    assert.equal(await reachableBinaries(owner, native, "9.9.9-test", home), copied);
  });
});
