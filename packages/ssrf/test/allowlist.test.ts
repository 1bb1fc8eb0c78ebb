import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkUrl, isAddressAllowListed, parseAllowList } from "../src/index.ts";

const noLookup = async (): Promise<never> => {
  throw new Error("lookup must not be called");
};

describe("parseAllowList", () => {
  it("returns an empty list for undefined, empty and blank specs", () => {
    for (const spec of [undefined, "", " ", ", ,"]) {
      const list = parseAllowList(spec);
      assert.equal(list.ranges.length, 0);
      assert.equal(list.hostnames.size, 0);
    }
  });

  it("parses CIDRs, bare IPs and host names, trimming whitespace", () => {
    const list = parseAllowList(" 127.0.0.1/32, 10.0.0.0/8 ,::1/128,192.168.1.5, fd00::1 ,Fixtures.Local.");
    assert.equal(list.ranges.length, 5);
    assert.deepEqual([...list.hostnames], ["fixtures.local"]);
  });

  it("127.0.0.1/32 allows 127.0.0.1 but not 127.0.0.2", () => {
    const list = parseAllowList("127.0.0.1/32");
    assert.equal(isAddressAllowListed(list, "127.0.0.1"), true);
    assert.equal(isAddressAllowListed(list, "127.0.0.2"), false);
    assert.equal(isAddressAllowListed(list, "::1"), false);
  });

  it("a bare IP is a single-address range", () => {
    const list = parseAllowList("10.1.2.3,fd00::5");
    assert.equal(isAddressAllowListed(list, "10.1.2.3"), true);
    assert.equal(isAddressAllowListed(list, "10.1.2.4"), false);
    assert.equal(isAddressAllowListed(list, "fd00::5"), true);
    assert.equal(isAddressAllowListed(list, "fd00::6"), false);
  });

  it("CIDRs match their whole range and nothing else", () => {
    const list = parseAllowList("10.0.0.0/8,fd00::/8");
    assert.equal(isAddressAllowListed(list, "10.255.255.255"), true);
    assert.equal(isAddressAllowListed(list, "11.0.0.0"), false);
    assert.equal(isAddressAllowListed(list, "fd12::1"), true);
    assert.equal(isAddressAllowListed(list, "fc00::1"), false);
  });

  it("IPv4 entries also match the IPv4-mapped IPv6 form", () => {
    const list = parseAllowList("127.0.0.1/32");
    assert.equal(isAddressAllowListed(list, "::ffff:127.0.0.1"), true);
    assert.equal(isAddressAllowListed(list, "::ffff:127.0.0.2"), false);
  });

  it("throws naming the entry for invalid input", () => {
    for (const entry of [
      "10.0.0.0/33",
      "::1/129",
      "10.0.0.0/",
      "10.0.0.0/x",
      "300.0.0.1",
      "192.168/16",
      "127.1",
      "2130706433",
      "*.example.com",
      "http://example.com",
      "a..b",
      "-bad.example",
      "1.2.3.999",
      "not/a/cidr",
    ]) {
      assert.throws(
        () => parseAllowList(`127.0.0.1/32,${entry}`),
        (err: Error) => err.message.includes(`"${entry}"`),
        entry,
      );
    }
  });
});

describe("allow list in checkUrl", () => {
  it("allows exactly the allow-listed loopback address", async () => {
    const allow = parseAllowList("127.0.0.1/32");
    assert.deepEqual((await checkUrl("http://127.0.0.1:8080/x", { allow })).addresses, ["127.0.0.1"]);
    await assert.rejects(checkUrl("http://127.0.0.2/", { allow }), {
      code: "ssrf_blocked",
      range: "loopback",
    });
  });

  it("allows an allow-listed IPv6 literal", async () => {
    const allow = parseAllowList("::1/128");
    await checkUrl("http://[::1]:3000/", { allow });
    await assert.rejects(checkUrl("http://[::2]/", { allow }), { code: "ssrf_blocked" });
  });

  it("allows private addresses a host name resolves to when their range is listed", async () => {
    const allow = parseAllowList("10.0.0.0/8");
    const lookup = async () => [{ address: "10.1.2.3", family: 4 }];
    assert.deepEqual((await checkUrl("http://fixtures.example.com/", { allow, lookup })).addresses, [
      "10.1.2.3",
    ]);
  });

  it("an allow-listed host name skips name and address checks, case-insensitively", async () => {
    const allow = parseAllowList("fixtures.local,Redis.Svc");
    const result = await checkUrl("http://FIXTURES.local:8080/page", { allow, lookup: noLookup });
    assert.deepEqual(result.addresses, []);
    await checkUrl("http://redis.svc./", { allow, lookup: noLookup });
    await assert.rejects(checkUrl("http://other.local/", { allow, lookup: noLookup }), {
      range: "internalName",
    });
  });

  it("a listed range does not unblock internal host names", async () => {
    const allow = parseAllowList("127.0.0.1/32");
    await assert.rejects(checkUrl("http://localhost/", { allow, lookup: noLookup }), {
      code: "ssrf_blocked",
    });
  });
});
