import type { AllowList } from "./allowlist.ts";
import {
  defaultLookup,
  enforce,
  type HostVerdict,
  judgeHostname,
  judgeIp,
  type LookupFn,
  parseTarget,
} from "./check.ts";

export interface GuardOptions {
  allow: AllowList;
  lookup?: LookupFn;
  /** How long a host's verdict is reused; default 30 s. */
  cacheTtlMs?: number;
  /** Most hosts remembered; the least recently used is evicted first. Default 1000. */
  maxEntries?: number;
  /** Clock, for tests. */
  now?: () => number;
}

export interface Guard {
  /** Resolves if the URL may be fetched; otherwise rejects with SsrfError. */
  check(url: string): Promise<void>;
}

interface Entry {
  expires: number;
  verdict: Promise<HostVerdict>;
}

/**
 * A checkUrl with a per-host verdict cache, for the many subrequests a page makes to
 * the same hosts. Concurrent checks of one host share a single lookup. DNS failures are
 * not cached since they are often transient.
 */
export function createGuard(options: GuardOptions): Guard {
  const { allow, lookup = defaultLookup, cacheTtlMs = 30_000, maxEntries = 1000, now = Date.now } = options;
  const cache = new Map<string, Entry>();

  function verdictFor(hostname: string): Promise<HostVerdict> {
    const hit = cache.get(hostname);
    if (hit && hit.expires > now()) {
      cache.delete(hostname);
      cache.set(hostname, hit);
      return hit.verdict;
    }
    const entry: Entry = { expires: now() + cacheTtlMs, verdict: judgeHostname(allow, lookup, hostname) };
    cache.delete(hostname);
    cache.set(hostname, entry);
    while (cache.size > maxEntries) {
      const oldest = cache.keys().next().value;
      if (oldest === undefined) break;
      cache.delete(oldest);
    }
    void entry.verdict.then((v) => {
      if (v.kind === "unresolvable" && cache.get(hostname) === entry) cache.delete(hostname);
    });
    return entry.verdict;
  }

  return {
    async check(url) {
      const target = parseTarget(url);
      const verdict = target.ip !== undefined ? judgeIp(allow, target.ip) : await verdictFor(target.hostname);
      enforce(url, target, verdict);
    },
  };
}
