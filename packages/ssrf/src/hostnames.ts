import { normalizeHostname } from "./allowlist.ts";

// Suffixes that only resolve inside a host, LAN or Kubernetes cluster (".cluster.local" is covered by ".local").
const INTERNAL_SUFFIXES = [".localhost", ".local", ".internal", ".svc"];

/** True for localhost, single-label names and names under local/cluster-internal suffixes. */
export function isInternalHostname(hostname: string): boolean {
  const host = normalizeHostname(hostname);
  if (host === "localhost" || !host.includes(".")) return true;
  return INTERNAL_SUFFIXES.some((suffix) => host.endsWith(suffix));
}
