/**
 * Where a session's recording is noted (PostgreSQL, real): each part once however often a worker sends it,
 * nothing past the deployment's limit (and the session says truncated), summaries per session, and parts
 * forgotten once the recording's retention passed. A recorded session's idle tail is billed at the
 * recorded minute's price.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createAccount, placeHold } from "@browserfleet/billing";
import { startTestPostgres, type TestPostgres } from "../../../test/helpers/postgres.ts";
import { notePart, partsOf, recordingSummaries, sweepRecordings } from "../src/recordings/store.ts";
import { endSession, findSession, insertSession } from "../src/sessions/store.ts";

let pg: TestPostgres;
before(async () => {
  pg = await startTestPostgres();
});
after(async () => {
  await pg?.stop();
});

let n = 0;
async function recordedSession(opts: { ageSeconds?: number; expiresInMs?: number; tail?: number } = {}) {
  const db = pg.database.db;
  const { accountId } = await createAccount(db, { balanceMicros: 1_000_000 });
  const hold = opts.tail
    ? await placeHold(db, { accountId, micros: opts.tail, route: "session", ttlMs: 3_600_000 })
    : undefined;
  const id = `ses_rectest${String(++n).padStart(9, "0")}`;
  await insertSession(db, {
    id,
    owner: { accountId },
    workerId: "w",
    url: null,
    openedAt: new Date(Date.now() - (opts.ageSeconds ?? 5) * 1000),
    expiresAt: new Date(Date.now() + 300_000),
    chargedMicros: 6_000,
    ...(hold?.ok ? { tailHoldId: hold.holdId } : {}),
    recordingExpiresAt: new Date(Date.now() + (opts.expiresInMs ?? 3_600_000)),
  });
  return id;
}

const part = (sessionId: string, seq: number, bytes: number, events = 10) => ({
  sessionId,
  seq,
  key: `2026120100/${sessionId}-${seq}.rrweb`,
  bytes,
  events,
  fromAt: new Date(1_000_000 + seq * 1000),
  toAt: new Date(1_000_500 + seq * 1000),
  final: false,
});

describe("recording parts", () => {
  it("are noted once each, in order, however often a part is sent", async () => {
    const id = await recordedSession();
    const db = pg.database.db;
    assert.equal(await notePart(db, part(id, 1, 100), 10_000), "noted");
    assert.equal(await notePart(db, part(id, 0, 200), 10_000), "noted");
    assert.equal(await notePart(db, part(id, 1, 100), 10_000), "noted", "sent again after a lost reply");
    assert.deepEqual(
      (await partsOf(db, id)).map((p) => p.seq),
      [0, 1],
    );
    const sum = (await recordingSummaries(db, [id])).get(id);
    assert.equal(sum?.bytes, 300);
    assert.equal(sum?.events, 20);
    assert.equal((sum?.to?.getTime() ?? 0) - (sum?.from?.getTime() ?? 0), 1_500);
  });

  it("stop at the limit: nothing past it is noted, and the session says its recording was cut", async () => {
    const id = await recordedSession();
    const db = pg.database.db;
    assert.equal(await notePart(db, part(id, 0, 600), 1_000), "noted");
    // Two replicas take two parts at once: only what fits is kept.
    const both = await Promise.all([
      notePart(db, part(id, 1, 300), 1_000),
      notePart(db, part(id, 2, 300), 1_000),
    ]);
    assert.deepEqual(both.sort(), ["full", "noted"]);
    assert.equal((await recordingSummaries(db, [id])).get(id)?.bytes, 900);
    assert.equal((await findSession(db, id))?.recordingTruncated, true);
  });

  it("are forgotten once the recording's retention passed, and only then", async () => {
    const db = pg.database.db;
    const kept = await recordedSession();
    const gone = await recordedSession({ expiresInMs: -1000 });
    await notePart(db, part(kept, 0, 10), 1_000);
    await notePart(db, part(gone, 0, 10), 1_000);
    assert.ok((await sweepRecordings(db, new Date())) >= 1);
    assert.equal((await partsOf(db, gone)).length, 0);
    assert.equal((await partsOf(db, kept)).length, 1);
    assert.ok((await findSession(db, gone))?.recordingExpiresAt, "the session still says when it went");
  });
});

it("a recorded session's idle tail is billed at $0.005 a minute: the session's and the recording's", async () => {
  const id = await recordedSession({ ageSeconds: 150, tail: 35_000 });
  const done = await endSession(pg.database.db, id, "closed");
  assert.equal(done?.row.billedMinutes, 3);
  assert.equal(done?.row.chargedMicros, 6_000 + 2 * 5_000);
});
