import type { Request, RequestHandler } from "express";
import { ipKeyGenerator, type RateLimitInfo, rateLimit } from "express-rate-limit";
import { clientAddress } from "./allowance/client-address.ts";
import { ApiError } from "./errors.ts";

export interface RateLimitOptions {
  /** Priced calls per minute for one API key. */
  perMinute: number;
  /** Priced calls per minute for one keyless client address. */
  keylessPerMinute: number;
  /** Reads (GET, polls, closes) per minute for one key or client address. */
  readPerMinute: number;
  /** Reverse-proxy hops in front of the api whose X-Forwarded-For entries are trusted. */
  trustedHops: number;
}

const WINDOW_MS = 60_000;

/**
 * Per-minute rate limits: `priced` for operations that cost something, `read` for everything else.
 * Keyed by the API key when the caller has one (req.auth, set by the auth middleware that must run first),
 * else by the client address (IPv6 grouped by /56, as express-rate-limit's ipKeyGenerator does).
 *
 * The counters live in express-rate-limit's memory store, so they are PER REPLICA: with R api replicas
 * behind a load balancer, a caller may get up to R times the configured rate. That is acceptable for a
 * flood guard; the exact, shared limits (keyless free allowance, balances) live in PostgreSQL.
 *
 * Headers: the IETF RateLimit / RateLimit-Policy fields (express-rate-limit's `draft-8`, the newest
 * draft-ietf-httpapi-ratelimit-headers format it supports), and Retry-After on a 429. The 429 itself is
 * an ApiError("rate_limited"), written by the app's error handler in the usual error shape.
 */
export function rateLimits(opts: RateLimitOptions): { priced: RequestHandler; read: RequestHandler } {
  const callerKey = (req: Request): string => {
    const keyId = req.auth?.keyId;
    if (keyId) return `key:${keyId}`;
    return `client:${ipKeyGenerator(clientAddress(req, opts.trustedHops))}`;
  };
  const refuse =
    (what: string, limitFor: (req: Request) => number) =>
    (req: Request, _res: unknown, next: (err: unknown) => void): void => {
      const reset = (req as Request & { rateLimit?: RateLimitInfo }).rateLimit?.resetTime;
      const seconds = Math.max(
        1,
        reset ? Math.ceil((reset.getTime() - Date.now()) / 1000) : WINDOW_MS / 1000,
      );
      const per = req.auth?.keyId ? "per API key" : "per client address without a key";
      next(
        new ApiError(
          "rate_limited",
          `too many ${what}: the limit is ${limitFor(req)} a minute ${per}; retry in ${seconds} s`,
          undefined,
          { "Retry-After": String(seconds) },
        ),
      );
    };

  const pricedLimit = (req: Request): number => (req.auth?.keyId ? opts.perMinute : opts.keylessPerMinute);
  const priced = rateLimit({
    windowMs: WINDOW_MS,
    limit: pricedLimit,
    keyGenerator: callerKey,
    identifier: (req) => (req.auth?.keyId ? "priced-key" : "priced-keyless"),
    standardHeaders: "draft-8",
    legacyHeaders: false,
    handler: refuse("calls", pricedLimit),
  });

  const readLimit = (): number => opts.readPerMinute;
  const read = rateLimit({
    windowMs: WINDOW_MS,
    limit: readLimit,
    keyGenerator: callerKey,
    identifier: "read",
    standardHeaders: "draft-8",
    legacyHeaders: false,
    handler: refuse("reads", readLimit),
  });

  return { priced, read };
}
