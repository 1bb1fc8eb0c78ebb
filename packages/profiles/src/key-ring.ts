import { type Config, keptSecret } from "@browserfleet/config";

/** A sealing key and the id rows sealed with it carry. */
export interface ProfileKey {
  id: string;
  key: Buffer;
}

/** The keys profiles are sealed with: `current` seals, each opens what it sealed. */
export interface KeyRing {
  current: ProfileKey;
  byId: ReadonlyMap<string, Buffer>;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * `id:base64key[,id:base64key...]` (base64 or base64url, 32 bytes each), the first the current key. Throws
 * naming what is wrong, never the key itself.
 */
export function parseKeyRing(spec: string): KeyRing {
  const keys: ProfileKey[] = [];
  for (const [i, part] of spec.split(",").entries()) {
    const at = part.indexOf(":");
    const id = part.slice(0, at).trim();
    if (at < 0 || !KEY_ID.test(id))
      throw new Error(
        `PROFILE_KEYS entry ${i + 1}: write it as <id>:<base64 key>, the id of letters, digits, _ or -`,
      );
    const key = Buffer.from(part.slice(at + 1).trim(), "base64");
    if (key.length !== 32)
      throw new Error(
        `PROFILE_KEYS entry ${i + 1} (${id}): the key must be 32 bytes, base64; it is ${key.length}`,
      );
    if (keys.some((k) => k.id === id)) throw new Error(`PROFILE_KEYS: the id ${id} is given twice`);
    keys.push({ id, key });
  }
  const [current] = keys;
  if (!current) throw new Error("PROFILE_KEYS holds no key");
  return { current, byId: new Map(keys.map((k) => [k.id, k.key])) };
}

/** The deployment's keys (PROFILE_KEYS), or the embedded default's one key kept in DATA_DIR. */
export async function keyRingFrom(config: Pick<Config, "PROFILE_KEYS" | "DATA_DIR">): Promise<KeyRing> {
  if (config.PROFILE_KEYS) return parseKeyRing(config.PROFILE_KEYS);
  const secret = await keptSecret(config.DATA_DIR, "profile-key");
  return parseKeyRing(`local:${Buffer.from(secret, "base64url").subarray(0, 32).toString("base64")}`);
}
