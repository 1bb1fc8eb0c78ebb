import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { callTool, connectMcp, type Json } from "../helpers/mcp-client.ts";
import { type Stack, startStack } from "../helpers/stack.ts";

let stack: Stack;
before(async () => {
  stack = await startStack({ slots: 2 });
});
after(async () => {
  await stack?.stop();
});

const auth = () => ({ authorization: `Bearer ${stack.key}` });
const open = (body: Json) => stack.post("/web/v1/session", body, auth());
const act = (body: Json) => stack.post("/web/v1/act", body, auth());
const close = (id: string) =>
  fetch(`${stack.api.url}/web/v1/session/${id}`, { method: "DELETE", headers: auth() }).then((r) => r.json());

const refOf = (controls: Json[], role: string, name: string | RegExp): string => {
  const c = controls.find(
    (x) => x.role === role && (typeof name === "string" ? x.name === name : name.test(x.name)),
  );
  assert.ok(c, `no ${role} ${name} in ${JSON.stringify(controls.map((x) => `${x.role}:${x.name}`))}`);
  return c.ref;
};

/** Opens a session on a fixture page; its controls and id. */
async function session(path: string, formats: string[] = ["controls"]): Promise<Json> {
  const r = await open({ url: `${stack.site.url}${path}`, formats });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

/** An act that must succeed, with markdown and controls of the state after it. */
async function actOk(id: string, actions: Json[], formats = ["markdown", "controls"]): Promise<Json> {
  const r = await act({ sessionId: id, actions, formats });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.success, true, JSON.stringify(r.body.actions));
  return r.body;
}

const shape = (d: Json) => [d.kind, d.answer, d.by];

describe("dialogs in a session", () => {
  test("each kind answered by default and reported: alert accepted, confirm and prompt dismissed", async () => {
    const s = await session("/dialogs");
    try {
      assert.deepEqual(s.tabs, [
        { id: "t1", url: `${stack.site.url}/dialogs`, title: "Items", active: true },
      ]);
      assert.equal(s.dialogs, undefined, "no dialog opened");
      const c = s.data.controls;
      const alerted = await actOk(s.sessionId, [{ click: { ref: refOf(c, "button", "Show notice") } }]);
      assert.match(alerted.data.markdown, /Notice seen/);
      assert.deepEqual(alerted.dialogs, [
        {
          kind: "alert",
          message: "Saved: your changes are kept",
          answer: "accepted",
          by: "default",
          tab: "t1",
          during: 0,
        },
      ]);

      const kept = await actOk(s.sessionId, [{ click: { ref: refOf(c, "button", "Delete item") } }]);
      assert.match(kept.data.markdown, /Item kept/, "a confirm is dismissed by default");
      assert.deepEqual(kept.dialogs.map(shape), [["confirm", "dismissed", "default"]]);
      assert.equal(kept.dialogs[0].message, "Delete the item? This cannot be undone.");

      const unnamed = await actOk(s.sessionId, [{ click: { ref: refOf(c, "button", "Set name") } }]);
      assert.match(unnamed.data.markdown, /No name given/);
      assert.deepEqual(unnamed.dialogs, [
        {
          kind: "prompt",
          message: "What is your name?",
          defaultValue: "guest",
          answer: "dismissed",
          by: "default",
          tab: "t1",
          during: 0,
        },
      ]);

      // A long message is cut, never sent whole.
      const long = await actOk(s.sessionId, [{ click: { ref: refOf(c, "button", "Long notice") } }]);
      assert.equal(long.dialogs[0].message.length, 1000);
      assert.match(long.dialogs[0].message, /^x+…$/);

      // More than a result lists: every one answered, the first 20 listed, the rest counted.
      const many = await actOk(s.sessionId, [{ click: { ref: refOf(c, "button", "Many notices") } }]);
      assert.match(many.data.markdown, /All notices seen/);
      assert.equal(many.dialogs.length, 20);
      assert.equal(many.dialogs[19].message, "Notice 20");
      assert.equal(many.dialogsOmitted, 5);

      // The next act without a dialog lists none.
      const quiet = await actOk(s.sessionId, [{ scroll: {} }]);
      assert.equal(quiet.dialogs, undefined);
      assert.equal(quiet.dialogsOmitted, undefined);
    } finally {
      await close(s.sessionId);
    }
  });

  test("the dialog action answers the next dialog: a confirm accepted changes the page, a prompt's text reaches it", async () => {
    const s = await session("/dialogs");
    try {
      const c = s.data.controls;
      const deleted = await actOk(s.sessionId, [
        { dialog: { accept: true } },
        { click: { ref: refOf(c, "button", "Delete item") } },
      ]);
      assert.match(deleted.data.markdown, /Item deleted/);
      assert.deepEqual(deleted.dialogs, [
        {
          kind: "confirm",
          message: "Delete the item? This cannot be undone.",
          answer: "accepted",
          by: "action",
          tab: "t1",
          during: 1,
        },
      ]);
      assert.deepEqual(
        deleted.actions.map((a: Json) => [a.action, a.status]),
        [
          ["dialog", "ok"],
          ["click", "ok"],
        ],
      );

      const named = await actOk(s.sessionId, [
        { dialog: { accept: true, promptText: "Ada Lovelace" } },
        { click: { ref: refOf(c, "button", "Set name") } },
      ]);
      assert.match(named.data.markdown, /Hello, Ada Lovelace/);
      assert.deepEqual(named.dialogs.map(shape), [["prompt", "accepted", "action"]]);
      assert.equal(named.dialogs[0].promptText, "Ada Lovelace");
      assert.equal(named.dialogs[0].defaultValue, "guest");

      // Accepted without text: the prompt's own default value.
      const guest = await actOk(s.sessionId, [
        { dialog: { accept: true } },
        { click: { ref: refOf(c, "button", "Set name") } },
      ]);
      assert.match(guest.data.markdown, /Hello, guest/);

      // Two answers for two dialogs in turn; an explicit dismiss of an alert-less confirm.
      const two = await actOk(s.sessionId, [
        { dialog: { accept: false } },
        { dialog: { accept: true } },
        { click: { ref: refOf(c, "button", "Two questions") } },
      ]);
      assert.match(two.data.markdown, /First no, second yes/);
      assert.deepEqual(two.dialogs.map(shape), [
        ["confirm", "dismissed", "action"],
        ["confirm", "accepted", "action"],
      ]);

      // An answer left unused ends with its act: the next act's confirm gets the default again.
      await actOk(s.sessionId, [{ dialog: { accept: true } }]);
      const again = await actOk(s.sessionId, [{ click: { ref: refOf(c, "button", "Delete item") } }]);
      assert.match(again.data.markdown, /Item kept/);
      assert.deepEqual(again.dialogs.map(shape), [["confirm", "dismissed", "default"]]);
    } finally {
      await close(s.sessionId);
    }
  });

  test("a page that warns before leaving can still be navigated away from; the warning is reported", async () => {
    const s = await session("/leave");
    try {
      // Typing is a user gesture: from then on Chromium asks before the page unloads.
      const typed = await actOk(s.sessionId, [
        { type: { ref: refOf(s.data.controls, "textbox", "Draft"), text: "half a thought" } },
      ]);
      assert.match(typed.data.markdown, /Unsaved changes/);
      const left = await actOk(s.sessionId, [{ navigate: { url: `${stack.site.url}/dialogs` } }]);
      assert.equal(left.metadata.url, `${stack.site.url}/dialogs`);
      assert.match(left.data.markdown, /Items/);
      assert.deepEqual(left.dialogs.map(shape), [["beforeunload", "accepted", "default"]]);
    } finally {
      await close(s.sessionId);
    }
  });

  test("dialogs while a page loads: a scrape dismisses them and goes on; a session open reports them", async () => {
    const scraped = await stack.post(
      "/web/v1/scrape",
      { url: `${stack.site.url}/dialog-on-load`, formats: ["markdown"] },
      auth(),
    );
    assert.equal(scraped.status, 200, JSON.stringify(scraped.body));
    assert.match(scraped.body.data.markdown, /confirm dismissed, prompt dismissed/);
    const s = await session("/dialog-on-load", ["markdown"]);
    try {
      assert.match(s.data.markdown, /confirm dismissed, prompt dismissed/);
      assert.deepEqual(
        s.dialogs.map((d: Json) => [d.kind, d.message, d.answer, d.by, d.tab, d.during]),
        [
          ["confirm", "Allow notifications?", "dismissed", "default", "t1", undefined],
          ["prompt", "Your city?", "dismissed", "default", "t1", undefined],
        ],
      );
    } finally {
      await close(s.sessionId);
    }
  });

  test("bad dialog and tab actions are a 400 naming the field", async () => {
    const s = await session("/dialogs");
    try {
      const noAccept = await act({ sessionId: s.sessionId, actions: [{ dialog: { promptText: "x" } }] });
      assert.equal(noAccept.status, 400, JSON.stringify(noAccept.body));
      assert.match(JSON.stringify(noAccept.body), /actions\.0\.dialog\.accept/);
      const badTab = await act({ sessionId: s.sessionId, actions: [{ tab: { id: "second" } }] });
      assert.equal(badTab.status, 400, JSON.stringify(badTab.body));
      assert.match(JSON.stringify(badTab.body), /actions\.0\.tab\.id/);
    } finally {
      await close(s.sessionId);
    }
  });
});

describe("tabs in a session", () => {
  test("a target=_blank link opens a tab: listed, switched to, acted on there, switched back, closed", async () => {
    const s = await session("/tabs");
    try {
      const home = s.data.controls;
      const clicked = await actOk(s.sessionId, [
        { click: { ref: refOf(home, "link", "Open report in new tab") } },
      ]);
      // The agent stays on its tab and is told of the new one.
      assert.equal(clicked.metadata.url, `${stack.site.url}/tabs`);
      assert.equal(clicked.tabs.length, 2, JSON.stringify(clicked.tabs));
      assert.deepEqual(clicked.tabs[0], {
        id: "t1",
        url: `${stack.site.url}/tabs`,
        title: "Reports",
        active: true,
      });
      const opened = clicked.tabs[1];
      assert.equal(opened.id, "t2");
      assert.equal(opened.url, `${stack.site.url}/tab-target?from=link`);
      assert.equal(opened.active, false);
      assert.equal(opened.new, true);
      assert.equal(opened.openedBy, "t1");

      const there = await actOk(s.sessionId, [{ tab: { id: "t2" } }]);
      assert.equal(there.metadata.url, `${stack.site.url}/tab-target?from=link`);
      assert.match(there.data.markdown, /Report from link/);
      assert.deepEqual(
        there.tabs.map((t: Json) => [t.id, t.active, t.new ?? false]),
        [
          ["t1", false, false],
          ["t2", true, false],
        ],
        "new only in the first result that lists it",
      );
      assert.equal(there.tabs[1].title, "Report link");
      // The new tab's refs carry its id.
      const confirmRef = refOf(there.data.controls, "button", "Confirm report");
      assert.match(confirmRef, /^t2e\d+$/);
      const confirmed = await actOk(s.sessionId, [{ click: { ref: confirmRef } }]);
      assert.match(confirmed.data.markdown, /Report confirmed/);

      // A ref of t1 while t2 is active is refused, naming its tab; and t2's while t1 is active.
      const homeRef = refOf(home, "button", "Open report window");
      const wrong = await act({ sessionId: s.sessionId, actions: [{ click: { ref: homeRef } }] });
      assert.equal(wrong.status, 200);
      assert.equal(wrong.body.success, false);
      assert.equal(wrong.body.actions[0].error.code, "wrong_tab");
      assert.match(wrong.body.actions[0].error.message, new RegExp(`ref ${homeRef} is from tab t1`));
      assert.match(wrong.body.actions[0].error.message, /"tab":\{"id":"t1"\}/);

      const back = await actOk(s.sessionId, [{ tab: { id: "t1" } }]);
      assert.equal(back.metadata.url, `${stack.site.url}/tabs`);
      assert.match(back.data.markdown, /Reports/);
      const wrong2 = await act({ sessionId: s.sessionId, actions: [{ click: { ref: confirmRef } }] });
      assert.equal(wrong2.body.actions[0].error.code, "wrong_tab");

      // Closing t2 from t1.
      const closed = await actOk(s.sessionId, [{ tab: { id: "t2", close: true } }]);
      assert.deepEqual(
        closed.tabs.map((t: Json) => t.id),
        ["t1"],
      );
      const gone = await act({ sessionId: s.sessionId, actions: [{ tab: { id: "t2" } }] });
      assert.equal(gone.body.actions[0].error.code, "no_such_tab");
      const stale = await act({ sessionId: s.sessionId, actions: [{ click: { ref: confirmRef } }] });
      assert.equal(stale.body.actions[0].error.code, "wrong_tab");
      assert.match(stale.body.actions[0].error.message, /closed/);
      const last = await act({ sessionId: s.sessionId, actions: [{ tab: { id: "t1", close: true } }] });
      assert.equal(last.body.actions[0].error.code, "last_tab");
    } finally {
      await close(s.sessionId);
    }
  });

  test("window.open followed in the same act with newest; closing the active tab goes back to its opener", async () => {
    const s = await session("/tabs");
    try {
      const followed = await actOk(s.sessionId, [
        { click: { ref: refOf(s.data.controls, "button", "Open report window") } },
        { tab: { id: "newest" } },
      ]);
      assert.equal(followed.metadata.url, `${stack.site.url}/tab-target?from=script`);
      assert.match(followed.data.markdown, /Report from script/);
      assert.deepEqual(
        followed.tabs.map((t: Json) => [t.id, t.active, t.openedBy]),
        [
          ["t1", false, undefined],
          ["t2", true, "t1"],
        ],
      );
      const inTab = await actOk(s.sessionId, [{ tab: { id: "t2", close: true } }]);
      assert.equal(inTab.metadata.url, `${stack.site.url}/tabs`, "the opener is active again");
      assert.deepEqual(
        inTab.tabs.map((t: Json) => [t.id, t.active]),
        [["t1", true]],
      );
      assert.match(refOf(inTab.data.controls, "button", "Open report window"), /^e\d+$/);

      // A page that closes its own window: the session goes back to the opener.
      const again = await actOk(s.sessionId, [
        { click: { ref: refOf(inTab.data.controls, "button", "Open report window") } },
        { tab: { id: "newest" } },
      ]);
      assert.equal(again.tabs.at(-1).id, "t3", "ids are never reused");
      const selfClosed = await actOk(s.sessionId, [
        { click: { ref: refOf(again.data.controls, "button", "Close this window") } },
      ]);
      assert.deepEqual(
        selfClosed.tabs.map((t: Json) => [t.id, t.active]),
        [["t1", true]],
      );
      assert.equal(selfClosed.metadata.url, `${stack.site.url}/tabs`);
    } finally {
      await close(s.sessionId);
    }
  });

  test("at most 8 tabs: the rest are closed at once and reported; a new tab passes the same SSRF guard", async () => {
    const blockedOrigin = stack.site.url.replace("127.0.0.1", "127.0.0.2");
    const s = await session(`/tabs?blocked=${encodeURIComponent(blockedOrigin)}`);
    try {
      const many = await actOk(s.sessionId, [
        { click: { ref: refOf(s.data.controls, "button", "Open ten windows") } },
      ]);
      assert.equal(many.tabs.length, 8, JSON.stringify(many.tabs));
      assert.equal(many.blockedTabs.length, 3, JSON.stringify(many.blockedTabs));
      // Make room, then open a window on an address the guard refuses.
      const room = await actOk(s.sessionId, [
        { tab: { id: "t8", close: true } },
        { tab: { id: "t7", close: true } },
      ]);
      assert.equal(room.tabs.length, 6);
      const internal = await actOk(s.sessionId, [
        { click: { ref: refOf(room.data.controls, "button", "Open internal window") } },
        { tab: { id: "newest" } },
      ]);
      assert.equal(internal.metadata.url, `${blockedOrigin}/tab-target?from=blocked`);
      assert.doesNotMatch(internal.data.markdown, /Report from/);
      assert.match(internal.data.markdown, /blocked|refus/i);
    } finally {
      await close(s.sessionId);
    }
  });

  test("over MCP: web_act answers a confirm and follows a new tab", async () => {
    const client = await connectMcp(stack.api.url, auth());
    try {
      const opened = await callTool(client, "web_session_open", { url: `${stack.site.url}/tabs` });
      assert.equal(opened.isError, false, JSON.stringify(opened.body));
      const id = opened.body.sessionId;
      const link = refOf(opened.body.data.controls, "link", "Open report in new tab");
      const acted = await callTool(client, "web_act", {
        sessionId: id,
        actions: [{ click: { ref: link } }, { tab: { id: "newest" } }],
        formats: ["markdown"],
      });
      assert.equal(acted.isError, false, JSON.stringify(acted.body));
      assert.match(acted.body.data.markdown, /Report from link/);
      assert.deepEqual(
        acted.body.tabs.map((t: Json) => [t.id, t.active]),
        [
          ["t1", false],
          ["t2", true],
        ],
      );
      const nav = await callTool(client, "web_act", {
        sessionId: id,
        actions: [
          { navigate: { url: `${stack.site.url}/dialogs` } },
          { dialog: { accept: true } },
          { click: { ref: "#delete" } },
        ],
        formats: ["markdown"],
      });
      assert.equal(nav.isError, false, JSON.stringify(nav.body));
      assert.match(nav.body.data.markdown, /Item deleted/);
      assert.deepEqual(nav.body.dialogs.map(shape), [["confirm", "accepted", "action"]]);
      await callTool(client, "web_session_close", { sessionId: id });
    } finally {
      await client.close();
    }
  });
});
