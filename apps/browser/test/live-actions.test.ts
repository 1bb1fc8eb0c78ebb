import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeForViewer } from "../src/session/live-actions.ts";

describe("actions as a live view shows them", () => {
  it("typed text and files only by their size: a viewer may be a person the agent's secrets are not for", () => {
    const typed = describeForViewer({ type: { ref: "e4", text: "hunter2", submit: true } });
    assert.deepEqual(typed, { action: "type", target: "e4", detail: "7 characters, then submit" });
    assert.doesNotMatch(JSON.stringify(typed), /hunter2/);
    const upload = describeForViewer({
      upload: { ref: "e9", files: [{ name: "id.pdf", mimeType: "application/pdf", data: "JVBERi0=" }] },
    } as never);
    assert.doesNotMatch(JSON.stringify(upload), /id\.pdf|JVBER/);
  });

  it("what the action acted on and what it did", () => {
    assert.deepEqual(describeForViewer({ press: "Enter" }), { action: "press", detail: "Enter" });
    assert.deepEqual(describeForViewer({ click: { ref: "e2" } }), { action: "click", target: "e2" });
    assert.deepEqual(describeForViewer({ navigate: { url: "https://example.com/a" } }), {
      action: "navigate",
      detail: "https://example.com/a",
    });
  });
});
