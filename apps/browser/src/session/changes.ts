/** Pure: what changed between two states of a session's page (controls by ref, text by line). */
import type { PageChanges } from "@browserfleet/contracts";
import type { Control } from "../formats/controls-tree.ts";

/** A page state as a result showed it to the caller. */
export interface PageState {
  controls: Control[];
  text: string[];
}

/** What an agent acts on; where a control sits (box) and how it is found (selector) are not changes. */
const SAME_WHEN_EQUAL = [
  "role",
  "name",
  "disabled",
  "checked",
  "expanded",
  "pressed",
  "url",
  "value",
  "options",
] as const satisfies ReadonlyArray<keyof Control>;

function differs(a: Control, b: Control): boolean {
  return SAME_WHEN_EQUAL.some((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}

/** Lines of `after` not matched by a line of `before` (each matches once), and the reverse. */
function lineChanges(before: string[], after: string[]): { added: string[]; removed: string[] } {
  const left = new Map<string, number>();
  for (const line of before) left.set(line, (left.get(line) ?? 0) + 1);
  const added: string[] = [];
  for (const line of after) {
    const n = left.get(line) ?? 0;
    if (n > 0) left.set(line, n - 1);
    else added.push(line);
  }
  const removed: string[] = [];
  for (const line of before) {
    const n = left.get(line) ?? 0;
    if (n > 0) {
      removed.push(line);
      left.set(line, n - 1);
    }
  }
  return { added, removed };
}

/** The changes from `before` (undefined: nothing was shown yet, so all of `after` is new) to `after`. */
export function pageChanges(before: PageState | undefined, after: PageState): PageChanges {
  const was = new Map((before?.controls ?? []).map((c) => [c.ref, c]));
  const now = new Set(after.controls.map((c) => c.ref));
  const added: Control[] = [];
  const changed: Control[] = [];
  for (const c of after.controls) {
    const old = was.get(c.ref);
    if (!old) added.push(c);
    else if (differs(old, c)) changed.push(c);
  }
  const removed = (before?.controls ?? [])
    .filter((c) => !now.has(c.ref))
    .map(({ ref, role, name }) => ({ ref, role, name }));
  return {
    comparedWith: before ? "previous" : "nothing",
    controls: { added, removed, changed },
    text: lineChanges(before?.text ?? [], after.text),
  };
}
