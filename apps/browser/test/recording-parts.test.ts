/**
 * The pure part of a session's recording: one stream of the active tab's events, resumed from a full
 * snapshot after a switch of tabs or a gap, and parts cut to fit the bus that join back into the same bytes.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { gunzipSync, gzipSync } from "node:zlib";
import { ActiveTabStream, EventBatch, eventHead, RRWEB, slices } from "../src/session/recording-parts.ts";

const INCREMENTAL = 3;

test("only the active tab's events are kept, each tab from its own full snapshot on", () => {
  const s = new ActiveTabStream();
  assert.equal(s.admit("t1", "t1", RRWEB.meta), "keep");
  assert.equal(s.admit("t1", "t1", RRWEB.fullSnapshot), "keep");
  assert.equal(s.admit("t1", "t1", INCREMENTAL), "keep");
  // A background tab's changes never enter the stream.
  assert.equal(s.admit("t2", "t1", INCREMENTAL), "drop");
  assert.equal(s.admit(undefined, "t1", INCREMENTAL), "drop");
  // The agent switched to t2: its changes mean nothing without its page, which is asked for once.
  assert.equal(s.admit("t2", "t2", INCREMENTAL), "snapshot");
  assert.equal(s.admit("t2", "t2", INCREMENTAL), "drop");
  assert.equal(s.admit("t1", "t2", INCREMENTAL), "drop");
  assert.equal(s.admit("t2", "t2", RRWEB.meta), "keep");
  assert.equal(s.admit("t2", "t2", INCREMENTAL), "keep");
});

test("a snapshot a tab made in the background, handed over after the switch, is asked for again", () => {
  const s = new ActiveTabStream();
  s.admit("t1", "t1", RRWEB.meta, 100, 0);
  // t2 became active at 500; its batch still holds the snapshot of its load at 300.
  assert.equal(s.admit("t2", "t2", RRWEB.meta, 300, 500), "snapshot");
  assert.equal(s.admit("t2", "t2", RRWEB.fullSnapshot, 300, 500), "drop");
  assert.equal(s.admit("t2", "t2", RRWEB.meta, 600, 500), "keep");
});

test("a tab switch without events asks once; a gap waits for a new snapshot", () => {
  const s = new ActiveTabStream();
  s.admit("t1", "t1", RRWEB.meta);
  assert.equal(s.needsSnapshot("t1"), false);
  assert.equal(s.needsSnapshot("t3"), true);
  assert.equal(s.needsSnapshot("t3"), false, "asked already");
  s.gap();
  assert.equal(s.admit("t1", "t1", INCREMENTAL), "snapshot");
  assert.equal(s.admit("t1", "t1", RRWEB.meta), "keep");
});

test("a batch counts its bytes and its time span, and empties when taken", () => {
  const b = new EventBatch();
  b.add('{"type":3}', 200);
  b.add('{"type":3,"x":1}', 100);
  assert.equal(b.size, 2);
  assert.equal(b.bytes, 11 + 17);
  const taken = b.take();
  assert.deepEqual([taken.from, taken.to, taken.lines.length], [200, 200, 2]);
  assert.equal(b.size, 0);
  assert.equal(b.bytes, 0);
});

test("a part too large for the bus is cut into pieces that join back into the same gzip member", () => {
  const text = Array.from({ length: 5000 }, (_, i) =>
    JSON.stringify({ type: 3, data: { i, r: Math.random() } }),
  ).join("\n");
  const body = new Uint8Array(gzipSync(text));
  const pieces = slices(body, 10_000);
  assert.ok(pieces.length > 3);
  assert.ok(pieces.every((p) => p.byteLength <= 10_000));
  assert.equal(gunzipSync(Buffer.concat(pieces)).toString(), text);
  assert.deepEqual(slices(body, body.byteLength), [body]);
});

test("an event's type and time are read from its ends, as rrweb writes it", () => {
  const e = JSON.stringify({ type: 2, data: { node: { timestamp: 5 } }, timestamp: 1_796_000_000_123 });
  assert.deepEqual(eventHead(e), { type: 2, timestamp: 1_796_000_000_123 });
  assert.equal(eventHead('{"data":1}'), undefined);
});
