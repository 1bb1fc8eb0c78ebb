import type { IncomingHttpHeaders } from "node:http";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/** The parts of an Express request the client address comes from (an Express Request fits). */
export interface AddressSource {
  headers: IncomingHttpHeaders;
  socket: { remoteAddress?: string | undefined };
}

/**
 * The caller's address. With 0 trusted hops, the socket's peer; with N, the Nth X-Forwarded-For entry from
 * the right (each trusted proxy appends the address it got the request from), falling back to the socket's
 * peer when the header has fewer entries or that entry is not an address. `::ffff:1.2.3.4` becomes `1.2.3.4`.
 */
export function clientAddress(req: AddressSource, trustedHops: number): string {
  const peer = normalizeAddress(req.socket.remoteAddress ?? "") ?? "unknown";
  if (!(trustedHops > 0)) return peer;
  const header = req.headers["x-forwarded-for"];
  const raw = Array.isArray(header) ? header.join(",") : (header ?? "");
  const entries = raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const entry = entries[entries.length - Math.floor(trustedHops)];
  if (entry === undefined) return peer;
  return normalizeAddress(entry) ?? peer;
}

/**
 * A bare IP address in canonical form (IPv4-mapped IPv6 as IPv4, IPv6 compressed and lowercase), or
 * undefined when `value` is not one. Drops brackets, ports and IPv6 zones.
 */
export function normalizeAddress(value: string): string | undefined {
  let v = value.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(v);
  if (bracketed?.[1]) v = bracketed[1];
  else if (/^[\d.]+:\d+$/.test(v)) v = v.slice(0, v.lastIndexOf(":"));
  const zone = v.indexOf("%");
  if (zone >= 0) v = v.slice(0, zone);
  if (!isIP(v)) return undefined;
  return ipaddr.process(v).toString();
}
