import { normalizeUrl } from "@browserfleet/site";
import { getDomain } from "tldts";

/**
 * The keyless free allowance (spec, Limits): what an MCP caller with no key and no account may do for free.
 * Each limit is its own counter, not a shared pool. Days are UTC calendar days. Pure: no I/O, no clock.
 */

/** Routes the allowance decides on. Job status, job cancel, session close, feedback and GETs are never counted. */
export type AllowanceRoute = "scrape" | "map" | "session" | "act" | "search" | "crawl" | "batch";

export interface AllowanceBucket {
  /** Counter name, e.g. `scrape:2026-11-22`, `scrape-site:example.com:2026-11-22`, `session:ever`. */
  bucket: string;
  /** How many units the counter may reach. */
  limit: number;
  /** Units this call takes (an act: one per action). Default 1. */
  units?: number;
  /**
   * The counter counts distinct members (the pages of a site): a member this client already has in the
   * counter takes no unit again.
   */
  member?: string;
  /** When the counter stops mattering (the end of its UTC day), so it can be swept. None: never. */
  expiresAt?: Date;
}

export type AllowanceDecision = { ok: true; buckets: AllowanceBucket[] } | { ok: false; reason: string };

/** Scrape outputs the free allowance covers. */
export const FREE_SCRAPE_FORMATS = [
  "markdown",
  "html",
  "links",
  "controls",
  "accessibility",
  "elements",
] as const;

/** The spec's table as data, so docs and route descriptions can print it. */
export const ALLOWANCE = {
  scrape: { perDay: 10, perSitePerDay: 3, formats: FREE_SCRAPE_FORMATS },
  map: { perDay: 10 },
  session: { ever: 1 },
  act: { ever: 10 },
  search: { ever: 5 },
  needKey: ["crawl", "batch scrape", "scrape with json"],
  unlimited: [
    "job status",
    "job cancel",
    "session close",
    "feedback",
    "GET on any route",
    "MCP initialize",
    "tools/list",
  ],
} as const;

/** The same table, one row per route, worded as the spec words it. */
export const ALLOWANCE_TABLE: ReadonlyArray<{ route: string; allowance: string }> = [
  {
    route: "scrape",
    allowance: `${ALLOWANCE.scrape.perDay} a day; at most ${ALLOWANCE.scrape.perSitePerDay} pages of the same site; outputs ${FREE_SCRAPE_FORMATS.join(", ")}`,
  },
  { route: "map", allowance: `${ALLOWANCE.map.perDay} a day` },
  { route: "session open", allowance: `${ALLOWANCE.session.ever}, ever` },
  { route: "act", allowance: `${ALLOWANCE.act.ever}, ever` },
  { route: "search", allowance: `${ALLOWANCE.search.ever}, ever` },
  { route: ALLOWANCE.needKey.join(", "), allowance: "need a key" },
  { route: "job status, job cancel, session close, feedback", allowance: "unlimited" },
  { route: "GET on any route, MCP initialize, tools/list", allowance: "unlimited" },
];

/** The UTC calendar day of `now`, as YYYY-MM-DD. */
export function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** The first instant of the UTC day after `now`: when that day's counters stop mattering. */
export function endOfUtcDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/**
 * The "site" of a URL: its registrable domain by the Public Suffix List, private section included
 * (`a.blog.example.co.uk` is `example.co.uk`, `foo.github.io` is itself), so subdomains share a site.
 * An IP address, `localhost` or another name without a public suffix is its own site.
 */
export function siteOf(url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
  host = host.replace(/\.+$/, "");
  if (!host) return undefined;
  return getDomain(host, { allowPrivateDomains: true }) ?? host;
}

/** The page a URL names, as the allowance counts pages: normalized (no fragment, no session ids). */
export function pageOf(url: string): string | undefined {
  return normalizeUrl(url);
}

const NEEDS_KEY = "needs an API key: the keyless free allowance does not cover it";

/** Which counters a keyless call uses, or why the free allowance refuses it. */
export function allowanceFor(
  call: { route: AllowanceRoute; request: unknown },
  now: Date,
): AllowanceDecision {
  const day = utcDay(now);
  const expiresAt = endOfUtcDay(now);
  switch (call.route) {
    case "scrape":
      return scrapeAllowance(call.request, day, expiresAt);
    case "map":
      return { ok: true, buckets: [{ bucket: `map:${day}`, limit: ALLOWANCE.map.perDay, expiresAt }] };
    case "session": {
      const refused = unfreeFormats(fieldsOf(call.request).formats, ["controls"], "a session");
      if (refused) return refused;
      return { ok: true, buckets: [{ bucket: "session:ever", limit: ALLOWANCE.session.ever }] };
    }
    case "act": {
      const body = fieldsOf(call.request);
      const refused = unfreeFormats(body.formats, [], "an act");
      if (refused) return refused;
      const units = Array.isArray(body.actions) ? Math.max(1, body.actions.length) : 1;
      return { ok: true, buckets: [{ bucket: "act:ever", limit: ALLOWANCE.act.ever, units }] };
    }
    case "search":
      return { ok: true, buckets: [{ bucket: "search:ever", limit: ALLOWANCE.search.ever }] };
    case "crawl":
      return { ok: false, reason: `crawl ${NEEDS_KEY}` };
    case "batch":
      return { ok: false, reason: `batch scrape ${NEEDS_KEY}` };
    default: {
      const route: never = call.route;
      return { ok: false, reason: `${String(route)} ${NEEDS_KEY}` };
    }
  }
}

const fieldsOf = (request: unknown) =>
  (typeof request === "object" && request !== null ? request : {}) as Record<string, unknown>;

/**
 * Why the free allowance refuses these formats, if it does: json needs a key, and sessions and acts give
 * only what the free scrape gives (no screenshot, no pdf). `fallback` is the route's default formats.
 */
function unfreeFormats(
  requested: unknown,
  fallback: readonly string[],
  what: string,
): { ok: false; reason: string } | undefined {
  const formats: unknown[] = Array.isArray(requested) ? requested : [...fallback];
  if (formats.includes("json")) return { ok: false, reason: `${what} with the json format ${NEEDS_KEY}` };
  const free: readonly unknown[] = FREE_SCRAPE_FORMATS;
  const refused = formats.filter((f) => !free.includes(f)).map(String);
  if (refused.length === 0) return undefined;
  return {
    ok: false,
    reason:
      `the keyless free allowance does not cover the format${refused.length > 1 ? "s" : ""} ${refused.join(", ")}; ` +
      `it covers ${FREE_SCRAPE_FORMATS.join(", ")}. Use an API key for the others`,
  };
}

function scrapeAllowance(request: unknown, day: string, expiresAt: Date): AllowanceDecision {
  const body = fieldsOf(request);
  const refused = unfreeFormats(body.formats, ["markdown"], "scrape");
  if (refused) return refused;
  const daily: AllowanceBucket = { bucket: `scrape:${day}`, limit: ALLOWANCE.scrape.perDay, expiresAt };
  if (typeof body.url !== "string") return { ok: true, buckets: [daily] };
  const site = siteOf(body.url);
  const page = pageOf(body.url);
  if (site === undefined || page === undefined) return { ok: false, reason: "url is not an absolute URL" };
  return {
    ok: true,
    buckets: [
      daily,
      {
        bucket: `scrape-site:${site}:${day}`,
        limit: ALLOWANCE.scrape.perSitePerDay,
        member: page,
        expiresAt,
      },
    ],
  };
}
