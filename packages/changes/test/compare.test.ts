import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { changedPaths, compare } from "../src/compare.ts";

const at = (s: string) => new Date(`2026-11-28T${s}:00Z`);
const page = (markdown: string | null, statusCode = 200, json?: unknown) => ({
  markdown,
  statusCode,
  at: at("10:00"),
  ...(json !== undefined ? { json } : {}),
});

describe("comparing a render with the one before it", () => {
  test("nothing kept is new; the same markdown is same; a 404 after a page is removed, and again is same", () => {
    assert.deepEqual(compare(undefined, page("# A")), { status: "new", previousAt: null, diff: null });
    const prev = { ...page("# A\n\nText."), at: at("09:00") };
    assert.deepEqual(compare(prev, page("# A\n\nText.")), {
      status: "same",
      previousAt: "2026-11-28T09:00:00.000Z",
      diff: null,
    });
    assert.equal(compare(prev, page(null, 404)).status, "removed");
    assert.equal(compare(prev, page(null, 410)).status, "removed");
    assert.equal(compare({ ...page(null, 404), at: at("09:00") }, page(null, 404)).status, "same");
    const back = compare({ ...page(null, 404), at: at("09:00") }, page("# A"));
    assert.equal(back.status, "changed");
    assert.match(back.diff ?? "", /^\+# A$/m);
  });

  test("a change is a unified diff, previous to current, with three lines of context", () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i}`);
    const after = [...lines];
    after[10] = "line ten";
    const c = compare({ ...page(lines.join("\n")), at: at("09:00") }, page(after.join("\n")));
    assert.equal(c.status, "changed");
    const diff = c.diff ?? "";
    assert.match(diff, /^--- previous\t2026-11-28T09:00:00.000Z$/m);
    assert.match(diff, /^@@ -8,7 \+8,7 @@$/m);
    assert.match(diff, /^-line 10$/m);
    assert.match(diff, /^\+line ten$/m);
    assert.doesNotMatch(diff, /line 2$/m, "lines far from the change are left out");
  });

  test("with json both times: the fields that changed, even when the markdown did not", () => {
    const prev = { ...page("# Shop", 200, { name: "Tea", price: 3, tags: ["a", "b"] }), at: at("09:00") };
    const c = compare(prev, page("# Shop", 200, { name: "Tea", price: 4, tags: ["a", "b", "c"] }));
    assert.equal(c.status, "changed");
    assert.equal(c.diff, null, "the markdown is the same");
    assert.deepEqual(c.json, { changed: ["price", "tags.2"] });
    const same = compare(prev, page("# Shop", 200, { name: "Tea", price: 3, tags: ["a", "b"] }));
    assert.deepEqual(same.json, { changed: [] });
    assert.equal(same.status, "same");
  });

  test("changed paths reach into objects and arrays, and name what appeared or went", () => {
    assert.deepEqual(changedPaths({ a: { b: 1, c: 2 } }, { a: { b: 1, c: 3, d: 4 } }), ["a.c", "a.d"]);
    assert.deepEqual(changedPaths([1, 2, 3], [1, 2]), ["2"]);
    assert.deepEqual(changedPaths("x", "x"), []);
    assert.deepEqual(changedPaths({ a: 1 }, [1]), [""]);
  });
});
