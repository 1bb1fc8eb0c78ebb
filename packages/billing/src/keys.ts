import { createHash } from "node:crypto";
import { randomBase62 } from "./ids.ts";

/** Keys look like `bf_live_` + 32 base62 characters (about 190 bits), easy for secret scanners to spot. */
export const KEY_PREFIX = "bf_live_";
const KEY_SHAPE = /^bf_live_[0-9A-Za-z]{32}$/;

export const generateKey = (): string => KEY_PREFIX + randomBase62(32);

export const looksLikeKey = (key: string): boolean => KEY_SHAPE.test(key);

/**
 * Only this hash is stored. The key is random with ~190 bits of entropy, so a fast hash is enough:
 * slow password hashes defend guessable secrets, which these are not.
 */
export const hashKey = (key: string): string => createHash("sha256").update(key).digest("hex");

/** What listings show of a key: enough to tell keys apart, too little to use. */
export const displayPrefix = (key: string): string => key.slice(0, KEY_PREFIX.length + 4);
