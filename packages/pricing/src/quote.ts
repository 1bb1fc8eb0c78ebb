import type {
  ActRequest,
  BatchRequest,
  CrawlRequest,
  Format,
  MapRequest,
  ScrapeRequest,
  SearchRequest,
  SessionRequest,
} from "@browserfleet/contracts";
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

export type PricedCall =
  | { route: "scrape"; request: Pick<ScrapeRequest, "formats">; cachedFormats?: readonly Format[] }
  | { route: "session"; request: Pick<SessionRequest, "formats"> }
  | { route: "act"; request: Pick<ActRequest, "actions">; minutesDue: number }
  | { route: "map"; request: Pick<MapRequest, "limit"> }
  | { route: "search"; request: Pick<SearchRequest, "limit"> }
  | { route: "batch"; request: Pick<BatchRequest, "urls" | "formats"> }
  | { route: "crawl"; request: Pick<CrawlRequest, "limit" | "formats"> };

const line = (item: string, quantity: number, unitMicros: number): QuoteLine => ({
  item,
  quantity,
  unitMicros,
  micros: quantity * unitMicros,
});

function total(lines: QuoteLine[]): Quote {
  const kept = lines.filter((l) => l.quantity > 0);
  return { micros: kept.reduce((s, l) => s + l.micros, 0), lines: kept };
}

/** One page's formats: each rendered format at its price, each cached one at the cache price. */
export function pageLines(formats: readonly Format[], cached: readonly Format[] = []): QuoteLine[] {
  const fromCache = new Set(cached.filter((f) => formats.includes(f)));
  const lines: QuoteLine[] = [];
  for (const f of formats) {
    lines.push(
      fromCache.has(f)
        ? line(`format ${f} (cached)`, 1, PRICES.cachedFormat)
        : line(`format ${f}`, 1, formatPrice(f)),
    );
  }
  return lines;
}

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

/** The exact price of a validated call. Pure: the 402 quote, the hold and the README all come from here. */
export function priceOf(call: PricedCall): Quote {
  switch (call.route) {
    case "scrape":
      return total(pageLines(call.request.formats, call.cachedFormats));
    case "session": {
      const [first, ...rest] = call.request.formats;
      const lines = [line("session open (first minute, first format)", 1, PRICES.sessionOpen)];
      if (first === "json")
        lines.push(line("format json (model call)", 1, PRICES.jsonFormat - PRICES.format));
      for (const f of rest) lines.push(line(`format ${f}`, 1, formatPrice(f)));
      return total(lines);
    }
    case "act":
      return total([
        line("action", call.request.actions.length, PRICES.action),
        line("session minute past the first", call.minutesDue, PRICES.sessionMinute),
      ]);
    case "map":
      return total([
        line(
          "map, per started 1000 URLs of limit",
          Math.ceil(call.request.limit / 1000),
          PRICES.mapPer1000Urls,
        ),
      ]);
    case "search":
      return total([
        line(
          "search, per started 10 results of limit",
          Math.ceil(call.request.limit / 10),
          PRICES.searchPer10Results,
        ),
      ]);
    case "batch":
      return total([
        line(
          `page (${call.request.formats.join(", ")})`,
          call.request.urls.length,
          pageMicros(call.request.formats),
        ),
      ]);
    case "crawl":
      return total([
        line(
          `page (${call.request.formats.join(", ")})`,
          call.request.limit,
          pageMicros(call.request.formats),
        ),
      ]);
    default: {
      const route: never = call;
      throw new Error(`no price rule for ${JSON.stringify(route)}`);
    }
  }
}
