import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A random base62 string; 22 characters carry about 131 bits. */
export function randomBase62(length: number): string {
  const bytes = randomBytes(length * 2);
  let out = "";
  for (let i = 0; out.length < length && i < bytes.length; i++) {
    const b = bytes[i] as number;
    // 248 = 62 * 4: drop the top values so every character is equally likely
    if (b < 248) out += ALPHABET[b % 62];
  }
  return out.length === length ? out : out + randomBase62(length - out.length);
}

export const newId = (prefix: string): string => `${prefix}_${randomBase62(20)}`;
