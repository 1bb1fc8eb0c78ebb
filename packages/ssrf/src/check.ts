import { lookup as dnsLookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";
import { type AllowList, EMPTY_ALLOW_LIST, isAddressAllowListed, isHostAllowListed } from "./allowlist.ts";
import { classifyAddress } from "./classify.ts";
import { type BlockedRange, SsrfError } from "./errors.ts";
import { isInternalHostname } from "./hostnames.ts";

export type LookupFn = (hostname: string) => Promise<ReadonlyArray<{ address: string; family?: number }>>;

export interface CheckUrlOptions {
  allow?: AllowList;
  /** Resolver returning every address of a host; defaults to dns.promises.lookup({ all: true }). */
  lookup?: LookupFn;
}

export interface CheckUrlResult {
  url: URL;
  /** Addresses checked; empty when the host name itself is allow-listed and was not resolved. */
  addresses: string[];
}

/** Outcome for a host, independent of the URL it came from, so it can be cached. */
export type HostVerdict =
  | { kind: "allowed"; addresses: string[] }
  | { kind: "blockedName" }
  | { kind: "blockedAddress"; address: string; range: BlockedRange }
  | { kind: "unresolvable"; cause?: unknown };

export const defaultLookup: LookupFn = (hostname) => dnsLookup(hostname, { all: true });

/** Parses the URL and enforces http(s); returns the host as an IP literal or a name. */
export function parseTarget(input: string): { url: URL; ip?: string; hostname: string } {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw SsrfError.invalidUrl(input, "it is not a valid absolute URL.");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw SsrfError.invalidUrl(
      input,
      `the ${url.protocol} scheme is not allowed; only http and https URLs can be fetched.`,
    );
  }
  const hostname = url.hostname;
  // WHATWG URL has already rewritten every IPv4 spelling (2130706433, 0x7f.1, 127.1, ...) to dotted decimal.
  if (hostname.startsWith("[")) return { url, ip: hostname.slice(1, -1), hostname };
  if (ipaddr.IPv4.isValidFourPartDecimal(hostname)) return { url, ip: hostname, hostname };
  return { url, hostname };
}

function judgeAddress(allow: AllowList, address: string): HostVerdict | undefined {
  if (isAddressAllowListed(allow, address)) return undefined;
  const verdict = classifyAddress(address);
  return verdict.allowed ? undefined : { kind: "blockedAddress", address, range: verdict.range };
}

export function judgeIp(allow: AllowList, ip: string): HostVerdict {
  return judgeAddress(allow, ip) ?? { kind: "allowed", addresses: [ip] };
}

/** Judges a host name; never rejects, resolution errors become "unresolvable". */
export async function judgeHostname(
  allow: AllowList,
  lookup: LookupFn,
  hostname: string,
): Promise<HostVerdict> {
  if (isHostAllowListed(allow, hostname)) return { kind: "allowed", addresses: [] };
  if (isInternalHostname(hostname)) return { kind: "blockedName" };
  let records: ReadonlyArray<{ address: string }>;
  try {
    records = await lookup(hostname);
  } catch (cause) {
    return { kind: "unresolvable", cause };
  }
  if (records.length === 0) return { kind: "unresolvable" };
  const addresses = records.map((r) => r.address);
  // Every address must pass: the browser may connect to any of them.
  for (const address of addresses) {
    const blocked = judgeAddress(allow, address);
    if (blocked) return blocked;
  }
  return { kind: "allowed", addresses };
}

/** Returns the addresses for an allowed verdict, or throws the matching SsrfError. */
export function enforce(
  input: string,
  target: { ip?: string; hostname: string },
  verdict: HostVerdict,
): string[] {
  switch (verdict.kind) {
    case "allowed":
      return verdict.addresses;
    case "blockedName":
      throw SsrfError.blockedHostname(input, target.hostname);
    case "blockedAddress":
      throw SsrfError.blockedAddress(input, verdict.address, verdict.range, target.ip === undefined);
    case "unresolvable":
      throw SsrfError.unresolvable(input, target.hostname, verdict.cause);
    default: {
      const never: never = verdict;
      throw new Error(`unknown verdict ${JSON.stringify(never)}`);
    }
  }
}

/**
 * Refuses (with SsrfError) anything but http(s) URLs whose host is public, or allow-listed
 * by the operator. Host names are resolved and every address is checked.
 *
 * This checks the name once; a fetcher that resolves again can still be rebound, so pin the
 * connection to the returned addresses where the client allows it.
 */
export async function checkUrl(url: string, opts: CheckUrlOptions = {}): Promise<CheckUrlResult> {
  const allow = opts.allow ?? EMPTY_ALLOW_LIST;
  const target = parseTarget(url);
  const verdict =
    target.ip !== undefined
      ? judgeIp(allow, target.ip)
      : await judgeHostname(allow, opts.lookup ?? defaultLookup, target.hostname);
  return { url: target.url, addresses: enforce(url, target, verdict) };
}
