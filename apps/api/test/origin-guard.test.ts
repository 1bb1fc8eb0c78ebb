import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { isLoopbackBind, originVerdict } from "../src/mcp/origin-guard.ts";

const open = { loopbackOnly: false, allowedOrigins: [] };
const local = { loopbackOnly: true, allowedOrigins: [] };

describe("MCP origin guard", () => {
  test("agents without an Origin pass; a browser page from another site does not", () => {
    assert.equal(originVerdict({ host: "api.fleet.example" }, open).ok, true);
    assert.equal(
      originVerdict({ host: "api.fleet.example", origin: "https://api.fleet.example" }, open).ok,
      true,
    );
    const foreign = originVerdict({ host: "api.fleet.example", origin: "https://evil.example" }, open);
    assert.equal(foreign.ok, false);
    assert.match((foreign as { reason: string }).reason, /MCP_ALLOWED_ORIGINS/);
  });

  test("allowed origins and the wildcard", () => {
    const policy = { loopbackOnly: false, allowedOrigins: ["https://app.example"] };
    assert.equal(
      originVerdict({ host: "api.fleet.example", origin: "https://app.example" }, policy).ok,
      true,
    );
    assert.equal(
      originVerdict({ host: "api.fleet.example", origin: "https://other.example" }, policy).ok,
      false,
    );
    const any = { loopbackOnly: false, allowedOrigins: ["*"] };
    assert.equal(originVerdict({ host: "api.fleet.example", origin: "https://other.example" }, any).ok, true);
  });

  test("on loopback, a foreign Host is DNS rebinding even when Origin matches it", () => {
    const rebinding = originVerdict({ host: "evil.example.com", origin: "http://evil.example.com" }, local);
    assert.equal(rebinding.ok, false);
    for (const host of ["127.0.0.1:8080", "localhost:3000", "[::1]:9", "localhost"])
      assert.equal(originVerdict({ host, origin: `http://${host}` }, local).ok, true, host);
  });

  test("which bind addresses count as loopback", () => {
    assert.equal(isLoopbackBind("127.0.0.1"), true);
    assert.equal(isLoopbackBind("localhost"), true);
    assert.equal(isLoopbackBind("::1"), true);
    assert.equal(isLoopbackBind("0.0.0.0"), false);
    assert.equal(isLoopbackBind("10.0.0.5"), false);
  });
});
