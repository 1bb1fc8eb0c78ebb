import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type Stack, startStack } from "../helpers/stack.ts";

// biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the route answered
type Json = any;

/**
 * An act that asks for the controls map alone reads it right after its last action, with the page's
 * settle state beside it, and keeps that read only when the page had nothing left to do. What a
 * handler set going after a key press (a timer, a frame callback, a message to itself, a fetch) must
 * still be in the answer, as it was when every act waited for the page's handlers first.
 */
let stack: Stack;
before(async () => {
  stack = await startStack({ slots: 2 });
});
after(async () => {
  await stack?.stop();
});

const act = (body: Json) => stack.post("/web/v1/act", body);
const close = (id: string) =>
  fetch(`${stack.api.url}/web/v1/session/${id}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${stack.key}` },
  });
const names = (controls: Json[]) => controls.map((c: Json) => c.name);

describe("an act's controls map after work its last action set going", () => {
  /** Each key adds a button named after the way its handler deferred the change. */
  const page = (
    fetchUrl: string,
  ) => `<h1>Later</h1><input aria-label="Query" id="q"><ul id="out"></ul><script>
const add = (name) => {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = name;
  document.getElementById("out").appendChild(b);
};
document.addEventListener("keydown", (e) => {
  if (e.key === "t") setTimeout(() => add("From a timer"), 40);
  if (e.key === "f") requestAnimationFrame(() => add("From a frame"));
  if (e.key === "m") {
    const c = new MessageChannel();
    c.port1.onmessage = () => add("From a message");
    c.port2.postMessage(0);
  }
  if (e.key === "w") {
    window.addEventListener("message", () => add("From a window message"), { once: true });
    window.postMessage("go", "*");
  }
  if (e.key === "x") fetch(${JSON.stringify(fetchUrl)}, { mode: "no-cors" }).finally(() => add("From a fetch"));
});
document.getElementById("q").addEventListener("input", (e) => {
  const text = e.target.value;
  setTimeout(() => add("Suggest " + text), 40);
});
</script>`;

  for (const [key, name] of [
    ["t", "From a timer"],
    ["f", "From a frame"],
    ["m", "From a message"],
    ["w", "From a window message"],
    ["x", "From a fetch"],
  ] as const) {
    test(`press ${key}: the button its handler adds ${name.toLowerCase().replace("from ", "through ")} is in the answer`, async () => {
      const s = (await stack.post("/web/v1/session", { html: page(`${stack.site.url}/api/slow-json?ms=60`) }))
        .body;
      try {
        // A first act finds the page free of overlays: from then on, acts may read their map at once.
        const first = await act({
          sessionId: s.sessionId,
          actions: [{ press: "Shift" }],
          formats: ["controls"],
        });
        assert.equal(first.body.success, true, JSON.stringify(first.body));
        const r = await act({ sessionId: s.sessionId, actions: [{ press: key }], formats: ["controls"] });
        assert.equal(r.body.success, true, JSON.stringify(r.body));
        assert.ok(names(r.body.data.controls).includes(name), JSON.stringify(names(r.body.data.controls)));
      } finally {
        await close(s.sessionId);
      }
    });
  }

  test("a key that scrolls the page: what the page's scroll listener adds is in the answer", async () => {
    const tall = `<div style="height:3000px"><h1>Long</h1><ul id="out"></ul></div><script>
window.addEventListener("scroll", () => {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = "Loaded on scroll";
  document.getElementById("out").appendChild(b);
}, { once: true });
</script>`;
    const s = (await stack.post("/web/v1/session", { html: tall })).body;
    try {
      const first = await act({
        sessionId: s.sessionId,
        actions: [{ press: "Shift" }],
        formats: ["controls"],
      });
      assert.equal(first.body.success, true, JSON.stringify(first.body));
      const r = await act({ sessionId: s.sessionId, actions: [{ press: "End" }], formats: ["controls"] });
      assert.ok(
        names(r.body.data.controls).includes("Loaded on scroll"),
        JSON.stringify(r.body.data.controls),
      );
    } finally {
      await close(s.sessionId);
    }
  });

  test("typing that a timer answers (suggestions): the suggestion is in the answer and in its changes", async () => {
    const s = (await stack.post("/web/v1/session", { html: page(`${stack.site.url}/api/slow-json?ms=60`) }))
      .body;
    try {
      const query = s.data.controls.find((c: Json) => c.name === "Query").ref;
      const r = await act({ sessionId: s.sessionId, actions: [{ type: { ref: query, text: "shoes" } }] });
      assert.ok(names(r.body.data.controls).includes("Suggest shoes"), JSON.stringify(r.body.data.controls));
      const c = await act({
        sessionId: s.sessionId,
        actions: [{ type: { ref: query, text: "hats" } }],
        changesOnly: true,
      });
      assert.deepEqual(
        c.body.changes.controls.added.map((x: Json) => x.name),
        ["Suggest hats"],
        JSON.stringify(c.body.changes),
      );
    } finally {
      await close(s.sessionId);
    }
  });

  test("on a page with nothing left to do, the map read at once is the one read after a full settle", async () => {
    const s = (await stack.post("/web/v1/session", { url: `${stack.site.url}/form` })).body;
    try {
      const username = s.data.controls.find((c: Json) => c.name === "Username").ref;
      const actions = [{ type: { ref: username, text: "alice" } }, { press: "Tab" }];
      // The controls map alone may be read at once; with links beside it, the act settles and renders.
      const quick = await act({ sessionId: s.sessionId, actions, formats: ["controls"] });
      const full = await act({ sessionId: s.sessionId, actions, formats: ["controls", "links"] });
      assert.equal(quick.body.success, true, JSON.stringify(quick.body));
      assert.deepEqual(quick.body.data.controls, full.body.data.controls);
      assert.equal(quick.body.metadata.title, full.body.metadata.title);
      assert.equal(quick.body.metadata.title, "Login Form");
      assert.equal(
        quick.body.data.controls.find((c: Json) => c.name === "Username").value,
        "alice",
        "the value typed is in the map",
      );
    } finally {
      await close(s.sessionId);
    }
  });
});
