import { domainToASCII } from "node:url";
import ipaddr from "ipaddr.js";
import { parseIp } from "./classify.ts";

type IP = ipaddr.IPv4 | ipaddr.IPv6;

/** Operator exceptions to the SSRF block, usually parsed from FLEET_ALLOW_PRIVATE. */
export interface AllowList {
  readonly ranges: ReadonlyArray<readonly [IP, number]>;
  /** Lower-case ASCII host names without a trailing dot. */
  readonly hostnames: ReadonlySet<string>;
}

export const EMPTY_ALLOW_LIST: AllowList = { ranges: [], hostnames: new Set() };

const HOST_LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

function invalid(entry: string, why: string): Error {
  return new Error(`FLEET_ALLOW_PRIVATE: invalid entry "${entry}": ${why}`);
}

/** Removes trailing dots and lower-cases, so "Fixtures.Local." matches "fixtures.local". */
export function normalizeHostname(host: string): string {
  return host.replace(/\.+$/, "").toLowerCase();
}

// ipaddr.js also accepts inet_aton spellings ("10.1", "0x0a.0.0.1"); an operator who
// writes "192.168/16" almost certainly did not mean 192.0.0.168/16, so demand dotted quads.
function parseIpEntry(entry: string, ip: string): IP {
  const parsed = parseIp(ip);
  if (!parsed) throw invalid(entry, "not an IP address");
  if (parsed instanceof ipaddr.IPv4 && !ipaddr.IPv4.isValidFourPartDecimal(ip)) {
    throw invalid(entry, "write IPv4 addresses as four dotted decimal numbers, e.g. 10.0.0.0/8");
  }
  return parsed;
}

function parseEntry(entry: string): readonly [IP, number] | string {
  const slash = entry.indexOf("/");
  if (slash >= 0) {
    const ip = parseIpEntry(entry, entry.slice(0, slash));
    const bitsText = entry.slice(slash + 1);
    const max = ip.kind() === "ipv4" ? 32 : 128;
    const bits = /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : Number.NaN;
    if (!(bits >= 0 && bits <= max)) throw invalid(entry, `prefix length must be 0-${max}`);
    return [ip, bits];
  }
  if (entry.includes(":") || ipaddr.isValid(entry)) {
    const ip = parseIpEntry(entry, entry);
    return [ip, ip.kind() === "ipv4" ? 32 : 128];
  }
  const host = domainToASCII(normalizeHostname(entry));
  const labels = host.split(".");
  if (!host || !labels.every((l) => HOST_LABEL.test(l))) {
    throw invalid(entry, "not a CIDR, IP address or host name");
  }
  // WHATWG URL parsing turns a numeric last label into an IPv4 address, so such a name never reaches us.
  if (/^(\d+|0x[0-9a-f]*)$/.test(labels.at(-1) ?? "")) {
    throw invalid(entry, "looks like an IP address but is not a valid one");
  }
  return host;
}

/**
 * Parses a comma-separated list of CIDRs ("10.0.0.0/8", "::1/128"), bare IPs and exact
 * host names ("fixtures.local"). Blank entries are ignored; invalid ones throw.
 */
export function parseAllowList(spec: string | undefined): AllowList {
  const ranges: (readonly [IP, number])[] = [];
  const hostnames = new Set<string>();
  for (const raw of (spec ?? "").split(",")) {
    const entry = raw.trim();
    if (!entry) continue;
    const parsed = parseEntry(entry);
    if (typeof parsed === "string") hostnames.add(parsed);
    else ranges.push(parsed);
  }
  return { ranges, hostnames };
}

/** True if the address lies in an allow-listed range; IPv4-mapped IPv6 also matches IPv4 entries. */
export function isAddressAllowListed(list: AllowList, address: string): boolean {
  const ip = parseIp(address);
  if (!ip) return false;
  const candidates: IP[] = [ip];
  if (ip instanceof ipaddr.IPv6 && ip.isIPv4MappedAddress()) candidates.push(ip.toIPv4Address());
  return list.ranges.some(([net, bits]) =>
    candidates.some((c) => c.kind() === net.kind() && c.match(net, bits)),
  );
}

export function isHostAllowListed(list: AllowList, hostname: string): boolean {
  return list.hostnames.has(normalizeHostname(hostname));
}
