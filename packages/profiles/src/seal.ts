import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { KeyRing } from "./key-ring.ts";

/** A sealed profile names a key this deployment does not have (removed before its rows were sealed again). */
export class UnknownProfileKey extends Error {}

/**
 * AES-256-GCM with a fresh 96-bit nonce; `bound` (the account and the profile's name) is authenticated
 * with it, so a row moved to another account or name does not open. Out: `<key id>.<iv>.<tag>.<data>`.
 */
export function seal(ring: KeyRing, plaintext: string, bound: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", ring.current.key, iv);
  cipher.setAAD(Buffer.from(bound));
  const data = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return [ring.current.id, iv, cipher.getAuthTag(), data]
    .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
    .join(".");
}

/** The plaintext of `sealed`; throws when a byte or the binding was changed, or its key is unknown. */
export function open(ring: KeyRing, sealed: string, bound: string): string {
  const [id, iv, tag, data] = sealed.split(".");
  if (id === undefined || iv === undefined || tag === undefined || data === undefined)
    throw new Error("not a sealed profile");
  const key = ring.byId.get(id);
  if (!key)
    throw new UnknownProfileKey(`the profile was sealed with key ${id}, which PROFILE_KEYS no longer holds`);
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
  decipher.setAAD(Buffer.from(bound));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
}

/** The id of the key a sealed value was sealed with. */
export const sealedWith = (sealed: string): string => sealed.slice(0, sealed.indexOf("."));
