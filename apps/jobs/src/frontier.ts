import type { CrawlRequest } from "@browserfleet/contracts";
import type { JobPageRow, JobRow, NewPage } from "@browserfleet/job-store";
import { looksLikeTrap, normalizeUrl, robotsRules, siteScope } from "@browserfleet/site";

export type Robots = ReturnType<typeof robotsRules>;

/** What a crawl job may take in: its site filters and its robots.txt. Built once per job and kept. */
export interface CrawlRules {
  inScope: (url: string) => boolean;
  robots: Robots;
  maxDepth: number;
}

export function crawlRules(job: JobRow): CrawlRules {
  const req = job.request as CrawlRequest;
  const origin = new URL(req.url).origin;
  return {
    inScope: siteScope(req.url, req),
    robots: robotsRules(`${origin}/robots.txt`, job.robotsTxt || undefined),
    maxDepth: req.maxDepth,
  };
}

/**
 * The pages a finished crawl page leads to, in the order its links appear: normalized, de-duplicated,
 * within the site and its filters, allowed by robots.txt, not an obvious trap, and not deeper than maxDepth.
 */
export function nextPages(
  rules: CrawlRules,
  userAgent: string,
  page: Pick<JobPageRow, "depth">,
  links: string[],
): NewPage[] {
  if (page.depth >= rules.maxDepth) return [];
  const out: NewPage[] = [];
  const seen = new Set<string>();
  for (const link of links) {
    const key = normalizeUrl(link);
    if (key === undefined || seen.has(key)) continue;
    seen.add(key);
    if (!rules.inScope(key) || looksLikeTrap(key) !== undefined) continue;
    if (!rules.robots.isAllowed(key, userAgent)) continue;
    out.push({ url: key, urlKey: key, depth: page.depth + 1 });
  }
  return out;
}
