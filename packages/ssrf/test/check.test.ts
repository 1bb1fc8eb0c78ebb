import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkUrl, type LookupFn, SsrfError } from "../src/index.ts";

function fakeDns(records: Record<string, string[]>): LookupFn & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (hostname: string) => {
    calls.push(hostname);
    const addresses = records[hostname];
    if (!addresses)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return Object.assign(lookup, { calls });
}

const noLookup: LookupFn = async () => {
  throw new Error("lookup must not be called");
};

async function rejectsWith(url: string, expected: Partial<SsrfError>, lookup: LookupFn = noLookup) {
  const err = await checkUrl(url, { lookup }).then(
    () => assert.fail(`${url} was allowed`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof SsrfError, `${url}: ${String(err)}`);
  for (const [key, value] of Object.entries(expected)) {
    assert.equal(err[key as keyof SsrfError], value, `${url}: ${key}`);
  }
  return err;
}

describe("checkUrl: schemes and URL syntax", () => {
  it("refuses non-http schemes as invalid_url", async () => {
    for (const url of [
      "file:///etc/passwd",
      "ftp://example.com/",
      "gopher://example.com:70/",
      "data:text/html,<script>alert(1)</script>",
      "javascript:alert(1)",
      "ws://example.com/",
      "blob:https://example.com/uuid",
    ]) {
      await rejectsWith(url, { code: "invalid_url" });
    }
  });

  it("refuses unparseable and relative URLs as invalid_url", async () => {
    for (const url of ["", "not a url", "/relative/path", "http://", "http://[::1/", "http://1.2.3.4.5/"]) {
      await rejectsWith(url, { code: "invalid_url" });
    }
  });

  it("explains the scheme refusal", async () => {
    const err = await rejectsWith("file:///etc/passwd", { code: "invalid_url", url: "file:///etc/passwd" });
    assert.match(err.message, /file: scheme is not allowed; only http and https/);
  });

  it("allows http and https to public IP literals without resolving", async () => {
    for (const url of [
      "http://8.8.8.8/",
      "https://1.1.1.1:8443/dns-query",
      "http://[2606:4700:4700::1111]/",
    ]) {
      const result = await checkUrl(url, { lookup: noLookup });
      assert.equal(result.url.href, new URL(url).href);
      assert.equal(result.addresses.length, 1);
    }
  });

  it("allows credentials in the URL but redacts the password in errors", async () => {
    await checkUrl("https://user:secret@8.8.8.8/", { lookup: noLookup });
    const err = await rejectsWith("http://user:secret@127.0.0.1/", { code: "ssrf_blocked" });
    assert.equal(err.url, "http://user:***@127.0.0.1/");
    assert.doesNotMatch(err.message, /secret/);
  });
});

describe("checkUrl: IP literals", () => {
  it("refuses each IPv4 spelling of 127.0.0.1", async () => {
    for (const url of [
      "http://127.0.0.1/",
      "http://2130706433/",
      "http://0x7f.1/",
      "http://0x7f000001/",
      "http://017700000001/",
      "http://0177.0.0.1/",
      "http://127.1/",
      "http://127.0.1/",
      "http://127.0.0.1./",
    ]) {
      await rejectsWith(url, { code: "ssrf_blocked", address: "127.0.0.1", range: "loopback" });
    }
  });

  it("refuses 0.0.0.0 spellings", async () => {
    for (const url of ["http://0.0.0.0/", "http://0/", "http://[::]/"]) {
      await rejectsWith(url, { code: "ssrf_blocked", range: "unspecified" });
    }
  });

  it("refuses IPv6 loopback, IPv4-mapped and embedded forms", async () => {
    await rejectsWith("http://[::1]/", { range: "loopback" });
    await rejectsWith("http://[::ffff:127.0.0.1]/", { range: "loopback" });
    await rejectsWith("http://[::ffff:7f00:1]:8080/", { range: "loopback" });
    await rejectsWith("http://[::ffff:169.254.169.254]/", { range: "metadata" });
    await rejectsWith("http://[64:ff9b::a9fe:a9fe]/", { range: "metadata" });
    await rejectsWith("http://[2002:a9fe:a9fe::1]/", { range: "metadata" });
    await rejectsWith("http://[fe80::1]/", { range: "linkLocal" });
    await rejectsWith("http://[fd00:ec2::254]/", { range: "metadata" });
  });

  it("refuses metadata and private literals with a readable message", async () => {
    const err = await rejectsWith("http://169.254.169.254/latest/meta-data/", {
      code: "ssrf_blocked",
      address: "169.254.169.254",
      range: "metadata",
    });
    assert.match(err.message, /^refusing to fetch http:\/\/169\.254\.169\.254\/latest\/meta-data\/: /);
    assert.match(err.message, /cloud metadata/);
    await rejectsWith("http://10.0.0.1/", { range: "private" });
    await rejectsWith("http://100.64.0.1/", { range: "carrierGradeNat" });
    await rejectsWith("http://100.100.100.200/", { range: "metadata" });
  });
});

describe("checkUrl: host names", () => {
  it("refuses local and cluster-internal names without resolving them", async () => {
    for (const url of [
      "http://localhost/",
      "http://LOCALHOST:3000/",
      "http://localhost./",
      "http://app.localhost/",
      "http://printer.local/",
      "http://metadata.google.internal/computeMetadata/v1/",
      "http://redis.default.svc/",
      "http://redis.default.svc.cluster.local:6379/",
      "http://kubernetes/",
      "http://intranet./",
    ]) {
      const err = await rejectsWith(url, { code: "ssrf_blocked", range: "internalName", address: undefined });
      assert.match(err.message, /local or cluster-internal host name/);
    }
  });

  it("allows a name that resolves only to public addresses and returns them all", async () => {
    const dns = fakeDns({ "example.com": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"] });
    const result = await checkUrl("https://example.com/a?b=c", { lookup: dns });
    assert.deepEqual(result.addresses, ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"]);
    assert.equal(result.url.hostname, "example.com");
    assert.deepEqual(dns.calls, ["example.com"]);
  });

  it("refuses a name resolving to one public and one private address", async () => {
    const dns = fakeDns({ "rebind.example.com": ["93.184.215.14", "10.0.0.5"] });
    const err = await rejectsWith(
      "http://rebind.example.com/",
      { code: "ssrf_blocked", address: "10.0.0.5", range: "private" },
      dns,
    );
    assert.equal(
      err.message,
      "refusing to fetch http://rebind.example.com/: it resolves to 10.0.0.5, a private address. " +
        "Private, loopback, link-local and cluster-internal addresses are blocked.",
    );
  });

  it("refuses names resolving to loopback, metadata or mapped addresses", async () => {
    const dns = fakeDns({
      "a.example.com": ["127.0.0.2"],
      "b.example.com": ["169.254.169.254"],
      "c.example.com": ["::ffff:127.0.0.1"],
      "d.example.com": ["2606:4700::1", "::1"],
      "e.example.com": ["not-an-ip"],
    });
    await rejectsWith("http://a.example.com/", { address: "127.0.0.2", range: "loopback" }, dns);
    await rejectsWith("http://b.example.com/", { range: "metadata" }, dns);
    await rejectsWith("http://c.example.com/", { range: "loopback" }, dns);
    await rejectsWith("http://d.example.com/", { address: "::1", range: "loopback" }, dns);
    await rejectsWith("http://e.example.com/", { range: "invalid" }, dns);
  });

  it("reports names that do not resolve as unresolvable", async () => {
    const dns = fakeDns({ "empty.example.com": [] });
    const err = await rejectsWith("http://nxdomain.example.com/", { code: "unresolvable" }, dns);
    assert.match(err.message, /nxdomain\.example\.com does not resolve.*ENOTFOUND/);
    assert.ok(err.cause instanceof Error);
    await rejectsWith("http://empty.example.com/", { code: "unresolvable" }, dns);
  });

  it("passes the URL's punycode host name to the resolver", async () => {
    const dns = fakeDns({ "xn--bcher-kva.example": ["93.184.215.14"] });
    await checkUrl("http://BÜCHER.example/", { lookup: dns });
    assert.deepEqual(dns.calls, ["xn--bcher-kva.example"]);
  });
});
