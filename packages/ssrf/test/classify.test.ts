import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { classifyAddress } from "../src/index.ts";

function refused(ip: string, range: string) {
  assert.deepEqual(classifyAddress(ip), { allowed: false, range }, ip);
}

function allowed(ip: string) {
  assert.deepEqual(classifyAddress(ip), { allowed: true, range: "unicast" }, ip);
}

describe("classifyAddress: IPv4", () => {
  it("allows public unicast", () => {
    for (const ip of ["8.8.8.8", "1.1.1.1", "93.184.215.14", "223.255.255.255"]) allowed(ip);
  });

  it("refuses unspecified 0.0.0.0/8", () => {
    refused("0.0.0.0", "unspecified");
    refused("0.255.255.255", "unspecified");
    allowed("1.0.0.0");
  });

  it("refuses loopback 127/8", () => {
    for (const ip of ["127.0.0.1", "127.0.0.2", "127.255.255.255"]) refused(ip, "loopback");
    allowed("126.255.255.255");
    allowed("128.0.0.0");
  });

  it("refuses private 10/8, 172.16/12, 192.168/16 at their edges", () => {
    for (const ip of [
      "10.0.0.0",
      "10.255.255.255",
      "172.16.0.0",
      "172.31.255.255",
      "192.168.0.0",
      "192.168.255.255",
    ]) {
      refused(ip, "private");
    }
    for (const ip of [
      "9.255.255.255",
      "11.0.0.0",
      "172.15.255.255",
      "172.32.0.0",
      "192.167.255.255",
      "192.169.0.0",
    ]) {
      allowed(ip);
    }
  });

  it("refuses link-local 169.254/16", () => {
    refused("169.254.0.1", "linkLocal");
    refused("169.254.170.2", "linkLocal");
    allowed("169.253.255.255");
    allowed("169.255.0.0");
  });

  it("refuses carrier-grade NAT 100.64/10", () => {
    refused("100.64.0.0", "carrierGradeNat");
    refused("100.64.0.1", "carrierGradeNat");
    refused("100.127.255.255", "carrierGradeNat");
    allowed("100.63.255.255");
    allowed("100.128.0.0");
  });

  it("refuses multicast and broadcast", () => {
    refused("224.0.0.1", "multicast");
    refused("239.255.255.255", "multicast");
    refused("255.255.255.255", "broadcast");
  });

  it("refuses reserved, documentation and benchmarking ranges", () => {
    for (const ip of [
      "240.0.0.1",
      "255.255.255.254",
      "192.0.0.1",
      "192.0.0.192", // Oracle Cloud metadata
      "192.0.2.1",
      "198.51.100.1",
      "203.0.113.1",
      "198.18.0.1",
      "198.19.255.255",
      "192.88.99.1",
    ]) {
      refused(ip, "reserved");
    }
    allowed("198.17.255.255");
    allowed("198.20.0.0");
  });

  it("refuses cloud metadata addresses by name", () => {
    refused("169.254.169.254", "metadata");
    refused("100.100.100.200", "metadata");
    refused("168.63.129.16", "metadata");
  });

  it("classifies the lenient spellings ipaddr.js accepts by their value", () => {
    refused("2130706433", "loopback");
    refused("0x7f.1", "loopback");
    refused("127.1", "loopback");
  });
});

describe("classifyAddress: IPv6", () => {
  it("allows global unicast", () => {
    for (const ip of ["2606:4700:4700::1111", "2001:4860:4860::8888", "2a00:1450:4001:800::200e"])
      allowed(ip);
  });

  it("refuses unspecified and loopback", () => {
    refused("::", "unspecified");
    refused("::1", "loopback");
    refused("[::1]", "loopback");
    refused("0:0:0:0:0:0:0:1", "loopback");
  });

  it("refuses link-local fe80::/10, with or without a zone id", () => {
    refused("fe80::1", "linkLocal");
    refused("fe80::1%eth0", "linkLocal");
    refused("febf:ffff::1", "linkLocal");
  });

  it("refuses unique-local fc00::/7", () => {
    refused("fc00::1", "uniqueLocal");
    refused("fd12:3456:789a::1", "uniqueLocal");
    refused("fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "uniqueLocal");
  });

  it("refuses multicast", () => {
    refused("ff02::1", "multicast");
    refused("ff05::2", "multicast");
  });

  it("refuses the AWS IPv6 metadata address", () => {
    refused("fd00:ec2::254", "metadata");
    refused("[fd00:ec2::254]", "metadata");
  });

  it("refuses documentation, Teredo, discard, site-local and unallocated space", () => {
    refused("2001:db8::1", "reserved");
    refused("2001::1", "reserved");
    refused("100::1", "reserved");
    refused("fec0::1", "reserved");
    refused("4000::1", "reserved");
    refused("::1:0:0:1", "reserved");
  });

  it("judges IPv4-mapped addresses by the embedded IPv4", () => {
    refused("::ffff:7f00:1", "loopback");
    refused("::ffff:127.0.0.1", "loopback");
    refused("[::ffff:169.254.169.254]", "metadata");
    refused("::ffff:a9fe:a9fe", "metadata");
    refused("::ffff:10.0.0.1", "private");
    refused("0:0:0:0:0:ffff:c0a8:0101", "private");
    refused("::ffff:0.0.0.0", "unspecified");
    allowed("::ffff:8.8.8.8");
  });

  it("judges IPv4-translated ::ffff:0:a.b.c.d by the embedded IPv4", () => {
    refused("::ffff:0:127.0.0.1", "loopback");
    allowed("::ffff:0:8.8.8.8");
  });

  it("judges IPv4-compatible ::a.b.c.d by the embedded IPv4", () => {
    refused("::127.0.0.1", "loopback");
    refused("::7f00:1", "loopback");
    refused("::a9fe:a9fe", "metadata");
    allowed("::8.8.8.8");
  });

  it("judges NAT64 64:ff9b::/96 by the embedded IPv4", () => {
    refused("64:ff9b::127.0.0.1", "loopback");
    refused("64:ff9b::a9fe:a9fe", "metadata");
    refused("64:ff9b::10.1.2.3", "private");
    allowed("64:ff9b::8.8.8.8");
    refused("64:ff9b:1::8.8.8.8", "reserved");
  });

  it("judges 6to4 2002::/16 by the embedded IPv4", () => {
    refused("2002:7f00:1::1", "loopback");
    refused("2002:a9fe:a9fe::", "metadata");
    refused("2002:c0a8:101::1", "private");
    allowed("2002:808:808::1");
  });
});

describe("classifyAddress: input handling", () => {
  it("refuses anything that is not an IP address", () => {
    for (const ip of ["", "localhost", "example.com", "1.2.3.4.5", "::g", "256.0.0.1"])
      refused(ip, "invalid");
  });
});
