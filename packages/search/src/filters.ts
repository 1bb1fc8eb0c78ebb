import type { SearchRequest } from "@browserfleet/contracts";

/** The host of an http(s) URL, lowercased; undefined for anything else. */
export function hostOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    if (u.protocol !== "http:" && u.protocol !== "https:") return undefined;
    return u.hostname.toLowerCase().replace(/\.$/, "");
  } catch {
    return undefined;
  }
}

/** A domain filter entry matches the host itself and its subdomains (example.com: www.example.com too). */
export function domainMatches(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/** When `since` starts, as epoch ms (a date means its UTC midnight). */
export function sinceMs(since: string): number {
  return Date.parse(since.length === 10 ? `${since}T00:00:00Z` : since);
}

/** The YYYY-MM-DD day of `since` (UTC). */
export function sinceDay(since: string): string {
  return new Date(sinceMs(since)).toISOString().slice(0, 10);
}

/**
 * A provider's date as ISO 8601, or undefined when it is missing or not a date ("3 days ago"). A date-time
 * without a zone is read as UTC.
 */
export function isoDate(value: unknown): string | undefined {
  if (typeof value !== "string" || value.trim() === "") return undefined;
  let v = value.trim();
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(v)) v += "Z";
  else if (/^\d{4}-\d{2}-\d{2}$/.test(v)) v += "T00:00:00Z";
  const ms = Date.parse(v);
  if (Number.isNaN(ms)) return undefined;
  const year = new Date(ms).getUTCFullYear();
  if (year < 1990 || year > 3000) return undefined;
  return new Date(ms).toISOString();
}

/** Whether a result passes the request's domain and date filters. Unknown dates pass `since`. */
export function passes(
  req: Pick<SearchRequest, "domains" | "excludeDomains" | "since">,
  host: string,
  publishedAt: string | undefined,
): boolean {
  if (req.domains?.length && !req.domains.some((d) => domainMatches(host, d))) return false;
  if (req.excludeDomains?.some((d) => domainMatches(host, d))) return false;
  if (req.since && publishedAt && Date.parse(publishedAt) < sinceMs(req.since)) return false;
  return true;
}

/**
 * `site:` operators for the providers whose query language has them: one domain as `site:a`, several as
 * `(site:a OR site:b)`, exclusions as `-site:c`. Empty when there is nothing to add.
 */
export function siteOperators(req: Pick<SearchRequest, "domains" | "excludeDomains">): string {
  const parts: string[] = [];
  const inc = req.domains ?? [];
  if (inc.length === 1) parts.push(`site:${inc[0]}`);
  else if (inc.length > 1) parts.push(`(${inc.map((d) => `site:${d}`).join(" OR ")})`);
  for (const d of req.excludeDomains ?? []) parts.push(`-site:${d}`);
  return parts.join(" ");
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** Snippets as plain text: tags dropped (Brave's <strong>), entities decoded, whitespace folded, capped. */
export function plainText(value: unknown, max = 2000): string | undefined {
  if (typeof value !== "string") return undefined;
  const text = value
    .replace(/<[^>]*>/g, "")
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
      if (e[0] === "#") {
        const code = e[1] === "x" || e[1] === "X" ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1));
        return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : m;
      }
      return ENTITIES[e.toLowerCase()] ?? m;
    })
    .replace(/\s+/g, " ")
    .trim();
  if (text === "") return undefined;
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
