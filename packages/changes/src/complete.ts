import { cleanStoredJson, cleanStoredText, type Format, type ScrapeResponse } from "@browserfleet/contracts";
import { answerAsAsked } from "@browserfleet/extract";
import { compare } from "./compare.ts";
import type { PageSnapshots } from "./snapshots.ts";

/** The URL a render is kept under: as asked, without its #fragment (the server never sees it). */
export function snapshotUrl(url: string): string {
  try {
    const u = new URL(url);
    u.hash = "";
    return u.href;
  } catch {
    return url;
  }
}

/**
 * Turn an answer whose browser rendered markdown for the changes format into the answer asked for: the
 * page compared with the account's previous render of the URL (which it then replaces), and the formats
 * in the order asked, markdown left out when only changes needed it. `markdown` is the browser's (the json
 * format may have dropped it from `result` already).
 */
export async function completeChanges(
  req: { formats: readonly Format[]; url?: string | undefined },
  markdown: unknown,
  result: ScrapeResponse,
  snapshots: PageSnapshots,
  accountId: string,
): Promise<ScrapeResponse> {
  if (!req.formats.includes("changes")) return result;
  const data: Record<string, unknown> = { ...result.data };
  const errors = { ...result.errors };
  const statusCode = result.metadata.statusCode ?? null;
  const gone = statusCode === 404 || statusCode === 410;
  if (req.url === undefined) {
    errors.changes = {
      code: "not_supported",
      message: "changes compares renders of a URL: give url, not html",
    };
  } else if (typeof markdown !== "string" && !gone) {
    const why = errors.markdown?.message ?? "the page gave no text";
    errors.changes = { code: "render_failed", message: `nothing to compare: ${why}` };
  } else {
    const current = {
      markdown: gone ? null : cleanStoredText(markdown as string),
      ...(req.formats.includes("json") && "json" in data ? { json: cleanStoredJson(data.json) } : {}),
      statusCode,
      at: new Date(),
    };
    const previous = await snapshots.swap(accountId, snapshotUrl(req.url), current);
    data.changes = compare(previous, current);
  }
  return answerAsAsked(req.formats, result, data, errors);
}
