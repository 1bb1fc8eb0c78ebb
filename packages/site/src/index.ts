export { linksInMarkdown } from "./markdown-links.ts";
export { DISALLOW_ALL, type RobotsRules, robotsRules } from "./robots.ts";
export {
  discoverSitemapUrls,
  type SiteFetcher,
  type SiteFetchResult,
  type SitemapDiscovery,
  type SitemapEntry,
  type SitemapOptions,
} from "./sitemaps.ts";
export {
  looksLikeTrap,
  normalizeUrl,
  SESSION_PARAMS,
  type SiteFilters,
  siteScope,
  TRAP_LIMITS,
} from "./url.ts";
