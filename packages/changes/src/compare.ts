import type { RenderChanges } from "@browserfleet/contracts";
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";

/** What a render leaves to compare the next one with. */
export interface Snapshot {
  markdown: string | null;
  /** The json format's value, when it was asked for. */
  json?: unknown;
  statusCode: number | null;
  at: Date;
}

/** A diff that takes longer than this to find is left out (the page changed too much to show it usefully). */
export const DIFF_TIMEOUT_MS = 1_000;

/** A page that answers this is gone. */
const gone = (s: Snapshot) => s.statusCode === 404 || s.statusCode === 410;

/** The paths (a.b, items.2.price) whose values differ between two JSON values; `""` for the whole. */
export function changedPaths(before: unknown, after: unknown, at = ""): string[] {
  const join = (k: string | number) => (at ? `${at}.${k}` : String(k));
  const isObj = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  if (Array.isArray(before) && Array.isArray(after)) {
    const out: string[] = [];
    for (let i = 0; i < Math.max(before.length, after.length); i++)
      out.push(
        ...(i < before.length && i < after.length ? changedPaths(before[i], after[i], join(i)) : [join(i)]),
      );
    return out;
  }
  if (isObj(before) && isObj(after)) {
    const out: string[] = [];
    for (const k of new Set([...Object.keys(before), ...Object.keys(after)]))
      out.push(...(k in before && k in after ? changedPaths(before[k], after[k], join(k)) : [join(k)]));
    return out;
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [at];
}

/**
 * How a page stands against its previous render by the same account: new (none kept), removed (it answers
 * 404 or 410 now, and did not before), same (the same markdown, and json if asked), or changed, with a
 * unified diff of the markdown (previous → current) and, when json was asked for both times, the fields
 * whose values changed.
 */
export function compare(previous: Snapshot | undefined, current: Snapshot): RenderChanges {
  if (!previous) return { status: "new", previousAt: null, diff: null };
  const previousAt = previous.at.toISOString();
  if (gone(current)) return { status: gone(previous) ? "same" : "removed", previousAt, diff: null };
  const before = gone(previous) ? "" : (previous.markdown ?? "");
  const after = current.markdown ?? "";
  const fields =
    current.json !== undefined && previous.json !== undefined
      ? changedPaths(previous.json, current.json)
      : undefined;
  if (before === after && !gone(previous) && (fields === undefined || fields.length === 0))
    return { status: "same", previousAt, diff: null, ...(fields ? { json: { changed: [] } } : {}) };
  const diff =
    before === after
      ? null
      : (createTwoFilesPatch("previous", "current", before, after, previousAt, current.at.toISOString(), {
          context: 3,
          timeout: DIFF_TIMEOUT_MS,
          headerOptions: FILE_HEADERS_ONLY,
        }) ?? null);
  return {
    status: "changed",
    previousAt,
    diff,
    ...(diff === null && before !== after ? { diffOmitted: "too_large" as const } : {}),
    ...(fields ? { json: { changed: fields } } : {}),
  };
}
