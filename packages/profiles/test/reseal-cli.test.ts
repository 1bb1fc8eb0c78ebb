import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { createAccount } from "@browserfleet/billing";
import { startTestPostgres, type TestPostgres } from "../../../test/helpers/postgres.ts";
import { ProfileStore, parseKeyRing } from "../src/index.ts";

const ROOT = join(import.meta.dirname, "../../..");
const run = promisify(execFile);

let pg: TestPostgres;
before(async () => {
  pg = await startTestPostgres();
});
after(async () => {
  await pg?.stop();
});

test("npm run admin -- profiles-reseal: after a rotation, every profile opens with the new key alone", async () => {
  const oldKey = randomBytes(32).toString("base64");
  const newKey = randomBytes(32).toString("base64");
  const { accountId } = await createAccount(pg.database.db, { balanceMicros: 0 });
  const state = JSON.stringify({ cookies: [], origins: [{ origin: "https://a.example", localStorage: [] }] });
  await new ProfileStore(pg.database.db, async () => parseKeyRing(`old:${oldKey}`)).save({
    accountId,
    name: "rotated",
    state,
    knownVersion: null,
    savedBy: "test",
    maxBytes: 10_000,
    maxPerAccount: 10,
  });
  const { stdout } = await run(
    process.execPath,
    ["--import", "tsx", join(ROOT, "apps/api/src/admin/cli.ts"), "profiles-reseal"],
    {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: pg.url, PROFILE_KEYS: `new:${newKey},old:${oldKey}` },
      timeout: 60_000,
    },
  );
  assert.match(stdout, /^resealed 1 profile\(s\) with the first key of PROFILE_KEYS$/m);
  const onlyNew = new ProfileStore(pg.database.db, async () => parseKeyRing(`new:${newKey}`));
  assert.equal((await onlyNew.load(accountId, "rotated"))?.state, state);
});
