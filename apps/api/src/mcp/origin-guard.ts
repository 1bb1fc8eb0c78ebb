import { isIP } from "node:net";
import type { NextFunction, Request, Response } from "express";

export interface OriginPolicy {
  /** The api listens on a loopback address only: then the Host header must name loopback too. */
  loopbackOnly: boolean;
  /** Browser origins allowed to call /mcp besides the api's own (MCP_ALLOWED_ORIGINS); "*" allows any. */
  allowedOrigins: readonly string[];
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** The host name of a Host header value (`name:port`, `[v6]:port`), lower-cased. */
function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (isIP(h)) return h;
  if (h.startsWith("[")) return h.slice(0, h.indexOf("]") + 1);
  return h.replace(/:\d+$/, "");
}

const isLoopbackName = (name: string) =>
  LOOPBACK_NAMES.has(name) || (isIP(name) === 4 && name.startsWith("127."));

export const isLoopbackBind = (bindHost: string) => isLoopbackName(hostName(bindHost));

/**
 * Whether a request to /mcp may proceed. Agents and SDK clients send no Origin and pass. A browser
 * page may call only from the api's own origin or an allowed one, so a web page the caller happens to
 * visit cannot drive their tools. A server on loopback also refuses a foreign Host: that is DNS
 * rebinding (evil.example resolving to 127.0.0.1), where the page's origin and Host agree.
 */
export function originVerdict(
  headers: { host?: string; origin?: string },
  policy: OriginPolicy,
): { ok: true } | { ok: false; reason: string } {
  const host = headers.host ? hostName(headers.host) : "";
  if (policy.loopbackOnly && !isLoopbackName(host))
    return {
      ok: false,
      reason: `Host ${headers.host ?? "(none)"} is not this server's: this MCP server answers on localhost only`,
    };
  const origin = headers.origin;
  if (!origin || policy.allowedOrigins.includes("*") || policy.allowedOrigins.includes(origin))
    return { ok: true };
  let originHost: string;
  try {
    originHost = new URL(origin).host.toLowerCase();
  } catch {
    return { ok: false, reason: `Origin ${origin} is not a URL` };
  }
  if (headers.host && originHost === headers.host.trim().toLowerCase()) return { ok: true };
  return {
    ok: false,
    reason: `Origin ${origin} may not call this MCP server (the operator lists allowed origins in MCP_ALLOWED_ORIGINS)`,
  };
}

/** Express middleware for /mcp: a refused request gets 403 with a JSON-RPC error, before any work. */
export function originGuard(policy: OriginPolicy) {
  return (req: Request, res: Response, next: NextFunction) => {
    const verdict = originVerdict({ host: req.headers.host, origin: req.headers.origin }, policy);
    if (verdict.ok) return next();
    res.status(403).json({ jsonrpc: "2.0", error: { code: -32000, message: verdict.reason }, id: null });
  };
}
