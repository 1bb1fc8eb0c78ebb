/**
 * Local stand-ins for the search providers, each answering in its documented format, errors included:
 *
 *   Brave Search API   GET  {url}/brave/res/v1/web/search   (X-Subscription-Token; count <= 20, offset <= 9, freshness)
 *   Tavily             POST {url}/tavily/search             (Authorization: Bearer; max_results <= 20, include/exclude_domains, start_date)
 *   SearXNG            GET  {url}/searxng/search?format=json (pageno; 10 results a page)
 *
 * Every query has the same 60 results (FAKE_CORPUS_SIZE), on three hosts in turn, dated 10 days apart back
 * from 2026-11-01 (every 7th has no date). Words in the query trigger failures:
 *   "fail"        the provider's documented error (Brave 429 RATE_LIMITED, Tavily 432 plan limit, SearXNG 403)
 *   "garbage"     200 with an HTML body          "wrongshape"  200 JSON that is not a search response
 *   "hang"        headers never come             "huge"        a 200 JSON body of about 300 KB
 *   "nothing"     no results                     "enginesdown" SearXNG: no results, every engine unresponsive
 *   "somedown"    SearXNG: results, and one engine unresponsive
 *   "forbidden"   SearXNG: 403, as an instance without the json format answers
 * Every request is recorded (`requests`) so tests can check how a search was mapped.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export const FAKE_KEYS = { brave: "brave-test-key", tavily: "tvly-test-key" };
export const FAKE_CORPUS_SIZE = 60;
export const FAKE_HOSTS = ["docs.alpha.example", "www.beta.example", "gamma.example"] as const;

export interface FakeHit {
  index: number;
  url: string;
  host: string;
  title: string;
  /** HTML as providers send it (tags and entities). */
  description: string;
  /** YYYY-MM-DD, or undefined for every 7th result. */
  date?: string;
}

export interface RecordedRequest {
  provider: "brave" | "tavily" | "searxng";
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  body?: Record<string, unknown>;
}

export interface FakeSearchProviders {
  url: string;
  braveUrl: string;
  tavilyUrl: string;
  searxngUrl: string;
  requests: RecordedRequest[];
  requestsOf(provider: RecordedRequest["provider"]): RecordedRequest[];
  close(): Promise<void>;
}

const BASE_DAY = Date.UTC(2026, 10, 1);
const DAY = 86_400_000;

/** The fake index's answer to any query, best first. */
export function fakeCorpus(query: string): FakeHit[] {
  const slug =
    query
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "")
      .slice(0, 40) || "q";
  return Array.from({ length: FAKE_CORPUS_SIZE }, (_, k) => {
    const index = k + 1;
    const host = FAKE_HOSTS[k % FAKE_HOSTS.length]!;
    return {
      index,
      host,
      url: `https://${host}/${slug}/${index}`,
      title: `Result ${index} &amp; more`,
      description: `About <strong>${query.replace(/[<&]/g, "")}</strong> &#x27;number&#x27; ${index}`,
      date: index % 7 === 0 ? undefined : new Date(BASE_DAY - index * 10 * DAY).toISOString().slice(0, 10),
    };
  });
}

const has = (q: string, word: string) => q.toLowerCase().split(/\W+/).includes(word);
const matchesDomain = (host: string, d: string) => host === d || host.endsWith(`.${d}`);

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** Failure modes every provider shares; true when the request was answered. */
function commonFailure(q: string, res: ServerResponse): boolean | "hang" {
  if (has(q, "hang")) return "hang";
  if (has(q, "garbage")) {
    res.writeHead(200, { "content-type": "text/html" });
    res.end("<html><body>Service temporarily unavailable</body></html>");
    return true;
  }
  if (has(q, "wrongshape")) {
    json(res, 200, { message: "hello", results: "not a list" });
    return true;
  }
  if (has(q, "huge")) {
    json(res, 200, { padding: "x".repeat(300_000), results: [] });
    return true;
  }
  return false;
}

function brave(q: URLSearchParams, headers: IncomingMessage["headers"], res: ServerResponse) {
  const err = (status: number, code: string, detail: string) =>
    json(res, status, {
      type: "ErrorResponse",
      error: { id: "3e2a7b1c-0000-4000-8000-000000000000", status, code, detail, meta: {} },
      time: Math.floor(Date.now() / 1000),
    });
  if (headers["x-subscription-token"] !== FAKE_KEYS.brave)
    return err(422, "SUBSCRIPTION_TOKEN_INVALID", "The provided subscription token is invalid.");
  const query = q.get("q") ?? "";
  if (!query) return err(422, "VALIDATION", "Unable to validate request parameter(s)");
  if (has(query, "fail")) return err(429, "RATE_LIMITED", "Request rate limit exceeded for plan.");
  const count = Number(q.get("count") ?? 20);
  const offset = Number(q.get("offset") ?? 0);
  if (count > 20 || offset > 9) return err(422, "VALIDATION", "Unable to validate request parameter(s)");
  let hits = has(query, "nothing") ? [] : fakeCorpus(query);
  const freshness = q.get("freshness");
  const range = freshness?.match(/^(\d{4}-\d{2}-\d{2})to(\d{4}-\d{2}-\d{2})$/);
  if (range) hits = hits.filter((h) => !h.date || (h.date >= range[1]! && h.date <= range[2]!));
  const page = hits.slice(offset * count, offset * count + count);
  json(res, 200, {
    type: "search",
    query: { original: query, more_results_available: hits.length > (offset + 1) * count },
    mixed: { type: "mixed", main: [] },
    web: {
      type: "search",
      family_friendly: true,
      results: page.map((h) => ({
        type: "search_result",
        title: h.title,
        url: h.url,
        is_source_local: false,
        description: h.description,
        ...(h.date ? { page_age: `${h.date}T08:30:00`, age: new Date(h.date).toUTCString() } : {}),
        language: "en",
        meta_url: { scheme: "https", netloc: h.host, hostname: h.host, path: "" },
      })),
    },
  });
}

function tavily(body: Record<string, unknown>, headers: IncomingMessage["headers"], res: ServerResponse) {
  const err = (status: number, error: string) => json(res, status, { detail: { error } });
  if (headers.authorization !== `Bearer ${FAKE_KEYS.tavily}`)
    return err(401, "Unauthorized: missing or invalid API key.");
  const query = typeof body.query === "string" ? body.query : "";
  if (query.length < 2) return err(400, "Query is too short. Min query length is 2 characters.");
  if (has(query, "fail"))
    return err(432, "This request exceeds your plan's set usage limit. Please upgrade your plan.");
  const max = typeof body.max_results === "number" ? body.max_results : 5;
  if (max < 0 || max > 20) return err(400, "max_results must be between 0 and 20");
  const include = (body.include_domains as string[] | undefined) ?? [];
  const exclude = (body.exclude_domains as string[] | undefined) ?? [];
  const start = typeof body.start_date === "string" ? body.start_date : undefined;
  const hits = (has(query, "nothing") ? [] : fakeCorpus(query))
    .filter((h) => !include.length || include.some((d) => matchesDomain(h.host, d)))
    .filter((h) => !exclude.some((d) => matchesDomain(h.host, d)))
    .filter((h) => !start || !h.date || h.date >= start)
    .slice(0, max);
  json(res, 200, {
    query,
    follow_up_questions: null,
    answer: null,
    images: [],
    results: hits.map((h, i) => ({
      url: h.url,
      title: h.title,
      content: h.description,
      score: Math.round((0.99 - i * 0.01) * 100) / 100,
      raw_content: null,
      ...(h.date ? { published_date: new Date(`${h.date}T10:00:00Z`).toUTCString() } : {}),
    })),
    response_time: "0.42",
    request_id: "123e4567-e89b-12d3-a456-426614174111",
  });
}

function searxng(q: URLSearchParams, res: ServerResponse) {
  // An instance without json in search.formats answers 403.
  if (q.get("format") !== "json" || has(q.get("q") ?? "", "forbidden")) {
    res.writeHead(403, { "content-type": "text/html" });
    res.end("<html><head><title>403 Forbidden</title></head><body><h1>Forbidden</h1></body></html>");
    return;
  }
  const query = q.get("q") ?? "";
  if (has(query, "fail")) {
    res.writeHead(429, { "content-type": "text/plain" });
    res.end("Too Many Requests");
    return;
  }
  const pageno = Number(q.get("pageno") ?? 1);
  const down = has(query, "enginesdown");
  const hits = has(query, "nothing") || down ? [] : fakeCorpus(query);
  // Pages overlap by one result, as merged engine pages do.
  const start = Math.max(0, (pageno - 1) * 10 - 1);
  json(res, 200, {
    query,
    number_of_results: 0,
    results: hits.slice(start, start + 10).map((h) => ({
      url: h.url,
      title: h.title,
      content: h.description,
      engine: "duckduckgo",
      parsed_url: ["https", h.host, `/${h.index}`, "", "", ""],
      template: "default.html",
      engines: ["duckduckgo", "brave"],
      positions: [h.index],
      publishedDate: h.date ? `${h.date}T00:00:00` : null,
      score: Math.round((10 - h.index * 0.1) * 100) / 100,
      category: "general",
    })),
    answers: [],
    corrections: [],
    infoboxes: [],
    suggestions: [],
    unresponsive_engines: down
      ? [
          ["google", "timeout"],
          ["bing", "CAPTCHA"],
        ]
      : has(query, "somedown")
        ? [["google", "timeout"]]
        : [],
  });
}

export async function startFakeSearchProviders(): Promise<FakeSearchProviders> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer(async (req, res) => {
    const u = new URL(req.url ?? "/", "http://fake.invalid");
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: Record<string, unknown> | undefined;
    if (chunks.length) {
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        body = undefined;
      }
    }
    const provider = u.pathname.startsWith("/brave/")
      ? "brave"
      : u.pathname.startsWith("/tavily/")
        ? "tavily"
        : u.pathname.startsWith("/searxng/")
          ? "searxng"
          : undefined;
    if (!provider) return json(res, 404, { error: "no such fake provider" });
    requests.push({
      provider,
      method: req.method ?? "GET",
      path: u.pathname,
      query: Object.fromEntries(u.searchParams),
      headers: req.headers,
      body,
    });
    const q = provider === "tavily" ? String(body?.query ?? "") : (u.searchParams.get("q") ?? "");
    const failed = commonFailure(q, res);
    if (failed === "hang") return; // never answers; the client's deadline ends it
    if (failed) return;
    if (provider === "brave" && req.method === "GET" && u.pathname === "/brave/res/v1/web/search")
      return brave(u.searchParams, req.headers, res);
    if (provider === "tavily" && req.method === "POST" && u.pathname === "/tavily/search")
      return tavily(body ?? {}, req.headers, res);
    if (provider === "searxng" && req.method === "GET" && u.pathname === "/searxng/search")
      return searxng(u.searchParams, res);
    json(res, 404, { error: "not found" });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    braveUrl: `${url}/brave`,
    tavilyUrl: `${url}/tavily`,
    searxngUrl: `${url}/searxng`,
    requests,
    requestsOf: (p) => requests.filter((r) => r.provider === p),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
