/**
 * Query parameters that carry a session id rather than an address: dropped by `normalizeUrl` so the
 * same page reached under two sessions collapses to one URL. Compared case-insensitively.
 */
export const SESSION_PARAMS: ReadonlySet<string> = new Set([
  "jsessionid",
  "phpsessid",
  "sid",
  "sessionid",
  "session_id",
  "cfid",
  "cftoken",
  "aspsessionid",
]);

/** `;jsessionid=...` style path parameters (Java servlets and friends). */
const SESSION_PATH_PARAM = /;(?:jsessionid|phpsessid|sid|sessionid|session_id)=[^/;?#]*/gi;

/**
 * One spelling per address, so URLs from sitemaps and pages can be compared and de-duplicated.
 *
 * - `raw` is resolved against `base` when given; only absolute http: and https: URLs come out
 *   (mailto:, javascript:, data:, tel:, ftp:, unparsable input: undefined);
 * - the fragment is dropped, the default port is dropped, the host is lower-cased and IDN hosts are
 *   turned into ASCII (punycode), dot segments are resolved and an empty path becomes "/" (all as the
 *   WHATWG URL parser does);
 * - session ids are dropped: the query parameters named in `SESSION_PARAMS` (any case) and
 *   `;jsessionid=...` path parameters; the other query parameters keep their order and spelling, and
 *   an empty query ("?" alone, or only session ids) is removed.
 */
export function normalizeUrl(raw: string, base?: string): string | undefined {
  let u: URL;
  try {
    u = base === undefined ? new URL(raw.trim()) : new URL(raw.trim(), base);
  } catch {
    return undefined;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return undefined;
  if (!u.hostname) return undefined;
  u.hash = "";
  if (u.pathname.includes(";")) u.pathname = u.pathname.replace(SESSION_PATH_PARAM, "");
  if (u.search) {
    const kept = u.search
      .slice(1)
      .split("&")
      .filter((pair) => {
        if (pair === "") return false;
        const eq = pair.indexOf("=");
        const name = eq < 0 ? pair : pair.slice(0, eq);
        let decoded = name;
        try {
          decoded = decodeURIComponent(name.replace(/\+/g, " "));
        } catch {}
        return !SESSION_PARAMS.has(decoded.toLowerCase());
      });
    u.search = kept.length > 0 ? `?${kept.join("&")}` : "";
  }
  let href = u.href;
  // `new URL("http://a/?")` keeps a bare "?" that assigning "" to search would remove.
  if (href.endsWith("?")) href = href.slice(0, -1);
  return href;
}

export interface SiteFilters {
  includeSubdomains?: boolean;
  includePaths?: string[];
  excludePaths?: string[];
  search?: string;
}

const bareHost = (hostname: string) => hostname.replace(/^www\./, "");

/**
 * Which URLs belong to the site started at `startUrl`, after the caller's filters. A URL is kept when
 * all of these hold:
 *
 * 1. It is an absolute http(s) URL (after `normalizeUrl`). http and https count as the same site.
 * 2. Its host is the start URL's host, where a leading `www.` on either side is ignored
 *    (`www.example.com` and `example.com` are one site) and the port must match (a default port is no
 *    port). With `includeSubdomains`, any subdomain of the start host without its `www.` is kept too:
 *    from `www.example.com`, `blog.example.com` and `a.b.example.com` are in, `example.org` and
 *    `notexample.com` are out; from `blog.example.com`, `x.blog.example.com` is in, `example.com` out.
 * 3. `includePaths` (when given and not empty): its path contains at least one of them, as a
 *    case-sensitive substring of the percent-encoded path (`"/blog"` keeps `/blog/a` and `/en/blog`).
 * 4. `excludePaths`: its path contains none of them (same matching); exclusion wins over inclusion.
 * 5. `search`: the whole URL contains this text, case-insensitively, either as written or with its
 *    percent-escapes decoded (`"café"` finds `/caf%C3%A9`).
 */
export function siteScope(startUrl: string, filters: SiteFilters): (url: string) => boolean {
  const start = normalizeUrl(startUrl);
  if (!start) return () => false;
  const s = new URL(start);
  const home = bareHost(s.hostname);
  const port = s.port;
  const includes = filters.includePaths?.filter((p) => p.length > 0) ?? [];
  const excludes = filters.excludePaths?.filter((p) => p.length > 0) ?? [];
  const needle = filters.search?.toLowerCase();
  return (url: string) => {
    const n = normalizeUrl(url);
    if (!n) return false;
    const u = new URL(n);
    if (u.port !== port) return false;
    const host = bareHost(u.hostname);
    if (host !== home && !(filters.includeSubdomains && host.endsWith(`.${home}`))) return false;
    const path = u.pathname;
    if (includes.length > 0 && !includes.some((p) => path.includes(p))) return false;
    if (excludes.some((p) => path.includes(p))) return false;
    if (needle) {
      const lower = n.toLowerCase();
      if (!lower.includes(needle)) {
        let decoded = lower;
        try {
          decoded = decodeURIComponent(lower);
        } catch {}
        if (!decoded.includes(needle)) return false;
      }
    }
    return true;
  };
}

export const TRAP_LIMITS = {
  maxUrlLength: 2048,
  maxPathSegments: 12,
  maxSegmentRepeats: 2,
  maxQueryParams: 10,
  /** Calendar dates more than this many years ahead of now. */
  maxYearsAhead: 3,
  /** Calendar dates before this year (a calendar paged backwards). */
  minYear: 1900,
} as const;

const YEAR_MONTH = /^(\d{4})-(\d{1,2})(?:-\d{1,2})?$/;
const MONTH = /^(\d{1,2})$/;

/** The years of calendar-looking dates in a path and query: /2031/05, /2031-05, ?date=2031-05-01, ?year=2031. */
function calendarYears(u: URL, segments: string[]): number[] {
  const years: number[] = [];
  segments.forEach((seg, i) => {
    const ym = YEAR_MONTH.exec(seg);
    if (ym && Number(ym[2]) >= 1 && Number(ym[2]) <= 12) years.push(Number(ym[1]));
    else if (/^\d{4}$/.test(seg)) {
      const month = MONTH.exec(segments[i + 1] ?? "");
      if (month && Number(month[1]) >= 1 && Number(month[1]) <= 12) years.push(Number(seg));
    }
  });
  for (const [key, value] of u.searchParams) {
    const ym = YEAR_MONTH.exec(value);
    if (ym && Number(ym[2]) >= 1 && Number(ym[2]) <= 12) years.push(Number(ym[1]));
    else if (/^(year|yr|y)$/i.test(key) && /^\d{4}$/.test(value)) years.push(Number(value));
  }
  return years;
}

/**
 * A reason when a URL looks like a crawler trap (an endless family of generated URLs), else undefined.
 * It only spares obvious waste; a crawl's limit and maxDepth stay the real bound. The rules:
 *
 * - longer than 2048 characters;
 * - more than 12 path segments;
 * - the same non-numeric path segment 3 or more times (`/a/b/a/b/a/`: relative links resolved
 *   against themselves); numbers are left out, they repeat naturally in dates and ids;
 * - more than 10 query parameters (faceted search combinations);
 * - a calendar date (`/2031/05`, `/2031-05-01`, `?date=2031-05`, `?year=2031`) more than 3 years
 *   ahead of `now`, or before 1900: a calendar's "next month" / "previous month" links go forever.
 */
export function looksLikeTrap(url: string, now: number = Date.now()): string | undefined {
  if (url.length > TRAP_LIMITS.maxUrlLength)
    return `the URL is ${url.length} characters long (more than ${TRAP_LIMITS.maxUrlLength})`;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  const segments = u.pathname.split("/").filter((s) => s.length > 0);
  if (segments.length > TRAP_LIMITS.maxPathSegments)
    return `the path is ${segments.length} segments deep (more than ${TRAP_LIMITS.maxPathSegments})`;
  const counts = new Map<string, number>();
  for (const seg of segments) {
    if (/^\d+$/.test(seg)) continue;
    const key = seg.toLowerCase();
    const n = (counts.get(key) ?? 0) + 1;
    counts.set(key, n);
    if (n > TRAP_LIMITS.maxSegmentRepeats) return `the path segment "${seg}" repeats ${n} times`;
  }
  const params = u.search.length > 1 ? u.search.slice(1).split("&").filter(Boolean).length : 0;
  if (params > TRAP_LIMITS.maxQueryParams)
    return `the query has ${params} parameters (more than ${TRAP_LIMITS.maxQueryParams})`;
  const thisYear = new Date(now).getUTCFullYear();
  for (const year of calendarYears(u, segments)) {
    if (year > thisYear + TRAP_LIMITS.maxYearsAhead)
      return `a calendar date in ${year}, more than ${TRAP_LIMITS.maxYearsAhead} years ahead`;
    if (year < TRAP_LIMITS.minYear) return `a calendar date in ${year}, before ${TRAP_LIMITS.minYear}`;
  }
  return undefined;
}
