import type { SessionRow } from "./store.ts";

/**
 * Until when an ended session is billed: a closed or expired one until it ended, but never past when it
 * would have expired by itself; a lost one until its last act, since its browser may have died any time
 * after and a minute nobody could use is not charged.
 */
export function billedUntil(
  s: Pick<SessionRow, "status" | "openedAt" | "closedAt" | "expiresAt" | "lastActiveAt">,
): Date {
  if (s.status === "lost") return s.lastActiveAt ?? s.openedAt;
  const end = s.closedAt ?? new Date();
  return s.expiresAt && s.expiresAt < end ? s.expiresAt : end;
}
