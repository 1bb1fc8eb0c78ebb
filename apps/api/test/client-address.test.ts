import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { clientAddress } from "../src/allowance/index.ts";

function req(remoteAddress: string | undefined, xff?: string | string[]) {
  return { headers: xff === undefined ? {} : { "x-forwarded-for": xff }, socket: { remoteAddress } };
}

describe("clientAddress", () => {
  it("with 0 trusted hops uses the socket address and ignores X-Forwarded-For", () => {
    assert.equal(clientAddress(req("10.0.0.7", "6.6.6.6"), 0), "10.0.0.7");
  });

  it("normalizes IPv4-mapped IPv6 and IPv6 spelling", () => {
    assert.equal(clientAddress(req("::ffff:1.2.3.4"), 0), "1.2.3.4");
    assert.equal(clientAddress(req("2001:DB8:0:0:0:0:0:1"), 0), "2001:db8::1");
    assert.equal(clientAddress(req("10.0.0.1", "::FFFF:5.6.7.8"), 1), "5.6.7.8");
  });

  it("with N hops takes the Nth entry from the right", () => {
    const chain = "9.9.9.9, 1.1.1.1, 2.2.2.2";
    assert.equal(clientAddress(req("10.0.0.1", chain), 1), "2.2.2.2");
    assert.equal(clientAddress(req("10.0.0.1", chain), 2), "1.1.1.1");
    assert.equal(clientAddress(req("10.0.0.1", chain), 3), "9.9.9.9");
  });

  it("a spoofed left-most entry does not win", () => {
    assert.equal(clientAddress(req("10.0.0.1", "1.2.3.4, 203.0.113.5"), 1), "203.0.113.5");
  });

  it("falls back to the socket address when the header is short, missing or not an address", () => {
    assert.equal(clientAddress(req("::ffff:10.0.0.1", "2.2.2.2"), 2), "10.0.0.1");
    assert.equal(clientAddress(req("10.0.0.1"), 1), "10.0.0.1");
    assert.equal(clientAddress(req("10.0.0.1", "evil"), 1), "10.0.0.1");
    assert.equal(clientAddress(req("10.0.0.1", " , "), 1), "10.0.0.1");
  });

  it("reads repeated headers and entries with ports or brackets", () => {
    assert.equal(clientAddress(req("10.0.0.1", ["3.3.3.3", "4.4.4.4"]), 1), "4.4.4.4");
    assert.equal(clientAddress(req("10.0.0.1", "4.4.4.4:5555"), 1), "4.4.4.4");
    assert.equal(clientAddress(req("10.0.0.1", "[2001:db8::5]:443"), 1), "2001:db8::5");
  });

  it("a destroyed socket gives a stable placeholder", () => {
    assert.equal(clientAddress(req(undefined), 0), "unknown");
  });
});
