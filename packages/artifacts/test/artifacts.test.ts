import assert from "node:assert/strict";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  fileStore,
  hourAfter,
  hourName,
  hourStart,
  newSignedName,
  signedNameFor,
  verifySignedName,
} from "../src/index.ts";

const SECRET = "s".repeat(40);
const HOUR = 3600_000;

describe("signed file names", () => {
  it("a name verifies as given and not once its key, expiry or signature is changed, or it expired", () => {
    const now = Date.UTC(2026, 10, 28, 12, 30);
    const n = newSignedName(SECRET, "png", now + 60_000);
    const ok = { key: n.key, expires: String(n.expires), signature: n.signature };
    assert.equal(verifySignedName(SECRET, ok, now), true);
    const other = (c: string) => (c === "A" ? "B" : "A");
    const id = n.key.split("/")[1]!;
    const changedKey = n.key.replace(id, other(id[0]!) + id.slice(1));
    assert.equal(verifySignedName(SECRET, { ...ok, key: changedKey }, now), false, "another file");
    assert.equal(verifySignedName(SECRET, { ...ok, expires: String(n.expires + 1) }, now), false);
    const sig = n.signature;
    const changedSig = sig.slice(0, -2) + other(sig.at(-2)!) + sig.at(-1);
    assert.equal(verifySignedName(SECRET, { ...ok, signature: changedSig }, now), false, "another signature");
    assert.equal(verifySignedName("t".repeat(40), ok, now), false, "another deployment's secret");
    assert.equal(verifySignedName(SECRET, ok, now + 61_000), false, "expired");
    assert.equal(verifySignedName(SECRET, { ...ok, expires: ["1", "2"] }, now), false);
    assert.match(n.key, /^2026112813\/[A-Za-z0-9_-]{22}\.png$/, "filed under the hour after its expiry");
  });

  it("a name made from a seed is the same every time, and another seed's is another", () => {
    const at = Date.UTC(2026, 10, 29, 10);
    const a = signedNameFor(SECRET, "job_1\nhttps://a.test/\nscreenshot", "png", at);
    assert.deepEqual(signedNameFor(SECRET, "job_1\nhttps://a.test/\nscreenshot", "png", at), a);
    assert.notEqual(signedNameFor(SECRET, "job_1\nhttps://a.test/\npdf", "png", at).key, a.key);
    assert.notEqual(
      signedNameFor("t".repeat(40), "job_1\nhttps://a.test/\nscreenshot", "png", at).key,
      a.key,
    );
    assert.match(a.key, /^2026112911\/[A-Za-z0-9_-]{22}\.png$/);
    assert.equal(
      verifySignedName(SECRET, { key: a.key, expires: String(a.expires), signature: a.signature }, at - 1000),
      true,
    );
  });

  it("hour names round-trip", () => {
    const t = Date.UTC(2026, 0, 2, 3, 45);
    assert.equal(hourName(t), "2026010203");
    assert.equal(hourStart("2026010203"), Date.UTC(2026, 0, 2, 3));
    assert.equal(hourAfter(t), "2026010204");
    assert.ok(Number.isNaN(hourStart("tomorrow")));
  });
});

describe("the files store", () => {
  it("keeps a file with its type, and a sweep deletes the hours that have passed and only those", async () => {
    const dir = await mkdtemp(join(tmpdir(), "artifacts-"));
    try {
      const store = fileStore(dir);
      const now = Date.now();
      const past = newSignedName(SECRET, "pdf", now - 2 * HOUR);
      const live = newSignedName(SECRET, "png", now + HOUR);
      await store.put(past.key, Buffer.from("%PDF-1.7"), "application/pdf");
      await store.put(live.key, Buffer.from("\x89PNG", "latin1"), "image/png");
      assert.equal(await store.has(live.key), true);
      assert.equal(await store.has(live.key.replace(/\.png$/, ".pdf")), false);
      const got = await store.get(live.key);
      assert.equal(got?.contentType, "image/png");
      assert.equal(got?.body.toString("latin1"), "\x89PNG");
      assert.equal(
        await store
          .get(live.key.replace(/\/(.)/, (_, c: string) => `/${c === "Q" ? "R" : "Q"}`))
          .then((f) => f?.body.length),
        undefined,
      );
      assert.equal(await store.sweep(new Date(now)), 1);
      assert.equal(await store.get(past.key), undefined);
      assert.ok(await store.get(live.key));
      assert.deepEqual(await readdir(dir), [live.key.split("/")[0]]);
      await assert.rejects(store.put("../escape.png", Buffer.from("x"), "image/png"), /not an artifact key/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
