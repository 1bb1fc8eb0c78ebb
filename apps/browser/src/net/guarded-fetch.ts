import { gunzipSync } from "node:zlib";
import { ProxyAgent, request } from "undici";
import { BrowserError } from "../errors.ts";
import type { GuardProxy } from "./guard-proxy.ts";

/**
 * Fetches without a browser (documents, robots.txt, sitemaps) through the worker's SSRF guard proxy,
 * so every hop, redirects included, passes the same address check Chromium's traffic does.
 */
export interface FetchOptions {
  maxBytes: number;
  timeoutMs: number;
  userAgent?: string;
  headers?: Record<string, string>;
  /** "truncate": keep the first maxBytes and say so; "fail": throw `too_large`. */
  overflow: "truncate" | "fail";
  maxRedirects?: number;
  signal?: AbortSignal;
}

export interface Fetched {
  status: number;
  contentType?: string;
  finalUrl: string;
  body: Buffer;
  truncated: boolean;
}

const agents = new WeakMap<GuardProxy, ProxyAgent>();

function agentFor(proxy: GuardProxy): ProxyAgent {
  let agent = agents.get(proxy);
  if (!agent) {
    // proxyTunnel false: plain http goes as an absolute-form request, which the guard checks per request.
    agent = new ProxyAgent({ uri: proxy.url, proxyTunnel: false });
    agents.set(proxy, agent);
  }
  return agent;
}

export async function guardedFetch(proxy: GuardProxy, url: string, opts: FetchOptions): Promise<Fetched> {
  const signal = opts.signal
    ? AbortSignal.any([opts.signal, AbortSignal.timeout(opts.timeoutMs)])
    : AbortSignal.timeout(opts.timeoutMs);
  let current = url;
  let headers: Record<string, string> = {
    "user-agent": opts.userAgent ?? "Browserfleet",
    "accept-encoding": "identity",
    ...opts.headers,
  };
  for (let hop = 0; hop <= (opts.maxRedirects ?? 5); hop++) {
    let res: Awaited<ReturnType<typeof request>>;
    try {
      res = await request(current, {
        dispatcher: agentFor(proxy),
        method: "GET",
        headers,
        signal,
      });
    } catch (err) {
      const refused = proxy.refusalFor(current);
      if (refused) throw new BrowserError("ssrf_blocked", 400, refused.message);
      if (signal.aborted)
        throw new BrowserError("timeout", 504, `no answer from ${current} within ${opts.timeoutMs} ms`);
      throw new BrowserError("upstream_failed", 502, `could not fetch ${current}: ${(err as Error).message}`);
    }
    const header = (name: string) => {
      const v = res.headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    if (res.statusCode === 403 && header("x-fleet-blocked")) {
      await res.body.dump();
      throw new BrowserError(
        "ssrf_blocked",
        400,
        proxy.refusalFor(current)?.message ??
          `refusing to fetch ${current}: it resolves to a blocked address`,
      );
    }
    const location = header("location");
    if (res.statusCode >= 300 && res.statusCode < 400 && location) {
      await res.body.dump();
      const next = new URL(location, current);
      // Credentials go only to the origin they were meant for, as browsers do on a cross-origin redirect.
      if (next.origin !== new URL(current).origin) headers = withoutCredentials(headers);
      current = next.href;
      continue;
    }
    const chunks: Buffer[] = [];
    let bytes = 0;
    let truncated = false;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > opts.maxBytes) {
        if (opts.overflow === "fail") {
          res.body.destroy();
          throw new BrowserError("too_large", 413, `${current} is larger than ${opts.maxBytes} bytes`);
        }
        chunks.push(chunk.subarray(0, chunk.length - (bytes - opts.maxBytes)));
        truncated = true;
        res.body.destroy();
        break;
      }
      chunks.push(chunk);
    }
    return {
      status: res.statusCode,
      contentType: header("content-type"),
      finalUrl: current,
      body: Buffer.concat(chunks),
      truncated,
    };
  }
  throw new BrowserError("upstream_failed", 502, `too many redirects from ${url}`);
}

const CREDENTIAL_HEADERS = new Set(["cookie", "authorization", "proxy-authorization"]);
const withoutCredentials = (h: Record<string, string>) =>
  Object.fromEntries(Object.entries(h).filter(([k]) => !CREDENTIAL_HEADERS.has(k.toLowerCase())));

/** gunzip with an output cap, so a small gzip bomb cannot take the worker's memory. */
export function gunzipBounded(data: Buffer, maxBytes: number): Buffer {
  return gunzipSync(data, { maxOutputLength: maxBytes });
}
