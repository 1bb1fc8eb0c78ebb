import type { EgressPool } from "@browserfleet/config";
import type { OwnProxy, ProxyChoice } from "@browserfleet/contracts";

/** How one request's browser goes out: directly, through an operator's pool, or through the caller's own proxy. */
export type Egress =
  | { kind: "direct" }
  | { kind: "pool"; pool: EgressPool }
  | { kind: "own"; proxy: OwnProxy };

/** Why a request's proxy cannot be used here: a 400 or 403 naming the proxy field. */
export class EgressRefused extends Error {
  constructor(
    readonly code: "unknown_proxy_pool" | "proxy_not_allowed",
    message: string,
  ) {
    super(message);
  }
}

export interface EgressSettings {
  pools: readonly EgressPool[];
  /** CALLER_PROXIES: whether a caller may bring its own proxy. */
  callerProxies: boolean;
}

/**
 * The egress of a request, the same on the api (to price and refuse it) and on the worker (to go out
 * through it): "auto" (or no proxy) takes the pool of location.country, else the default pool, else none.
 */
export function chooseEgress(
  req: { proxy?: ProxyChoice | undefined; location?: { country?: string | undefined } | undefined },
  settings: EgressSettings,
): Egress {
  const choice = req.proxy ?? "auto";
  if (choice === "none") return { kind: "direct" };
  if (typeof choice === "object") {
    if (!settings.callerProxies)
      throw new EgressRefused(
        "proxy_not_allowed",
        `this deployment does not take callers' own proxies (its operator sets CALLER_PROXIES=on to allow them)${poolsHint(settings.pools)}`,
      );
    return { kind: "own", proxy: choice };
  }
  if (choice === "auto") {
    const country = req.location?.country;
    const pool =
      (country !== undefined ? settings.pools.find((p) => p.countries.includes(country)) : undefined) ??
      settings.pools.find((p) => p.default);
    return pool ? { kind: "pool", pool } : { kind: "direct" };
  }
  const name = choice.slice("pool:".length);
  const pool = settings.pools.find((p) => p.name === name);
  if (!pool)
    throw new EgressRefused(
      "unknown_proxy_pool",
      `no egress pool named ${name} here${poolsHint(settings.pools)}, or give proxy "auto" or "none"`,
    );
  return { kind: "pool", pool };
}

function poolsHint(pools: readonly EgressPool[]): string {
  if (pools.length === 0) return "; this deployment declares no egress pools";
  return `; its pools: ${pools.map((p) => `pool:${p.name}`).join(", ")}`;
}

/** The pool a request goes out through, for its price and its cache key; undefined: none. */
export const poolOf = (e: Egress): EgressPool | undefined => (e.kind === "pool" ? e.pool : undefined);
