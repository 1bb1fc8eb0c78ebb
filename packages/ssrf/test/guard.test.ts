import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createGuard, parseAllowList, SsrfError } from "../src/index.ts";

function countingDns(records: Record<string, string[]>) {
  const calls: string[] = [];
  const lookup = async (hostname: string) => {
    calls.push(hostname);
    await new Promise((r) => setImmediate(r));
    const addresses = records[hostname];
    if (!addresses) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: 4 }));
  };
  return { lookup, calls, records };
}

function clock(start = 1_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

const allow = parseAllowList(undefined);

describe("createGuard", () => {
  it("resolves for allowed URLs and rejects with SsrfError otherwise", async () => {
    const dns = countingDns({ "example.com": ["93.184.215.14"], "evil.example.com": ["10.0.0.1"] });
    const guard = createGuard({ allow, lookup: dns.lookup });
    assert.equal(await guard.check("https://example.com/"), undefined);
    await assert.rejects(guard.check("http://evil.example.com/"), SsrfError);
    await assert.rejects(guard.check("file:///etc/passwd"), { code: "invalid_url" });
    await assert.rejects(guard.check("http://127.0.0.1/"), { code: "ssrf_blocked" });
    await assert.rejects(guard.check("http://localhost/"), { code: "ssrf_blocked" });
  });

  it("reuses a host's verdict within the TTL and looks it up again after", async () => {
    const dns = countingDns({ "example.com": ["93.184.215.14"] });
    const time = clock();
    const guard = createGuard({ allow, lookup: dns.lookup, cacheTtlMs: 30_000, now: time.now });
    await guard.check("https://example.com/a");
    await guard.check("https://example.com:8443/b");
    await guard.check("http://EXAMPLE.com/c");
    assert.equal(dns.calls.length, 1);
    time.advance(29_999);
    await guard.check("https://example.com/d");
    assert.equal(dns.calls.length, 1);
    time.advance(1);
    await guard.check("https://example.com/e");
    assert.equal(dns.calls.length, 2);
  });

  it("caches blocked verdicts but names the URL being checked", async () => {
    const dns = countingDns({ "evil.example.com": ["192.168.1.1"] });
    const guard = createGuard({ allow, lookup: dns.lookup });
    await assert.rejects(guard.check("http://evil.example.com/one"), { url: "http://evil.example.com/one" });
    const err = await guard.check("http://evil.example.com/two").catch((e: SsrfError) => e);
    assert.ok(err instanceof SsrfError);
    assert.equal(err.url, "http://evil.example.com/two");
    assert.equal(err.address, "192.168.1.1");
    assert.match(
      err.message,
      /^refusing to fetch http:\/\/evil\.example\.com\/two: it resolves to 192\.168\.1\.1/,
    );
    assert.equal(dns.calls.length, 1);
  });

  it("shares one lookup between concurrent checks of a host", async () => {
    const dns = countingDns({ "cdn.example.com": ["93.184.215.14"] });
    const guard = createGuard({ allow, lookup: dns.lookup });
    await Promise.all(Array.from({ length: 20 }, (_, i) => guard.check(`https://cdn.example.com/${i}.js`)));
    assert.equal(dns.calls.length, 1);
  });

  it("does not cache resolution failures", async () => {
    const dns = countingDns({});
    const guard = createGuard({ allow, lookup: dns.lookup });
    await assert.rejects(guard.check("http://flaky.example.com/"), { code: "unresolvable" });
    dns.records["flaky.example.com"] = ["93.184.215.14"];
    await guard.check("http://flaky.example.com/");
    assert.equal(dns.calls.length, 2);
  });

  it("evicts the least recently used host beyond maxEntries", async () => {
    const dns = countingDns({ "a.example": ["8.8.8.8"], "b.example": ["8.8.8.8"], "c.example": ["8.8.8.8"] });
    const guard = createGuard({ allow, lookup: dns.lookup, maxEntries: 2 });
    await guard.check("http://a.example/");
    await guard.check("http://b.example/");
    await guard.check("http://a.example/"); // a is now more recent than b
    await guard.check("http://c.example/"); // evicts b
    await guard.check("http://a.example/");
    assert.deepEqual(dns.calls, ["a.example", "b.example", "c.example"]);
    await guard.check("http://b.example/");
    assert.deepEqual(dns.calls, ["a.example", "b.example", "c.example", "b.example"]);
  });

  it("honours the allow list", async () => {
    const dns = countingDns({ "fixtures.example": ["10.9.8.7"] });
    const guard = createGuard({
      allow: parseAllowList("127.0.0.1/32,10.0.0.0/8,fixtures.local"),
      lookup: dns.lookup,
    });
    await guard.check("http://127.0.0.1:4000/");
    await guard.check("http://fixtures.example/");
    await guard.check("http://fixtures.local/");
    await assert.rejects(guard.check("http://127.0.0.2/"), { range: "loopback" });
    assert.deepEqual(dns.calls, ["fixtures.example"]);
  });
});
