import robotsParserModule from "robots-parser";
import { normalizeUrl } from "./url.ts";

// robots-parser is CommonJS (`module.exports = function`) but its types declare an ES default export,
// which under NodeNext types the default import as the module namespace.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

export interface RobotsRules {
  /** May `userAgent` fetch `url`? URLs of another origin than the robots.txt's are always allowed. */
  isAllowed(url: string, userAgent: string): boolean;
  /** The group's Crawl-delay in ms, if it has one. */
  crawlDelayMs(userAgent: string): number | undefined;
  /** The `Sitemap:` lines, absolute and normalized, without duplicates, in file order. */
  sitemaps: string[];
}

/** A robots.txt body that disallows everything, for a robots.txt that answered 5xx or could not be reached (RFC 9309 2.3.1.4). */
export const DISALLOW_ALL = "User-agent: *\nDisallow: /\n";

/**
 * The rules of one robots.txt (RFC 9309, via robots-parser). `body` undefined (none, or a 4xx answer)
 * allows everything; for a 5xx or an unreachable robots.txt pass `DISALLOW_ALL`, as the RFC says.
 */
export function robotsRules(robotsUrl: string, body: string | undefined): RobotsRules {
  const robots = robotsParser(robotsUrl, body ?? "");
  const sitemaps: string[] = [];
  for (const s of robots.getSitemaps()) {
    const n = normalizeUrl(s, robotsUrl);
    if (n && !sitemaps.includes(n)) sitemaps.push(n);
  }
  return {
    isAllowed: (url, userAgent) => robots.isAllowed(url, userAgent) ?? true,
    crawlDelayMs: (userAgent) => {
      const s = robots.getCrawlDelay(userAgent);
      return typeof s === "number" && Number.isFinite(s) && s >= 0 ? Math.round(s * 1000) : undefined;
    },
    sitemaps,
  };
}
