import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { action } from "@browserfleet/contracts";
import { ActionError } from "../src/session/action-errors.ts";
import { cutText, defaultAccept, dialogKind, dialogReport } from "../src/session/dialogs.ts";
import { localRef, nextActive, shownRef, withLocalRef } from "../src/session/tabs.ts";

const codeOf = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (err) {
    assert.ok(err instanceof ActionError, String(err));
    return err.code;
  }
  return undefined;
};

describe("session tabs: refs and the active tab", () => {
  it("the first tab's refs are as the page made them; another tab's carry its id", () => {
    assert.equal(shownRef("t1", "e5"), "e5");
    assert.equal(shownRef("t2", "e5"), "t2e5");
    assert.equal(shownRef("t3", "f1e12"), "t3f1e12");
  });

  it("a ref of the active tab is given to its page without the tab", () => {
    assert.equal(localRef("e5", "t1", ["t1", "t2"]), "e5");
    assert.equal(localRef("f1e3", "t1", ["t1"]), "f1e3");
    assert.equal(localRef("t2e5", "t2", ["t1", "t2"]), "e5");
    assert.equal(localRef("t2f1e3", "t2", ["t1", "t2"]), "f1e3");
  });

  it("a ref of another tab is refused, naming it, open or closed", () => {
    assert.equal(
      codeOf(() => localRef("e5", "t2", ["t1", "t2"])),
      "wrong_tab",
    );
    assert.throws(
      () => localRef("t2e5", "t1", ["t1", "t2"]),
      /ref t2e5 is from tab t2, not from the active tab t1; switch to it first/,
    );
    assert.throws(() => localRef("t3e1", "t1", ["t1"]), /from tab t3, which is closed/);
  });

  it("a CSS selector is left as it is", () => {
    for (const css of ["#go", "button.primary", "text=Delete", "t2", "e5 > a", "te5"])
      assert.equal(localRef(css, "t2", ["t1", "t2"]), css);
  });

  it("the ref of an action, and a wait's selector that is a ref, are made local", () => {
    const click = action.parse({ click: { ref: "t2e7", button: "left" } });
    assert.deepEqual(withLocalRef(click, "t2", ["t1", "t2"]), { click: { ref: "e7", button: "left" } });
    const wait = action.parse({ wait: { selector: "t2e9", timeout: 100 } });
    assert.deepEqual(withLocalRef(wait, "t2", ["t1", "t2"]), { wait: { selector: "e9", timeout: 100 } });
    const typed = action.parse({ type: { ref: "e1", text: "x" } });
    assert.equal(withLocalRef(typed, "t1", ["t1"]), typed, "unchanged, the same object");
    for (const other of [{ press: "Enter" }, { back: {} }, { tab: { id: "t2" } }, { scroll: {} }]) {
      const a = action.parse(other);
      assert.equal(withLocalRef(a, "t2", ["t1", "t2"]), a);
    }
    assert.equal(
      codeOf(() => withLocalRef(action.parse({ hover: { ref: "e1" } }), "t2", ["t1", "t2"])),
      "wrong_tab",
    );
  });

  it("closing the active tab makes active its opener, else the one active before, else the newest", () => {
    assert.equal(nextActive("t1", ["t1", "t3"], ["t3", "t1"]), "t1");
    assert.equal(nextActive("t2", ["t1", "t3"], ["t1", "t3"]), "t3", "its opener is closed");
    assert.equal(nextActive(undefined, ["t1", "t3", "t4"], ["t3"]), "t3");
    assert.equal(nextActive(undefined, ["t1", "t3"], []), "t3");
    assert.equal(nextActive("t1", [], []), undefined);
  });
});

describe("session dialogs: answers and reports", () => {
  it("defaults: alert and beforeunload accepted, confirm and prompt dismissed", () => {
    assert.deepEqual((["alert", "confirm", "prompt", "beforeunload"] as const).map(defaultAccept), [
      true,
      false,
      false,
      true,
    ]);
    assert.equal(dialogKind("confirm"), "confirm");
    assert.equal(dialogKind("something-new"), "alert");
  });

  it("a prompt accepted without text answers its default value; a dismissed one answers nothing", () => {
    const d = { kind: "prompt" as const, message: "Name?", defaultValue: "guest" };
    const byDefault = dialogReport(d, undefined, "t1", 2);
    assert.equal(byDefault.accept, false);
    assert.equal(byDefault.promptText, undefined);
    assert.deepEqual(byDefault.seen, {
      kind: "prompt",
      message: "Name?",
      defaultValue: "guest",
      answer: "dismissed",
      by: "default",
      tab: "t1",
      during: 2,
    });
    const accepted = dialogReport(d, { accept: true }, "t2", undefined);
    assert.equal(accepted.promptText, "guest");
    assert.deepEqual(accepted.seen, {
      kind: "prompt",
      message: "Name?",
      defaultValue: "guest",
      answer: "accepted",
      promptText: "guest",
      by: "action",
      tab: "t2",
    });
    assert.equal(dialogReport(d, { accept: true, promptText: "Ada" }, "t1", 0).promptText, "Ada");
  });

  it("a confirm's answer carries no prompt text, whatever the action gave", () => {
    const r = dialogReport(
      { kind: "confirm", message: "Sure?", defaultValue: "" },
      { accept: true, promptText: "x" },
      "t1",
      0,
    );
    assert.equal(r.accept, true);
    assert.equal(r.promptText, undefined);
    assert.equal(r.seen.defaultValue, undefined);
    assert.equal(r.seen.promptText, undefined);
  });

  it("long text is cut to its bound with an ellipsis, never through a surrogate pair", () => {
    assert.equal(cutText("short"), "short");
    const cut = cutText("x".repeat(5000));
    assert.equal(cut.length, 1000);
    assert.ok(cut.endsWith("…"));
    const emoji = cutText(`${"a".repeat(8)}😀😀`, 10);
    assert.equal(emoji, `${"a".repeat(8)}…`);
    assert.ok(!/[\ud800-\udbff]…$/.test(cutText(`${"a".repeat(7)}😀😀😀`, 10)));
  });
});
