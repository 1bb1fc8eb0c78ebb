import type { Position } from "@browserfleet/tokens";

/**
 * A cursor names a kept render and where the next part starts. It is not secret: the render's id is a
 * random UUID, and reading it needs the same account, wallet or keyless client that made it. Its own
 * expiry lets an expired cursor be told apart from one that never existed.
 */
export interface Cursor {
  render: string;
  at: Position;
  /** Seconds since the epoch. */
  expires: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const natural = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.render, c.at.format, c.at.offset, c.expires])).toString("base64url");
}

/** The cursor, "invalid" for anything this service did not write, or "expired". */
export function parseCursor(text: string, now = Date.now()): Cursor | "invalid" | "expired" {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    return "invalid";
  }
  if (!Array.isArray(v) || v.length !== 4) return "invalid";
  const [render, format, offset, expires] = v as unknown[];
  if (
    typeof render !== "string" ||
    !UUID.test(render) ||
    !natural(format) ||
    !natural(offset) ||
    !natural(expires)
  )
    return "invalid";
  if (expires * 1000 <= now) return "expired";
  return { render, at: { format, offset }, expires };
}
