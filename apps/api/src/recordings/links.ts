import type { ApiContext } from "../context.ts";
import { recordingToken } from "./token.ts";

export const RECORDINGS_ROUTE = "/recordings";

/** When a session opened now would have its recording deleted: after its longest life and the retention. */
export const recordingExpiry = (ctx: ApiContext, openedAt: Date): Date =>
  new Date(openedAt.getTime() + ctx.config.SESSION_MAX_LIFETIME_MS + ctx.config.RECORDING_TTL_MS);

/** A recording's replay URL: the same every time (its grant ends when the recording is deleted). */
export async function recordingUrl(
  ctx: ApiContext,
  base: string,
  s: { id: string; recordingExpiresAt: Date },
): Promise<string> {
  const token = recordingToken(await ctx.artifacts.secret(), {
    sessionId: s.id,
    expires: Math.floor(s.recordingExpiresAt.getTime() / 1000),
  });
  return `${base}${RECORDINGS_ROUTE}/${token}`;
}
