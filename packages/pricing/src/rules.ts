import { PRICES, usd } from "./prices.ts";

/** The pricing rules in words, per route: shown in each route's GET self-description and in the README. */
export const PRICE_RULES = {
  scrape: `${usd(PRICES.format)} per format rendered (json ${usd(PRICES.jsonFormat)}, it includes the model call); a format served from cache (maxAge) costs ${usd(PRICES.cachedFormat)}. Formats that fail are not charged: refunded to a key's balance, and not settled by a wallet paying with x402 upto; a wallet paying with x402 exact pays the whole quote, settled in full once any format came out. A call where every format fails costs nothing.`,
  session: `${usd(PRICES.sessionOpen)} to open, including the first minute and the first format; each further format ${usd(PRICES.format)}. Minutes past the first are billed with the next act, and those after the last act when the session ends (closed or expired; a lost session's minutes end with its last act). With a key, opening also holds what that idle tail can cost (${usd(PRICES.sessionMinute)} per minute of the idle timeout plus an act's run) and gives back what was not used; a wallet-opened session pays its minutes with its acts only, never an idle tail. A wallet paying with x402 exact pays an open's whole quote once it opened; with upto, the formats that came out. Closing is free.`,
  act: `${usd(PRICES.action)} per action, plus ${usd(PRICES.sessionMinute)} per minute the session stays open past the first (each started minute is billed once). A key, or a wallet paying with x402 upto, is charged for the actions that ran and the minutes; a wallet paying with x402 exact pays the whole quote, settled in full once any action ran.`,
  batch: `${usd(PRICES.format)} per format per URL (json ${usd(PRICES.jsonFormat)}); the whole batch is held up front and pages that never ran are refunded.`,
  map: `${usd(PRICES.mapPer1000Urls)} per started 1000 URLs of limit (default 1000, so ${usd(PRICES.mapPer1000Urls)}).`,
  crawl: `${usd(PRICES.format)} per format per page (json ${usd(PRICES.jsonFormat)}); limit × that is held up front and pages that never ran are refunded.`,
  search: `${usd(PRICES.searchPer10Results)} per started 10 results of limit (default 10, so ${usd(PRICES.searchPer10Results)}).`,
} as const;
