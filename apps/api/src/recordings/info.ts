import type { RecordingInfo } from "@browserfleet/contracts";
import type { ApiContext } from "../context.ts";
import type { SessionRow } from "../sessions/store.ts";
import { recordingUrl } from "./links.ts";
import type { RecordingSummary } from "./store.ts";

/** A recorded session's recording as the sessions view tells it. */
export async function recordingInfoOf(
  ctx: ApiContext,
  base: string,
  s: Pick<SessionRow, "id" | "status" | "recordingExpiresAt" | "recordingTruncated">,
  sum: RecordingSummary | undefined,
  now = Date.now(),
): Promise<RecordingInfo> {
  const expiresAt = s.recordingExpiresAt as Date;
  const expired = expiresAt.getTime() <= now;
  const status = expired ? "expired" : s.status === "open" ? "recording" : sum?.events ? "ready" : "empty";
  return {
    ...(expired ? {} : { url: await recordingUrl(ctx, base, { id: s.id, recordingExpiresAt: expiresAt }) }),
    status,
    durationMs: sum?.from && sum.to ? sum.to.getTime() - sum.from.getTime() : 0,
    bytes: expired ? 0 : (sum?.bytes ?? 0),
    events: expired ? 0 : (sum?.events ?? 0),
    ...(s.recordingTruncated ? { truncated: true } : {}),
    expiresAt: expiresAt.toISOString(),
  };
}
