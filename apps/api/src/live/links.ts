import type { ApiContext } from "../context.ts";
import { liveToken } from "./token.ts";

export const LIVE_ROUTE = "/live";

/**
 * A session's live view URL. The same every time for the same session (its grant ends at the session's
 * longest life, counted from when it opened), so session open and the sessions view give out one link.
 */
export async function liveViewUrl(
  ctx: ApiContext,
  base: string,
  s: { id: string; mode: "view" | "interactive"; openedAt: Date },
): Promise<string> {
  const token = liveToken(await ctx.artifacts.secret(), {
    sessionId: s.id,
    mode: s.mode,
    expires: Math.ceil((s.openedAt.getTime() + ctx.config.SESSION_MAX_LIFETIME_MS) / 1000),
  });
  return `${base}${LIVE_ROUTE}/${token}`;
}
