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

/** The "site" of a URL: lowercase hostname without a leading `www.` (and without a trailing dot). */
export function siteOf(url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
  host = host.replace(/\.+$/, "");
  if (host.startsWith("www.") && host.length > 4) host = host.slice(4);
  return host || undefined;
}

const NEEDS_KEY = "needs an API key: the keyless free allowance does not cover it";

/** Which counters a keyless call uses, or why the free allowance refuses it. */
export function allowanceFor(
  call: { route: AllowanceRoute; request: unknown },
  now: Date,
): AllowanceDecision {
  const day = utcDay(now);
  switch (call.route) {
    case "scrape":
      return scrapeAllowance(call.request, day);
    case "map":
      return { ok: true, buckets: [{ bucket: `map:${day}`, limit: ALLOWANCE.map.perDay }] };
    case "session":
      return { ok: true, buckets: [{ bucket: "session:ever", limit: ALLOWANCE.session.ever }] };
    case "act":
      return { ok: true, buckets: [{ bucket: "act:ever", limit: ALLOWANCE.act.ever }] };
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

function scrapeAllowance(request: unknown, day: string): AllowanceDecision {
  const body = (typeof request === "object" && request !== null ? request : {}) as Record<string, unknown>;
  const formats: unknown[] = Array.isArray(body.formats) ? body.formats : ["markdown"];
  if (formats.includes("json")) return { ok: false, reason: `scrape with the json format ${NEEDS_KEY}` };
  const free: readonly unknown[] = FREE_SCRAPE_FORMATS;
  const refused = formats.filter((f) => !free.includes(f)).map(String);
  if (refused.length > 0) {
    return {
      ok: false,
      reason:
        `the keyless free allowance does not cover the format${refused.length > 1 ? "s" : ""} ${refused.join(", ")}; ` +
        `it covers ${FREE_SCRAPE_FORMATS.join(", ")}. Use an API key for the others`,
    };
  }
  const daily: AllowanceBucket = { bucket: `scrape:${day}`, limit: ALLOWANCE.scrape.perDay };
  if (typeof body.url !== "string") return { ok: true, buckets: [daily] };
  const site = siteOf(body.url);
  if (site === undefined) return { ok: false, reason: "url is not an absolute URL" };
  return {
    ok: true,
    buckets: [daily, { bucket: `scrape-site:${site}:${day}`, limit: ALLOWANCE.scrape.perSitePerDay }],
  };
}
