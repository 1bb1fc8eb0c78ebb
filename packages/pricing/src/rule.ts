import type { Format } from "@browserfleet/contracts";
import { formatPrice, PRICES } from "./prices.ts";

export interface QuoteLine {
  item: string;
  quantity: number;
  unitMicros: number;
  micros: number;
}

/** The exact price of one call, line by line. */
export interface Quote {
  micros: number;
  lines: QuoteLine[];
}

/**
 * An operation's price: what it says and what it computes, in one place. The operation carries it
 * (defineOperation's `priced.price`); the 402 quote, the hold, the charge, the GET self-description,
 * OpenAPI, llms.txt and the MCP tool's description all read it from there.
 */
export interface PriceRule<C> {
  /** A few words for an MCP tool's description: "$0.001 per format". */
  brief: string;
  /** The whole rule in words. */
  words: string;
  /** The exact price of one validated call. Pure. */
  quote(call: C): Quote;
}

export const definePrice = <C>(rule: PriceRule<C>): PriceRule<C> => rule;

export const line = (item: string, quantity: number, unitMicros: number): QuoteLine => ({
  item,
  quantity,
  unitMicros,
  micros: quantity * unitMicros,
});

/** The lines that count (quantity above 0) and their sum. */
export function total(lines: QuoteLine[]): Quote {
  const kept = lines.filter((l) => l.quantity > 0);
  return { micros: kept.reduce((s, l) => s + l.micros, 0), lines: kept };
}

/** One page's formats: each rendered format at its price, each cached one at the cache price. */
export function pageLines(formats: readonly Format[], cached: readonly Format[] = []): QuoteLine[] {
  const fromCache = new Set(cached.filter((f) => formats.includes(f)));
  return formats.map((f) =>
    fromCache.has(f)
      ? line(`format ${f} (cached)`, 1, PRICES.cachedFormat)
      : line(`format ${f}`, 1, formatPrice(f)),
  );
}

/** A pool's name and what one page (or session) through it adds: the operator's EGRESS_PROXIES. */
export interface PoolPrice {
  name: string;
  priceMicros: number;
}

/** What going out through an egress pool adds, `units` times (pages); nothing for a pool that adds nothing. */
export const poolLines = (pool: PoolPrice | undefined, units: number): QuoteLine[] =>
  pool && pool.priceMicros > 0 ? [line(`proxy pool ${pool.name}`, units, pool.priceMicros)] : [];

/** The words every render price adds for pools. */
export const POOL_WORDS =
  "A request that goes out through one of the deployment's egress proxy pools (proxy) adds that pool's price per page rendered (per session for a session); the proxies route lists each pool and its price, and the 402 quote shows it as a line of its own.";

/** What one page with these formats costs (cached ones at the cache price): a scrape, a batch or crawl page. */
export const pageQuote = (formats: readonly Format[], cached: readonly Format[] = []): Quote =>
  total(pageLines(formats, cached));

/** The price of a single page with these formats, none of them cached. */
export const pageMicros = (formats: readonly Format[]): number =>
  formats.reduce((s, f) => s + formatPrice(f), 0);

/**
 * The most minutes a session can run past its last billing point (its open, or an act's start) before it
 * ends by itself: the act's own run plus the idle timeout, never past the maximum lifetime. What a key's
 * hold for the idle tail covers.
 */
export function sessionTailMinutes(s: {
  idleMs: number;
  actBudgetMs: number;
  maxLifetimeMs: number;
}): number {
  const tail = Math.ceil((s.idleMs + s.actBudgetMs) / 60_000);
  return Math.max(0, Math.min(tail, Math.ceil(s.maxLifetimeMs / 60_000) - 1));
}

/** Minutes of a session to bill now: every started minute past the first that is not billed yet. */
export function sessionMinutesDue(openedAt: Date, billedMinutes: number, now: Date): number {
  const startedMinutes = Math.max(1, Math.ceil((now.getTime() - openedAt.getTime()) / 60_000));
  return Math.max(0, startedMinutes - Math.max(1, billedMinutes));
}
