import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type Control, controlsFromSnapshot, textFromSnapshot } from "../src/formats/controls-tree.ts";
import { globToRegExp } from "../src/page/glob.ts";
import { pageChanges } from "../src/session/changes.ts";

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
    const [typed] = controlsFromSnapshot(
      [{ role: "textbox", name: "Note", ref: "e1", box: box(), text: "hi" }],
      {
        visibleOnly: true,
        limit: 10,
      },
    ).controls;
    assert.equal(typed!.value, "hi", "a value given as the node's only text");
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

describe("page text from an AI snapshot", () => {
  it("keeps text runs and named elements in page order, and leaves what controls say to the controls", () => {
    const page = [
      {
        role: "generic",
        children: [
          { role: "heading", name: "Login", level: 1 },
          { role: "paragraph", children: ["Clicked  0\n times", { role: "button", name: "Count" }] },
          { role: "link", name: "Away", children: ["Away"] },
          { role: "combobox", name: "Colour", children: [{ role: "option", name: "red" }] },
          { role: "img", name: "A cat" },
          { role: "paragraph", text: "Only text" },
        ],
      },
    ];
    assert.deepEqual(textFromSnapshot(page), ["Login", "Clicked 0 times", "A cat", "Only text"]);
  });
});

describe("what changed between two results of a session", () => {
  const ctl = (ref: string, name: string, extra: Partial<Control> = {}): Control => ({
    ref,
    role: "button",
    name,
    box: { x: 0, y: 0, width: 10, height: 10 },
    ...extra,
  });
  const before = {
    controls: [ctl("e1", "Go"), ctl("e2", "Old"), ctl("e3", "Opt", { role: "checkbox", checked: false })],
    text: ["Title", "Status: idle", "Same", "Same"],
  };

  it("lists added and changed controls whole, removed ones by ref, role and name, and text by line", () => {
    const after = {
      controls: [
        ctl("e1", "Go", { box: { x: 5, y: 50, width: 10, height: 10 }, selector: "#go2" }),
        ctl("e3", "Opt", { role: "checkbox", checked: true }),
        ctl("e9", "New"),
      ],
      text: ["Title", "Same", "Status: done", "Same", "Same"],
    };
    const c = pageChanges(before, after);
    assert.equal(c.comparedWith, "previous");
    assert.deepEqual(c.controls.added, [ctl("e9", "New")]);
    assert.deepEqual(c.controls.removed, [{ ref: "e2", role: "button", name: "Old" }]);
    assert.deepEqual(
      c.controls.changed.map((x) => [x.ref, x.checked]),
      [["e3", true]],
      "a control that only moved or got another selector is not a change",
    );
    assert.deepEqual(c.text, { added: ["Status: done", "Same"], removed: ["Status: idle"] });
  });

  it("with nothing to compare with, everything is added", () => {
    const c = pageChanges(undefined, before);
    assert.equal(c.comparedWith, "nothing");
    assert.equal(c.controls.added.length, 3);
    assert.deepEqual(c.text.added, before.text);
    assert.deepEqual(c.controls.removed, []);
  });

  it("the same state twice is no change at all", () => {
    const c = pageChanges(before, structuredClone(before));
    assert.deepEqual(c.controls, { added: [], removed: [], changed: [] });
    assert.deepEqual(c.text, { added: [], removed: [] });
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
