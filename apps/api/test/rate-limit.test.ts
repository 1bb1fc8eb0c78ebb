import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import express from "express";
import { errorHandler } from "../src/errors.ts";
import { rateLimits } from "../src/rate-limit.ts";

let server: ReturnType<express.Express["listen"]>;
let base: string;

before(async () => {
  const { priced, read } = rateLimits({
    perMinute: 3,
    keylessPerMinute: 2,
    readPerMinute: 4,
    trustedHops: 1,
  });
  const app = express();
  // a stand-in for the auth middleware: `x-test-key: k1` authenticates as key k1
  app.use((req, _res, next) => {
    const key = req.header("x-test-key");
    if (key) req.auth = { keyId: key, accountId: `acct-${key}` };
    next();
  });
  app.post("/priced", priced, (_req, res) => {
    res.json({ ok: true });
  });
  app.get("/read", read, (_req, res) => {
    res.json({ ok: true });
  });
  app.use(errorHandler);
  await new Promise<void>((resolve) => {
    server = app.listen(0, "127.0.0.1", () => resolve());
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server?.close();
});

const call = (method: "GET" | "POST", path: string, headers: Record<string, string>) =>
  fetch(`${base}${path}`, { method, headers });

describe("rate limits", () => {
  it("the (N+1)th keyed call in a minute is 429 with Retry-After, RateLimit headers and our error body", async () => {
    const h = { "x-test-key": "k1" };
    for (let i = 0; i < 3; i++) {
      const ok = await call("POST", "/priced", h);
      assert.equal(ok.status, 200);
      assert.match(ok.headers.get("ratelimit") ?? "", new RegExp(`^"priced-key"; r=${2 - i}; t=\\d+$`));
      assert.match(ok.headers.get("ratelimit-policy") ?? "", /^"priced-key"; q=3; w=60; pk=:/);
    }
    const limited = await call("POST", "/priced", h);
    assert.equal(limited.status, 429);
    const retryAfter = Number(limited.headers.get("retry-after"));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.match(limited.headers.get("ratelimit") ?? "", /^"priced-key"; r=0; t=\d+$/);
    const body = (await limited.json()) as { success: boolean; error: { code: string; message: string } };
    assert.equal(body.success, false);
    assert.equal(body.error.code, "rate_limited");
    assert.match(body.error.message, new RegExp(`3 a minute per API key; retry in ${retryAfter} s`));
  });

  it("separate keys and separate keyless clients have separate budgets", async () => {
    for (let i = 0; i < 3; i++)
      assert.equal((await call("POST", "/priced", { "x-test-key": "k2" })).status, 200);
    assert.equal((await call("POST", "/priced", { "x-test-key": "k2" })).status, 429);
    assert.equal((await call("POST", "/priced", { "x-test-key": "k3" })).status, 200);

    // keyless: keyed by the client address from X-Forwarded-For (1 trusted hop), with the keyless limit
    const a = { "x-forwarded-for": "198.51.100.1" };
    assert.equal((await call("POST", "/priced", a)).status, 200);
    const second = await call("POST", "/priced", a);
    assert.equal(second.status, 200);
    assert.match(second.headers.get("ratelimit") ?? "", /^"priced-keyless"; r=0;/);
    const third = await call("POST", "/priced", a);
    assert.equal(third.status, 429);
    assert.match(((await third.json()) as { error: { message: string } }).error.message, /without a key/);
    // a spoofed left-most entry does not make a new client
    assert.equal((await call("POST", "/priced", { "x-forwarded-for": "1.1.1.1, 198.51.100.1" })).status, 429);
    assert.equal((await call("POST", "/priced", { "x-forwarded-for": "198.51.100.2" })).status, 200);
  });

  it("the read budget is separate from the priced budget", async () => {
    const h = { "x-test-key": "k4" };
    for (let i = 0; i < 3; i++) assert.equal((await call("POST", "/priced", h)).status, 200);
    assert.equal((await call("POST", "/priced", h)).status, 429);
    for (let i = 0; i < 4; i++) {
      const r = await call("GET", "/read", h);
      assert.equal(r.status, 200);
      assert.match(r.headers.get("ratelimit") ?? "", new RegExp(`^"read"; r=${3 - i};`));
    }
    const limited = await call("GET", "/read", h);
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get("retry-after")) >= 1);
    assert.equal(((await limited.json()) as { error: { code: string } }).error.code, "rate_limited");
  });
});
