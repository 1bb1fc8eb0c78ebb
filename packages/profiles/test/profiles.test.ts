import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { createAccount } from "@browserfleet/billing";
import { schema } from "@browserfleet/db";
import { eq } from "drizzle-orm";
import { startTestPostgres, type TestPostgres } from "../../../test/helpers/postgres.ts";
import {
  open,
  ProfileLimitReached,
  ProfileStore,
  ProfileTooLarge,
  parseKeyRing,
  seal,
  summarize,
  UnknownProfileKey,
} from "../src/index.ts";

const key = () => randomBytes(32).toString("base64");
const state = (value: string, extra = "") =>
  JSON.stringify({
    cookies: [
      {
        name: "sid",
        value,
        domain: ".shop.example",
        path: "/",
        expires: -1,
        httpOnly: true,
        secure: false,
        sameSite: "Lax",
      },
    ],
    origins: [
      { origin: "https://app.example:8443", localStorage: [{ name: "token", value: value + extra }] },
    ],
  });

describe("profile keys and sealing", () => {
  test("sealed data opens with its key and binding only; a flipped byte or another binding is refused", () => {
    const ring = parseKeyRing(`k1:${key()}`);
    const sealed = seal(ring, "secret state", "profile\nacct_a\nshop");
    assert.ok(!sealed.includes("secret"), "nothing of the plaintext shows");
    assert.equal(open(ring, sealed, "profile\nacct_a\nshop"), "secret state");
    assert.throws(() => open(ring, sealed, "profile\nacct_b\nshop"), /unable to authenticate|auth/i);
    const [id, iv, tag, data] = sealed.split(".") as [string, string, string, string];
    const flipped = Buffer.from(data, "base64url");
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    assert.throws(() =>
      open(ring, [id, iv, tag, flipped.toString("base64url")].join("."), "profile\nacct_a\nshop"),
    );
    assert.notEqual(seal(ring, "x", "b"), seal(ring, "x", "b"), "a fresh nonce each time");
  });

  test("rotation: the first key seals, an older one still opens what it sealed, a dropped one is named", () => {
    const old = key();
    const ring1 = parseKeyRing(`old:${old}`);
    const sealed = seal(ring1, "state", "b");
    const ring2 = parseKeyRing(`new:${key()},old:${old}`);
    assert.equal(open(ring2, sealed, "b"), "state");
    assert.ok(seal(ring2, "state", "b").startsWith("new."));
    assert.throws(() => open(parseKeyRing(`new:${key()}`), sealed, "b"), UnknownProfileKey);
  });

  test("a malformed PROFILE_KEYS is refused naming the entry, never echoing a key", () => {
    const short = Buffer.alloc(16, 7).toString("base64");
    assert.throws(
      () => parseKeyRing(`k1:${short}`),
      (e: Error) => /entry 1 \(k1\): the key must be 32 bytes/.test(e.message) && !e.message.includes(short),
    );
    assert.throws(() => parseKeyRing(key()), /entry 1: write it as <id>:<base64 key>/);
    const k = key();
    assert.throws(() => parseKeyRing(`a:${k},a:${k}`), /the id a is given twice/);
  });

  test("a state's summary: size, cookies and sites without opening it", () => {
    assert.deepEqual(summarize(state("v")), {
      bytes: Buffer.byteLength(state("v")),
      cookies: 1,
      sites: ["app.example:8443", "shop.example"],
    });
    assert.throws(() => summarize("{}"), /not a browser storage state/);
  });
});

describe("profile store (PostgreSQL)", () => {
  let pg: TestPostgres;
  let store: ProfileStore;
  const ring = parseKeyRing(`k1:${key()}`);
  before(async () => {
    pg = await startTestPostgres();
    store = new ProfileStore(pg.database.db, async () => ring);
  });
  after(async () => {
    await pg?.stop();
  });
  const save = (
    accountId: string,
    name: string,
    value: string,
    knownVersion: number | null,
    savedBy = "s1",
  ) =>
    store.save({
      accountId,
      name,
      state: state(value),
      knownVersion,
      savedBy,
      maxBytes: 10_000,
      maxPerAccount: 3,
    });

  test("saved, loaded by its account only, sealed at rest, listed without its contents, deleted", async () => {
    const a = (await createAccount(pg.database.db, { balanceMicros: 0 })).accountId;
    const b = (await createAccount(pg.database.db, { balanceMicros: 0 })).accountId;
    const first = await save(a, "shop", "cookie-one", null);
    assert.equal(first.version, 1);
    assert.equal(first.overwrote, undefined);
    assert.deepEqual(await store.load(a, "shop"), { state: state("cookie-one"), version: 1 });
    assert.equal(await store.load(b, "shop"), undefined, "another account's name finds nothing");
    const [row] = await pg.database.db.select().from(schema.profiles).where(eq(schema.profiles.accountId, a));
    assert.ok(row && !row.sealed.includes("cookie-one"), "the row holds no plaintext");
    // The row copied under another account does not open there.
    await pg.database.db.insert(schema.profiles).values({ ...row, accountId: b });
    await assert.rejects(store.load(b, "shop"));
    const listed = await store.list(a, 10);
    assert.deepEqual(
      listed.map(({ createdAt: _c, updatedAt: _u, ...rest }) => rest),
      [
        {
          name: "shop",
          version: 1,
          bytes: Buffer.byteLength(state("cookie-one")),
          cookies: 1,
          sites: ["app.example:8443", "shop.example"],
        },
      ],
    );
    assert.equal(await store.remove(a, "shop"), true);
    assert.equal(await store.remove(a, "shop"), false);
    assert.equal(await store.load(a, "shop"), undefined);
  });

  test("two savers of one profile: the last wins, and its answer names the save it replaced", async () => {
    const a = (await createAccount(pg.database.db, { balanceMicros: 0 })).accountId;
    await save(a, "mail", "v1", null, "setup");
    // Sessions s1 and s2 both loaded version 1.
    const one = await save(a, "mail", "from-s1", 1, "s1");
    assert.equal(one.version, 2);
    assert.equal(one.overwrote, undefined, "s1 saved over what it loaded");
    const two = await save(a, "mail", "from-s2", 1, "s2");
    assert.equal(two.version, 3);
    assert.equal(two.overwrote?.version, 2);
    assert.equal(two.overwrote?.savedBy, "s1");
    assert.equal((await store.load(a, "mail"))?.state, state("from-s2"), "the last writer's state is kept");
    // Saving at once: each save is whole, versions do not repeat.
    const at = await Promise.all(["p", "q", "r", "s"].map((v) => save(a, "mail", v, 3, v)));
    assert.deepEqual(at.map((s) => s.version).sort(), [4, 5, 6, 7]);
    assert.equal(at.filter((s) => s.overwrote).length, 3, "all but the first were told they overwrote");
  });

  test("limits: a state past the size and a profile past the account's count are refused, nothing written", async () => {
    const a = (await createAccount(pg.database.db, { balanceMicros: 0 })).accountId;
    await assert.rejects(
      store.save({
        accountId: a,
        name: "big",
        state: state("v", "x".repeat(20_000)),
        knownVersion: null,
        savedBy: "s",
        maxBytes: 10_000,
        maxPerAccount: 3,
      }),
      (e: Error) => e instanceof ProfileTooLarge && /more than the 10000 a profile may hold/.test(e.message),
    );
    for (const n of ["a", "b", "c"]) await save(a, n, "v", null);
    await assert.rejects(save(a, "d", "v", null), ProfileLimitReached);
    assert.equal((await save(a, "c", "again", 1)).version, 2, "an existing one is still saved");
    assert.equal((await store.list(a, 10)).length, 3);
    assert.deepEqual(
      (await store.list(a, 1, "a")).map((p) => p.name),
      ["b"],
      "pages by name",
    );
  });

  test("reseal: after a rotation every profile is sealed with the new key and the old key can go", async () => {
    const a = (await createAccount(pg.database.db, { balanceMicros: 0 })).accountId;
    const oldKey = key();
    const before = new ProfileStore(pg.database.db, async () => parseKeyRing(`old:${oldKey}`));
    await before.save({
      accountId: a,
      name: "r",
      state: state("kept"),
      knownVersion: null,
      savedBy: "s",
      maxBytes: 10_000,
      maxPerAccount: 3,
    });
    const newKey = key();
    const rotated = new ProfileStore(pg.database.db, async () => parseKeyRing(`new:${newKey},old:${oldKey}`));
    const done = await rotated.reseal();
    assert.ok(done.resealed >= 1);
    assert.ok(
      done.unopened.every((u) => u.accountId !== a),
      "rows of other keys (earlier tests') are named as unopened, not lost",
    );
    const onlyNew = new ProfileStore(pg.database.db, async () => parseKeyRing(`new:${newKey}`));
    assert.equal((await onlyNew.load(a, "r"))?.state, state("kept"));
  });
});
