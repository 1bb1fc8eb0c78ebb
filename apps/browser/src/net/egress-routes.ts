import type { EgressPool } from "@browserfleet/config";
import type { OwnProxy, ScrapeRequest } from "@browserfleet/contracts";
import { chooseEgress, EgressRefused, type EgressSettings } from "@browserfleet/egress";
import { type AllowList, checkUrl, SsrfError } from "@browserfleet/ssrf";
import { BrowserError } from "../errors.ts";
import type { GuardProxy, Upstream } from "./guard-proxy.ts";

/** How one task goes out: the guard it checks through, the proxy server its context is made with, and its end. */
export interface EgressRoute {
  /** How it goes out, for metrics: direct, a pool (and its name), or a caller's own proxy. */
  way: "direct" | "pool" | "own";
  pool?: string;
  guard: GuardProxy;
  /** The context's own proxy server (a guard route to the egress proxy); undefined: the browser's default. */
  server?: string;
  release(): Promise<void>;
}

/** How long a caller's proxy route stays open after its last task: the next page of its job takes it again. */
const OWN_ROUTE_IDLE_MS = 30_000;

const upstreamOfPool = (pool: EgressPool): Upstream => {
  const u = new URL(pool.url);
  return {
    host: u.hostname.replace(/^\[|\]$/g, ""),
    port: Number(u.port || 80),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
  };
};

/**
 * The worker's ways out: each operator pool gets one guard route, made at first use and kept; a caller's
 * own proxy gets one for its task, closed with it. The caller's proxy is checked like any target (never
 * private, loopback or cluster space) and reached at the very address checked.
 */
export class EgressRoutes {
  readonly #pools = new Map<string, Promise<GuardProxy>>();
  /** Callers' own proxies in use: the pages of one job share one route (and so their context). */
  readonly #own = new Map<string, { route: Promise<GuardProxy>; users: number; idle?: NodeJS.Timeout }>();

  constructor(
    private readonly guard: GuardProxy,
    private readonly settings: EgressSettings,
    private readonly allow: AllowList,
    /** Told of every route a task opened (metrics). */
    private readonly onOpen: (route: EgressRoute) => void = () => {},
  ) {}

  async open(req: ScrapeRequest): Promise<EgressRoute> {
    const route = await this.#open(req);
    this.onOpen(route);
    return route;
  }

  async #open(req: ScrapeRequest): Promise<EgressRoute> {
    let egress: ReturnType<typeof chooseEgress>;
    try {
      egress = chooseEgress(req, this.settings);
    } catch (err) {
      if (err instanceof EgressRefused)
        throw new BrowserError(err.code, err.code === "proxy_not_allowed" ? 403 : 400, err.message);
      throw err;
    }
    if (egress.kind === "direct") return { way: "direct", guard: this.guard, release: async () => {} };
    if (egress.kind === "pool") {
      const { pool } = egress;
      let route = this.#pools.get(pool.name);
      if (!route) {
        route = this.guard.through(upstreamOfPool(pool));
        this.#pools.set(pool.name, route);
        route.catch(() => this.#pools.delete(pool.name));
      }
      const guard = await route;
      return { way: "pool", pool: pool.name, guard, server: guard.url, release: async () => {} };
    }
    const key = JSON.stringify(egress.proxy);
    let own = this.#own.get(key);
    if (!own) {
      own = { route: this.#ownRoute(egress.proxy), users: 0 };
      this.#own.set(key, own);
    }
    const held = own;
    clearTimeout(held.idle);
    held.users++;
    let guard: GuardProxy;
    try {
      guard = await held.route;
    } catch (err) {
      held.users--;
      if (this.#own.get(key) === held) this.#own.delete(key);
      throw err;
    }
    let released = false;
    return {
      way: "own",
      guard,
      server: guard.url,
      release: async () => {
        if (released) return;
        released = true;
        if (--held.users > 0) return;
        held.idle = setTimeout(() => {
          if (held.users > 0) return;
          this.#own.delete(key);
          void guard.close();
        }, OWN_ROUTE_IDLE_MS);
        held.idle.unref();
      },
    };
  }

  async #ownRoute({ server, username, password }: OwnProxy): Promise<GuardProxy> {
    let address: string;
    try {
      const checked = await checkUrl(server, { allow: this.allow });
      address = checked.addresses[0] ?? checked.url.hostname.replace(/^\[|\]$/g, "");
    } catch (err) {
      if (err instanceof SsrfError)
        throw new BrowserError("ssrf_blocked", 400, `proxy.server: ${err.message}`);
      throw err;
    }
    return this.guard.through({
      host: address,
      port: Number(new URL(server).port || 80),
      ...(username !== undefined ? { username } : {}),
      ...(password !== undefined ? { password } : {}),
    });
  }

  async close(): Promise<void> {
    const routes = [...this.#pools.values(), ...[...this.#own.values()].map((o) => o.route)];
    for (const o of this.#own.values()) clearTimeout(o.idle);
    this.#pools.clear();
    this.#own.clear();
    await Promise.all(routes.map((r) => r.then((g) => g.close()).catch(() => {})));
  }
}
