import ipaddr from "ipaddr.js";

export type AddressRange =
  | "unicast"
  | "unspecified"
  | "loopback"
  | "private"
  | "linkLocal"
  | "carrierGradeNat"
  | "uniqueLocal"
  | "multicast"
  | "broadcast"
  | "reserved"
  | "metadata"
  | "invalid";

export interface AddressVerdict {
  allowed: boolean;
  range: AddressRange;
}

type IP = ipaddr.IPv4 | ipaddr.IPv6;

// Named ipaddr.js ranges we report as-is; any other non-unicast range is "reserved".
const KNOWN_RANGES: ReadonlySet<string> = new Set<AddressRange>([
  "unspecified",
  "loopback",
  "private",
  "linkLocal",
  "carrierGradeNat",
  "uniqueLocal",
  "multicast",
  "broadcast",
]);

const METADATA: readonly IP[] = [
  "169.254.169.254", // AWS, GCP, Azure, OpenStack, DigitalOcean, ...
  "fd00:ec2::254", // AWS IMDS over IPv6
  "100.100.100.200", // Alibaba Cloud
  // Azure WireServer: a public-looking address that only answers inside Azure.
  "168.63.129.16",
].map((a) => ipaddr.parse(a));

const NAT64_WELL_KNOWN = ipaddr.parseCIDR("64:ff9b::/96");
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

function refuse(range: AddressRange): AddressVerdict {
  return { allowed: false, range };
}

function isMetadata(ip: IP): boolean {
  const bits = ip.kind() === "ipv4" ? 32 : 128;
  return METADATA.some((m) => m.kind() === ip.kind() && ip.match(m, bits));
}

function v4FromParts(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function classifyV4(ip: ipaddr.IPv4): AddressVerdict {
  if (isMetadata(ip)) return refuse("metadata");
  const range = ip.range();
  if (range === "unicast") return { allowed: true, range };
  return refuse(KNOWN_RANGES.has(range) ? (range as AddressRange) : "reserved");
}

// IPv6 forms that carry an IPv4 address the traffic actually ends up at.
function embeddedV4(ip: ipaddr.IPv6, range: string): ipaddr.IPv4 | "reserved" | undefined {
  const p = ip.parts;
  const last32 = () => v4FromParts(p[6] ?? 0, p[7] ?? 0);
  switch (range) {
    case "ipv4Mapped": // ::ffff:a.b.c.d
    case "rfc6145": // ::ffff:0:a.b.c.d
      return last32();
    case "rfc6052": // NAT64; the local-use 64:ff9b:1::/48 has no fixed embedding
      return ip.match(NAT64_WELL_KNOWN) ? last32() : "reserved";
    case "6to4": // 2002:aabb:ccdd::/48
      return v4FromParts(p[1] ?? 0, p[2] ?? 0);
    case "unicast":
      // Deprecated IPv4-compatible ::a.b.c.d (:: and ::1 are ranged before this).
      return p.slice(0, 6).every((x) => x === 0) ? last32() : undefined;
    default:
      return undefined;
  }
}

function classifyV6(ip: ipaddr.IPv6): AddressVerdict {
  if (isMetadata(ip)) return refuse("metadata");
  const range = ip.range();
  const v4 = embeddedV4(ip, range);
  if (v4 === "reserved") return refuse("reserved");
  if (v4) return classifyV4(v4);
  if (range === "unicast") {
    // ipaddr.js calls unallocated space unicast; only 2000::/3 is routable.
    return ip.match(GLOBAL_UNICAST_V6) ? { allowed: true, range } : refuse("reserved");
  }
  return refuse(KNOWN_RANGES.has(range) ? (range as AddressRange) : "reserved");
}

/** Parses an IP address (brackets and IPv6 zone ids accepted); undefined if it is not one. */
export function parseIp(input: string): IP | undefined {
  const s = input.startsWith("[") && input.endsWith("]") ? input.slice(1, -1) : input;
  return ipaddr.isValid(s) ? ipaddr.parse(s) : undefined;
}

/**
 * Classifies an IP address for outbound fetching. Only public unicast is allowed;
 * IPv6 forms embedding an IPv4 address (mapped, compatible, NAT64, 6to4) are judged
 * by the embedded address. Anything unparseable is refused as "invalid".
 */
export function classifyAddress(ip: string): AddressVerdict {
  const parsed = parseIp(ip.trim());
  if (!parsed) return refuse("invalid");
  return parsed instanceof ipaddr.IPv4 ? classifyV4(parsed) : classifyV6(parsed);
}
