import { createHmac, timingSafeEqual } from "node:crypto";
import { SESSION_ID_PATTERN } from "@browserfleet/bus";

/** What a live view URL lets its holder do: watch (or drive) one session until `expires` (seconds). */
export interface LiveGrant {
  sessionId: string;
  mode: "view" | "interactive";
  expires: number;
}

/**
 * A capability link's signature: an HMAC of its payload under the deployment's URL secret (the one artifact
 * URLs use), under a label of its own per kind of link, so no kind of signature passes for another.
 */
export const signCapability = (label: string, secret: string, payload: string): string =>
  createHmac("sha256", secret).update(`${label}\n${payload}`).digest("base64url");

/** Whether `signature` is the capability signature of `payload` under `label`. */
export function checkCapability(label: string, secret: string, payload: string, signature: string): boolean {
  const want = Buffer.from(signCapability(label, secret, payload));
  const got = Buffer.from(signature);
  return want.length === got.length && timingSafeEqual(want, got);
}

const sign = (secret: string, payload: string) => signCapability("live", secret, payload);

/**
 * The token in a live view URL: the grant, readable, and an HMAC of it under the deployment's URL secret
 * (the one artifact URLs use, under its own label, so neither kind of signature passes for the other).
 * Every api replica can check it; it names one session, so it opens nothing else.
 */
export function liveToken(secret: string, g: LiveGrant): string {
  const payload = `${g.sessionId}.${g.mode === "interactive" ? "i" : "v"}.${g.expires}`;
  return `${payload}.${sign(secret, payload)}`;
}

/** The grant a token carries when it was signed here and has not expired; undefined otherwise. */
export function readLiveToken(secret: string, token: string, now = Date.now()): LiveGrant | undefined {
  const parts = token.split(".");
  if (parts.length !== 4) return undefined;
  const [sessionId, mode, expiresText, signature] = parts as [string, string, string, string];
  if (
    !SESSION_ID_PATTERN.test(sessionId) ||
    (mode !== "i" && mode !== "v") ||
    !/^\d{1,12}$/.test(expiresText)
  )
    return undefined;
  if (!checkCapability("live", secret, `${sessionId}.${mode}.${expiresText}`, signature)) return undefined;
  const expires = Number(expiresText);
  if (expires * 1000 <= now) return undefined;
  return { sessionId, mode: mode === "i" ? "interactive" : "view", expires };
}
