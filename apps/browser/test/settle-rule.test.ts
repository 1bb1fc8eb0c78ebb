import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { QUIET_MS, settleWait } from "../src/page/settle.ts";

const state = (over: Partial<Parameters<typeof settleWait>[0]> = {}) => ({
  now: 1_000,
  readyState: "complete" as DocumentReadyState,
  lastActivity: -1,
  pendingRequests: 0,
  pendingStreams: 0,
  nextTimer: -1,
  refreshAt: -1,
  height: 800,
  ...over,
});
const idle = { count: 0, lastEnd: 0, now: 50_000 };

describe("when a page counts as settled (settleWait)", () => {
  test("a loaded page nothing has touched since DOMContentLoaded is settled at once", () => {
    assert.equal(settleWait(state(), idle), 0);
    assert.equal(settleWait(state({ readyState: "interactive" }), idle), 0, "load is not needed");
  });

  test("a document still being parsed is not", () => {
    assert.ok(settleWait(state({ readyState: "loading" }), idle) > 0);
  });

  test("young requests, fetches and streams awaiting their first message hold it", () => {
    assert.ok(settleWait(state(), { ...idle, count: 1 }) > 0);
    assert.ok(settleWait(state({ pendingRequests: 1 }), idle) > 0);
    assert.ok(settleWait(state({ pendingStreams: 1 }), idle) > 0);
  });

  test("a short timer holds it until it is due", () => {
    assert.equal(settleWait(state({ nextTimer: 1_300 }), idle), 301);
  });

  test("after activity, it waits for the quiet window to pass", () => {
    assert.equal(settleWait(state({ lastActivity: 950 }), idle), QUIET_MS - 50);
    assert.equal(settleWait(state({ lastActivity: 1_000 - QUIET_MS }), idle), 0);
    assert.equal(settleWait(state(), { ...idle, lastEnd: idle.now - 20 }), QUIET_MS - 20);
    assert.equal(settleWait(state({ lastActivity: 950 }), idle, 20), 0, "a shorter window for acts");
  });

  test("a meta refresh due soon holds it; one due much later does not", () => {
    assert.ok(settleWait(state({ refreshAt: 2_000 }), idle) >= 1_000);
    assert.equal(settleWait(state({ refreshAt: 60_000 }), idle), 0);
  });
});
