import type { FetchReply, FetchTask } from "@browserfleet/contracts";
import { failureOf } from "../errors.ts";
import type { GuardProxy } from "../net/guard-proxy.ts";
import { guardedFetch } from "../net/guarded-fetch.ts";

/**
 * One small text resource (robots.txt) fetched without a browser through the SSRF guard: at most
 * `maxBytes` (the rest is cut and `truncated` says so), redirects followed, any status answered as it is.
 */
export async function runFetchTask(proxy: GuardProxy, task: FetchTask): Promise<FetchReply> {
  const left = task.deadline - Date.now();
  if (left <= 0)
    return {
      ok: false,
      error: { code: "timeout", message: `no time left to fetch ${task.url}`, status: 504 },
    };
  try {
    const res = await guardedFetch(proxy, task.url, {
      maxBytes: Math.max(1, task.maxBytes),
      timeoutMs: left,
      userAgent: task.userAgent,
      overflow: "truncate",
    });
    return {
      ok: true,
      status: res.status,
      ...(res.contentType ? { contentType: res.contentType } : {}),
      body: res.body.toString("utf8"),
      finalUrl: res.finalUrl,
      truncated: res.truncated,
    };
  } catch (err) {
    return { ok: false, error: failureOf(err) };
  }
}
