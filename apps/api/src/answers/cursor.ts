import type { Position } from "@browserfleet/tokens";
import { ApiError } from "../errors.ts";

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

const invalid = () =>
  new ApiError(
    "invalid_cursor",
    "not a cursor this api gave out: use metadata.truncated.cursor of the previous answer",
    [{ field: "cursor", message: "not a cursor this api gave out" }],
  );

/** The cursor, or a 400 invalid_cursor (anything this api did not write), or a 410 cursor_expired. */
export function decodeCursor(text: string, now = Date.now()): Cursor {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(v) || v.length !== 4) throw invalid();
  const [render, format, offset, expires] = v as unknown[];
  if (
    typeof render !== "string" ||
    !UUID.test(render) ||
    !natural(format) ||
    !natural(offset) ||
    !natural(expires)
  )
    throw invalid();
  if (expires * 1000 <= now)
    throw new ApiError(
      "cursor_expired",
      `the render this cursor reads on expired at ${new Date(expires * 1000).toISOString()}: scrape the page again`,
      [{ field: "cursor", message: "expired" }],
    );
  return { render, at: { format, offset }, expires };
}
