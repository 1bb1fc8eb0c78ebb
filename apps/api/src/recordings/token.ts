import { SESSION_ID_PATTERN } from "@browserfleet/bus";
import { checkCapability, signCapability } from "../live/token.ts";

/** What a recording URL lets its holder do: replay one session's recording until `expires` (seconds). */
export interface RecordingGrant {
  sessionId: string;
  expires: number;
}

/** The token in a recording URL: the grant, readable, and its signature (label "recording"). */
export function recordingToken(secret: string, g: RecordingGrant): string {
  const payload = `${g.sessionId}.${g.expires}`;
  return `${payload}.${signCapability("recording", secret, payload)}`;
}

/** The grant a token carries when it was signed here and has not expired; undefined otherwise. */
export function readRecordingToken(
  secret: string,
  token: string,
  now = Date.now(),
): RecordingGrant | undefined {
  const parts = token.split(".");
  if (parts.length !== 3) return undefined;
  const [sessionId, expiresText, signature] = parts as [string, string, string];
  if (!SESSION_ID_PATTERN.test(sessionId) || !/^\d{1,12}$/.test(expiresText)) return undefined;
  if (!checkCapability("recording", secret, `${sessionId}.${expiresText}`, signature)) return undefined;
  const expires = Number(expiresText);
  if (expires * 1000 <= now) return undefined;
  return { sessionId, expires };
}
