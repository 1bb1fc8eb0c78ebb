import type { Format } from "@browserfleet/contracts";

/** Money is integer micro-dollars: 1 = $0.000001 = one atomic unit of USDC, so quotes are exact. */
export const MICROS_PER_USD = 1_000_000;

/** The unit prices, in micro-dollars. The spec's "from" prices are the floor of each route. */
export const PRICES = {
  /** One rendered format of a page (scrape, batch page, crawl page, document). */
  format: 1_000,
  /** The json format also pays for its model call. */
  jsonFormat: 3_000,
  /** A format served from the cache (maxAge), in place of its format price. */
  cachedFormat: 200,
  /** Opening a session: its first minute and the state of its first format. */
  sessionOpen: 5_000,
  /** Each action of an act call. */
  action: 500,
  /** Each minute a session stays open past the first. */
  sessionMinute: 4_000,
  /** Each minute a recorded session stays open, the first included: its recording, stored and replayable. */
  recordingMinute: 1_000,
  /** A map call, per started 1000 URLs of its limit. */
  mapPer1000Urls: 300,
  /** A search call, per started 10 results of its limit. */
  searchPer10Results: 7_000,
} as const;

/** What one minute of a session costs past the first: a recorded one's recording with it. */
export const sessionMinuteMicros = (recorded: boolean): number =>
  PRICES.sessionMinute + (recorded ? PRICES.recordingMinute : 0);

export const formatPrice = (f: Format): number => (f === "json" ? PRICES.jsonFormat : PRICES.format);

export const usd = (micros: number): string => {
  const s = (micros / MICROS_PER_USD).toFixed(6).replace(/0+$/, "");
  return `$${s.endsWith(".") ? `${s}00` : s}`;
};
