/**
 * A replica killed with calls charged from its balance lease but not yet written to the ledger: the next
 * replica to start on the same folder charges exactly those calls, once, and closes the dead lease.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startTestPostgres, type TestPostgres } from "../../../test/helpers/postgres.ts";
import { createAccount, getAccount, reapExpiredHolds, replayLeaseJournals } from "../src/index.ts";

let pg: TestPostgres;
let dir: string;
before(async () => {
  pg = await startTestPostgres();
  dir = await mkdtemp(join(tmpdir(), "lease-journal-"));
});
after(async () => {
  await pg?.stop();
  await rm(dir, { recursive: true, force: true });
});

const BALANCE = 1_000_000;
const CHILD = fileURLToPath(new URL("./fixtures/charge-then-die.ts", import.meta.url));

/** Run the dying replica; resolves once it was killed after doing `steps`. */
async function chargeThenDie(journal: string, accountId: string, ...steps: string[]) {
  const child = spawn(process.execPath, ["--import", "tsx", CHILD, pg.url, journal, accountId, ...steps], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d) => {
    out += d;
  });
  child.stderr.on("data", (d) => {
    out += d;
  });
  const signal = await new Promise((r) => child.once("exit", (_code, sig) => r(sig)));
  assert.equal(signal, "SIGKILL", out);
  assert.match(out, /charged/);
}

async function ledgerOf(accountId: string) {
  const [sum] = await pg.database.sql`
    select coalesce(sum(amount_micros), 0)::bigint as amount, coalesce(sum(held_micros), 0)::bigint as held,
      count(*) filter (where charge_id is not null)::int as charges
    from ledger_entries where account_id = ${accountId}`;
  const open = await pg.database
    .sql`select id from holds where account_id = ${accountId} and status = 'open'`;
  return { amount: Number(sum?.amount), held: Number(sum?.held), charges: sum?.charges, open: open.length };
}

test("calls charged but not written when the replica was killed are charged once by the next replica, and the dead lease is closed", async () => {
  const journal = join(dir, "a");
  const { accountId } = await createAccount(pg.database.db, { balanceMicros: BALANCE });
  // 5 written before the kill, 7 only in the journal; one of those refunded before it was written.
  await chargeThenDie(journal, accountId, "charge:5", "flush", "charge:7", "refund-last");
  const before = await ledgerOf(accountId);
  assert.equal(before.open, 1, "the dead replica's lease is still held");
  assert.equal(before.charges, 5);

  const charged = await replayLeaseJournals(pg.database.db, journal);
  assert.equal(charged.get(accountId), 6_000, "the 6 calls the ledger lacked");
  const after = await ledgerOf(accountId);
  assert.equal(after.open, 0, "the lease is closed at once, not at its TTL");
  assert.equal(after.charges, 11);
  assert.equal((await getAccount(pg.database.db, accountId))?.balanceMicros, BALANCE - 11_000);
  assert.equal(after.amount, BALANCE - 11_000, "the ledger sums to the balance");
  assert.equal(after.held, 0, "nothing is held");
  assert.deepEqual(await readdir(journal), [], "the journal is gone once replayed");

  // Replayed again (a second replica started on the same folder): nothing more.
  assert.equal((await replayLeaseJournals(pg.database.db, journal)).size, 0);
});

test("when the reaper closed the dead lease first, its unwritten calls are charged from the balance, still once", async () => {
  const journal = join(dir, "b");
  const { accountId } = await createAccount(pg.database.db, { balanceMicros: BALANCE });
  await chargeThenDie(journal, accountId, "charge:4", "flush", "charge:3");
  // The lease's TTL passes before any replica starts again: the reaper gives its whole rest back.
  await reapExpiredHolds(pg.database.db, new Date(Date.now() + 24 * 3_600_000));
  assert.equal((await getAccount(pg.database.db, accountId))?.balanceMicros, BALANCE - 4_000);

  const charged = await replayLeaseJournals(pg.database.db, journal);
  assert.equal(charged.get(accountId), 3_000);
  const after = await ledgerOf(accountId);
  assert.equal((await getAccount(pg.database.db, accountId))?.balanceMicros, BALANCE - 7_000);
  assert.equal(after.amount, BALANCE - 7_000);
  assert.equal(after.held, 0);
  assert.equal(after.charges, 7);
  assert.equal((await replayLeaseJournals(pg.database.db, journal)).size, 0);
});

test("a journal whose replica is alive is left alone", async () => {
  const journal = join(dir, "c");
  const { LeaseJournal } = await import("../src/index.ts");
  const live = new LeaseJournal(journal);
  live.leaseTaken("hold_x", "acct_x");
  assert.equal((await replayLeaseJournals(pg.database.db, journal)).size, 0);
  assert.equal((await readdir(journal)).length, 1);
  live.close();
});
