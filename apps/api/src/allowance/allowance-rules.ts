import { normalizeUrl } from "@browserfleet/site";
import { getDomain } from "tldts";

/**
 * The keyless free allowance (spec, Limits): what an MCP caller with no key and no account may do for free.
 * Each limit is its own counter, not a shared pool. Days are UTC calendar days. Pure: no I/O, no clock.
 */

/**
 * An operation's keyless allowance: its name (its counters', usage rows' and money metrics'), the rule in
 * the spec's words, and which counters a call uses or why the allowance refuses it. The operation carries
 * it (defineOperation's `priced.allowance`); a new operation picks one of the rules below.
 */
export interface AllowanceRule {
  name: string;
  words: string;
  /** How many calls (or units) the rule's main counter allows; 0 when the allowance never covers it. */
  limit: number;
  decide(request: unknown, now: Date): AllowanceDecision;
}

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

/** Why the free allowance refuses the way out a call names, if it does: a chosen pool or the caller's own proxy. */
function unfreeProxy(proxy: unknown, what: string): { ok: false; reason: string } | undefined {
  if (proxy === undefined || proxy === "auto" || proxy === "none") return undefined;
  return { ok: false, reason: `${what} through a chosen proxy ${NEEDS_KEY}` };
}

/** What a counted call may ask for beyond being counted. */
interface Counted {
  /** Names the call in a refusal: "a session". */
  what: string;
  /** The call takes formats (these by default): only the free scrape's, never json. */
  formats?: readonly string[];
  /** Units a call takes (an act: one per action); 1 by default. */
  units?: (body: Record<string, unknown>) => number;
}

function counted(
  name: string,
  limit: number,
  words: string,
  opts: Counted,
  bucket: (now: Date) => Pick<AllowanceBucket, "bucket" | "expiresAt">,
): AllowanceRule {
  return {
    name,
    words,
    limit,
    decide(request, now) {
      const body = fieldsOf(request);
      if (body.profile !== undefined)
        return {
          ok: false,
          reason: `${opts.what} with a profile ${NEEDS_KEY}: a profile belongs to an account`,
        };
      if (body.record === true)
        return {
          ok: false,
          reason: `${opts.what} with a recording ${NEEDS_KEY}: a recording is stored for days`,
        };
      const viaProxy = unfreeProxy(body.proxy, opts.what);
      if (viaProxy) return viaProxy;
      if (opts.formats) {
        const refused = unfreeFormats(body.formats, opts.formats, opts.what);
        if (refused) return refused;
      }
      const units = opts.units?.(body);
      return { ok: true, buckets: [{ ...bucket(now), limit, ...(units !== undefined ? { units } : {}) }] };
    },
  };
}

/** `limit` calls a UTC day. */
export const perDay = (name: string, limit: number, opts: Counted): AllowanceRule =>
  counted(name, limit, `${limit} a day`, opts, (now) => ({
    bucket: `${name}:${utcDay(now)}`,
    expiresAt: endOfUtcDay(now),
  }));

/** `limit` calls (or units) in all, ever. */
export const ever = (name: string, limit: number, opts: Counted): AllowanceRule =>
  counted(name, limit, `${limit}, ever`, opts, () => ({ bucket: `${name}:ever` }));

/** Never free: the call needs a key (spec: crawl, batch scrape). */
export const needsKey = (name: string, what: string): AllowanceRule => ({
  name,
  words: "needs a key",
  limit: 0,
  decide: () => ({ ok: false, reason: `${what} ${NEEDS_KEY}` }),
});

/**
 * Scrape's own rule: `perDay` calls a day, and at most `perSite` distinct pages of one site a day (a page
 * already counted takes no unit again), in the free scrape's formats.
 */
export function scrapeAllowance(perDayLimit: number, perSite: number): AllowanceRule & { perSite: number } {
  return {
    name: "scrape",
    words: `${perDayLimit} a day; at most ${perSite} pages of the same site; outputs ${FREE_SCRAPE_FORMATS.join(", ")}`,
    limit: perDayLimit,
    perSite,
    decide(request, now) {
      const body = fieldsOf(request);
      const refused =
        unfreeFormats(body.formats, ["markdown"], "scrape") ?? unfreeProxy(body.proxy, "a scrape");
      if (refused) return refused;
      const day = utcDay(now);
      const expiresAt = endOfUtcDay(now);
      const daily: AllowanceBucket = { bucket: `scrape:${day}`, limit: perDayLimit, expiresAt };
      if (typeof body.url !== "string") return { ok: true, buckets: [daily] };
      const site = siteOf(body.url);
      const page = pageOf(body.url);
      if (site === undefined || page === undefined)
        return { ok: false, reason: "url is not an absolute URL" };
      return {
        ok: true,
        buckets: [daily, { bucket: `scrape-site:${site}:${day}`, limit: perSite, member: page, expiresAt }],
      };
    },
  };
}
