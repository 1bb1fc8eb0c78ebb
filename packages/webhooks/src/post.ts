import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { type AllowList, checkUrl, type LookupFn, SsrfError } from "@browserfleet/ssrf";
import type { AttemptOutcome } from "./retry.ts";

export interface PostOptions {
  allow: AllowList;
  timeoutMs: number;
  /** For tests: the resolver the SSRF check uses. */
  lookup?: LookupFn;
}

/** What of a receiver's answer is read: enough to see it out, never more. */
const MAX_ANSWER_BYTES = 64 * 1024;
const USER_AGENT = "Browserfleet-Webhooks/1";

/**
 * POST one delivery. The URL passes the SSRF check first, after DNS, and the connection goes to the address
 * that was checked (no second lookup a rebinding name could turn). Redirects are not followed (a 3xx is an
 * answer like any other); the answer's body is read up to 64 KB and dropped; the whole attempt is bounded by
 * `timeoutMs`.
 */
export async function postEvent(
  url: string,
  headers: Record<string, string>,
  body: string,
  opts: PostOptions,
): Promise<AttemptOutcome> {
  const started = performance.now();
  const ms = () => performance.now() - started;
  let addresses: string[];
  try {
    ({ addresses } = await checkUrl(url, {
      allow: opts.allow,
      ...(opts.lookup ? { lookup: opts.lookup } : {}),
    }));
  } catch (err) {
    if (err instanceof SsrfError && err.code !== "unresolvable")
      return { kind: "refused", error: err.message, ms: ms() };
    return { kind: "unanswered", error: (err as Error).message, ms: ms() };
  }
  const target = new URL(url);
  const pinned = addresses[0];
  const client = target.protocol === "https:" ? https : http;
  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    const done = (o: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(o);
    };
    const req = client.request(
      target,
      {
        method: "POST",
        headers: {
          ...headers,
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(body)),
          "user-agent": USER_AGENT,
        },
        agent: false,
        // The checked address, whatever the name resolves to now (an allow-listed name was not resolved).
        ...(pinned
          ? {
              lookup: (
                _host: string,
                options: { all?: boolean },
                cb: (
                  err: Error | null,
                  address: string | { address: string; family: number }[],
                  family?: number,
                ) => void,
              ) => {
                const family = isIP(pinned);
                if (options.all) cb(null, [{ address: pinned, family }]);
                else cb(null, pinned, family);
              },
            }
          : {}),
      },
      (res) => {
        let read = 0;
        res.on("data", (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) res.destroy();
        });
        const answered = () =>
          done({
            kind: "answered",
            status: res.statusCode ?? 0,
            retryAfter: res.headers["retry-after"],
            ms: ms(),
          });
        res.on("end", answered);
        res.on("close", answered);
        res.on("error", answered);
      },
    );
    const timer = setTimeout(() => {
      req.destroy(new Error(`no answer within ${opts.timeoutMs} ms`));
    }, opts.timeoutMs);
    req.on("error", (err) => done({ kind: "unanswered", error: err.message, ms: ms() }));
    req.end(body);
  });
}
