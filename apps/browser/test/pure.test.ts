import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { controlsFromSnapshot } from "../src/formats/controls-tree.ts";
import { globToRegExp } from "../src/page/glob.ts";

const box = (w = 10) => ({ x: 1, y: 2, width: w, height: 5 });
const tree = [
  {
    role: "generic",
    ref: "e1",
    children: [
      { role: "heading", name: "Login", ref: "e2", box: box() },
      { role: "textbox", name: "User", ref: "e3", box: box(), children: ["alice"] },
      {
        role: "combobox",
        name: "Colour",
        ref: "e4",
        box: box(),
        children: [
          { role: "option", name: "red", ref: "e9", box: box(0) },
          { role: "option", name: "blue", ref: "e10", box: box(0), selected: true },
        ],
      },
      { role: "button", name: "Go", ref: "e5", box: box() },
      { role: "button", name: "Off", ref: "e6", box: box(), disabled: true },
      { role: "link", name: "Away", ref: "e7", box: box(0), url: "/away" },
      { role: "checkbox", name: "Remember", ref: "e8", box: box(), checked: true },
    ],
  },
];

describe("controls from an AI snapshot", () => {
  it("keeps actionable, visible, enabled controls in page order", () => {
    const { controls, total } = controlsFromSnapshot(tree, { visibleOnly: true, limit: 100 });
    assert.deepEqual(
      controls.map((c) => c.ref),
      ["e3", "e4", "e5", "e8"],
    );
    assert.equal(total, 4);
    assert.equal(controls[0]!.value, "alice");
    assert.equal(controls[3]!.checked, true);
  });
  it("a select shows its chosen value and its choices", () => {
    const { controls } = controlsFromSnapshot(tree, { visibleOnly: true, limit: 100 });
    const select = controls.find((c) => c.ref === "e4")!;
    assert.equal(select.value, "blue");
    assert.deepEqual(select.options, ["red", "blue"]);
  });
  it("includes disabled and zero-size controls when visibleOnly is false, never a native select's options", () => {
    const { controls } = controlsFromSnapshot(tree, { visibleOnly: false, limit: 100 });
    assert.deepEqual(
      controls.map((c) => c.ref),
      ["e3", "e4", "e5", "e6", "e7", "e8"],
    );
    assert.equal(controls.find((c) => c.ref === "e7")!.box, null);
    assert.equal(controls.find((c) => c.ref === "e7")!.url, "/away");
  });
  it("caps at limit and reports the total", () => {
    const { controls, total } = controlsFromSnapshot(tree, { visibleOnly: true, limit: 2 });
    assert.equal(controls.length, 2);
    assert.equal(total, 4);
  });
});

describe("URL globs for block.urlPatterns", () => {
  it("* stays within a path segment, ** crosses them", () => {
    assert.ok(globToRegExp("**/app.js").test("http://a.com/static/app.js"));
    assert.ok(!globToRegExp("http://a.com/*.js").test("http://a.com/static/app.js"));
    assert.ok(globToRegExp("http://a.com/*.js").test("http://a.com/app.js"));
    assert.ok(globToRegExp("**/*.{png}").test("http://a.com/x.{png}"));
  });
  it("a pattern without wildcards matches as a substring, with regex characters taken literally", () => {
    assert.ok(globToRegExp("ads.example").test("https://ads.example/x"));
    assert.ok(!globToRegExp("ads.example").test("https://adsXexample/x"));
    assert.ok(globToRegExp("a?b=1").test("http://x/a?b=1"));
  });
});
