import { findKey, touchKey } from "@browserfleet/billing";
import type { RequestHandler } from "express";
import type { ApiContext } from "../context.ts";
import { ApiError } from "../errors.ts";

const TOUCH_EVERY_MS = 60_000;

type LiveKey = { keyId: string; accountId: string; at: number };

/**
 * Resolve `Authorization: Bearer <key>` to an account before any route runs. No header: the caller is
 * keyless (wallet payment or allowance). A header that is malformed, unknown or revoked is a 401, never
 * silently keyless, so a caller with a broken key is not asked to pay with a wallet instead.
 */
export function identify(ctx: ApiContext): RequestHandler {
  const touched = new Map<string, number>();
  // Valid keys are remembered for KEY_CACHE_MS (a revocation takes effect within that time), so a busy
  // key does not cost a database round trip per call. Unknown and revoked keys are never remembered.
  const live = new Map<string, LiveKey>();
  const ttl = ctx.config.KEY_CACHE_MS;
  return async (req, _res, next) => {
    const header = req.headers.authorization;
    if (header === undefined) return next();
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m?.[1]) {
      throw new ApiError("unauthorized", "the Authorization header must be `Bearer <API key>`", [
        { field: "headers.authorization", message: "expected Bearer <API key>" },
      ]);
    }
    const remembered = ttl > 0 ? live.get(m[1]) : undefined;
    if (remembered && Date.now() - remembered.at < ttl) {
      req.auth = { keyId: remembered.keyId, accountId: remembered.accountId };
      return next();
    }
    const found = await findKey(ctx.db.db, m[1]);
    if (found.status === "unknown") throw new ApiError("invalid_key", "this API key is not valid");
    if (found.status === "revoked")
      throw new ApiError(
        "key_revoked",
        "this API key has been revoked; ask your administrator for a new one",
      );
    req.auth = { keyId: found.keyId, accountId: found.accountId };
    if (ttl > 0) {
      if (live.size > 10_000) live.clear();
      live.set(m[1], { ...req.auth, at: Date.now() });
    }
    const last = touched.get(found.keyId) ?? 0;
    if (Date.now() - last > TOUCH_EVERY_MS) {
      touched.set(found.keyId, Date.now());
      touchKey(ctx.db.db, found.keyId).catch(() => {});
    }
    next();
  };
}

declare global {
  namespace Express {
    interface Request {
      /** The caller's API key, set by the auth middleware when a valid key came with the request. */
      auth?: { keyId: string; accountId: string };
    }
  }
}
