import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { hourAfter, KEY_PATTERN } from "./store.ts";

/**
 * A file's URL is a capability: its key is random (128 bits) and its query carries the expiry and an
 * HMAC of key and expiry under the deployment's secret. Anyone holding the URL may fetch the file until
 * it expires; a changed key, expiry or signature is refused the same way as a missing file.
 */
export interface SignedName {
  key: string;
  expires: number;
  signature: string;
}

const sign = (secret: string, key: string, expires: number) =>
  createHmac("sha256", secret).update(`${key}\n${expires}`).digest("base64url");

/** A new key for a file of this extension that expires at `expiresAt` (ms), signed. */
export function newSignedName(secret: string, ext: string, expiresAt: number): SignedName {
  const key = `${hourAfter(expiresAt)}/${randomBytes(16).toString("base64url")}.${ext}`;
  const expires = Math.floor(expiresAt / 1000);
  return { key, expires, signature: sign(secret, key, expires) };
}

/** The file's link: `prefix` is the route the api serves files under. */
/**
 * The same name every time for the same `seed` (a job page's file: its status is read again and again):
 * the id is an HMAC of the seed, so it is as unguessable as a random one, and the file is stored once.
 */
export function signedNameFor(secret: string, seed: string, ext: string, expiresAt: number): SignedName {
  const id = createHmac("sha256", secret).update(`name\n${seed}`).digest("base64url").slice(0, 22);
  const key = `${hourAfter(expiresAt)}/${id}.${ext}`;
  const expires = Math.floor(expiresAt / 1000);
  return { key, expires, signature: sign(secret, key, expires) };
}

export const urlOf = (base: string, prefix: string, n: SignedName) =>
  `${base.replace(/\/$/, "")}${prefix}/${n.key}?e=${n.expires}&s=${n.signature}`;

/** Whether the name was signed here and has not expired. */
export function verifySignedName(
  secret: string,
  n: { key: string; expires: unknown; signature: unknown },
  now = Date.now(),
): boolean {
  if (!KEY_PATTERN.test(n.key) || typeof n.signature !== "string" || typeof n.expires !== "string")
    return false;
  if (!/^\d{1,12}$/.test(n.expires)) return false;
  const expires = Number(n.expires);
  if (expires * 1000 <= now) return false;
  const want = Buffer.from(sign(secret, n.key, expires));
  const got = Buffer.from(n.signature);
  return want.length === got.length && timingSafeEqual(want, got);
}
