import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type Stack, startStack } from "../helpers/stack.ts";

// biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the route answered
type Json = any;

let stack: Stack;
before(async () => {
  stack = await startStack({ slots: 2 });
});
after(async () => {
  await stack?.stop();
});

const open = (body: Json, key = stack.key) =>
  stack.post("/web/v1/session", body, { authorization: `Bearer ${key}` });
const act = (body: Json, key = stack.key) =>
  stack.post("/web/v1/act", body, { authorization: `Bearer ${key}` });

async function close(id: string, key = stack.key): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${stack.api.url}/web/v1/session/${id}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${key}` },
  });
  return { status: res.status, body: await res.json() };
}

const refOf = (controls: Json[], role: string, name: string): string => {
  const c = controls.find((x) => x.role === role && x.name === name);
  assert.ok(c, `no ${role} "${name}" in ${JSON.stringify(controls.map((x) => `${x.role}:${x.name}`))}`);
  return c.ref;
};

describe("live sessions", () => {
  test("a login flow: open, read the controls, type by ref, press Enter, read the signed-in page", async () => {
    const opened = await open({ url: `${stack.site.url}/form` });
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    assert.equal(opened.headers.get("x-charged-usd"), "$0.005");
    const s = opened.body;
    assert.match(s.sessionId, /^ses_/);
    assert.ok(Date.parse(s.metadata.expiresAt) > Date.now());
    const controls = s.data.controls;
    const done = await act({
      sessionId: s.sessionId,
      actions: [
        { type: { ref: refOf(controls, "textbox", "Username"), text: "ada" } },
        { type: { ref: refOf(controls, "textbox", "Password"), text: "secret" } },
        { press: "Enter" },
      ],
      formats: ["markdown"],
    });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.success, true);
    assert.deepEqual(
      done.body.actions.map((a: Json) => [a.index, a.action, a.status]),
      [
        [0, "type", "ok"],
        [1, "type", "ok"],
        [2, "press", "ok"],
      ],
    );
    assert.equal(done.body.stoppedAt, null);
    assert.match(done.body.data.markdown, /Welcome, ada/);
    assert.match(done.body.metadata.url, /\/welcome\?username=ada/);
    assert.equal(done.headers.get("x-charged-usd"), "$0.0015");
    assert.equal((await close(s.sessionId)).status, 200);
  });

  test("select a value by ref; without formats the act answers with the session's formats", async () => {
    const s = (await open({ url: `${stack.site.url}/form`, formats: ["controls", "markdown"] })).body;
    const done = await act({
      sessionId: s.sessionId,
      actions: [
        { select: { ref: refOf(s.data.controls, "combobox", "Favourite colour"), values: ["blue"] } },
      ],
    });
    assert.equal(done.body.success, true, JSON.stringify(done.body));
    assert.deepEqual(Object.keys(done.body.data).sort(), ["controls", "markdown"]);
    const combo = done.body.data.controls.find((c: Json) => c.role === "combobox");
    assert.equal(combo.value, "blue");
    await close(s.sessionId);
  });

  test("changesOnly: an act answers with the controls added, removed and changed and the text that changed, not the whole map", async () => {
    const page = `<h1>Tasks</h1>
<p id="status">Nothing done yet</p>
<p>This line never changes.</p>
<button id="go" type="button">Go</button>
<button id="old" type="button">Old thing</button>
<label><input id="opt" type="checkbox"> Option</label>
<label>Note <input id="note" type="text"></label>
<script>
document.getElementById("go").addEventListener("click", () => {
  document.getElementById("old").remove();
  const added = document.createElement("button");
  added.type = "button";
  added.textContent = "New thing";
  added.addEventListener("click", () => { document.getElementById("status").textContent = "New thing clicked"; });
  document.body.appendChild(added);
  document.getElementById("opt").checked = true;
  document.getElementById("status").textContent = "Done once";
});
</script>`;
    const s = (await open({ html: page })).body;
    assert.ok(s.sessionId, JSON.stringify(s));
    try {
      const before: Json[] = s.data.controls;
      const go = refOf(before, "button", "Go");
      const old = refOf(before, "button", "Old thing");
      const opt = refOf(before, "checkbox", "Option");

      const done = await act({
        sessionId: s.sessionId,
        actions: [{ click: { ref: go } }],
        changesOnly: true,
      });
      assert.equal(done.status, 200, JSON.stringify(done.body));
      assert.equal(done.body.success, true, JSON.stringify(done.body));
      assert.equal(done.body.data.controls, undefined, "no whole controls map");
      const c = done.body.changes;
      assert.equal(c.comparedWith, "previous");
      assert.deepEqual(
        c.controls.added.map((x: Json) => [x.role, x.name]),
        [["button", "New thing"]],
      );
      assert.match(c.controls.added[0].ref, /^e\d+$/);
      assert.deepEqual(c.controls.removed, [{ ref: old, role: "button", name: "Old thing" }]);
      assert.deepEqual(
        c.controls.changed.map((x: Json) => [x.ref, x.role, x.name, x.checked]),
        [[opt, "checkbox", "Option", true]],
        "the Go button and the empty note box did not change, so they are not listed",
      );
      assert.deepEqual(c.text.added, ["Done once"]);
      assert.deepEqual(c.text.removed, ["Nothing done yet"]);

      // The next act compares with this one's state: typing changes only the note's value. Other formats
      // asked for come whole.
      const typed = await act({
        sessionId: s.sessionId,
        actions: [{ type: { ref: refOf(before, "textbox", "Note"), text: "hello" } }],
        formats: ["markdown"],
        changesOnly: true,
      });
      assert.equal(typed.body.success, true, JSON.stringify(typed.body));
      assert.match(typed.body.data.markdown, /Done once/);
      assert.deepEqual(typed.body.changes.controls.added, []);
      assert.deepEqual(typed.body.changes.controls.removed, []);
      assert.deepEqual(
        typed.body.changes.controls.changed.map((x: Json) => [x.role, x.name, x.value]),
        [["textbox", "Note", "hello"]],
      );
      assert.deepEqual(typed.body.changes.text, { added: [], removed: [] });

      // A ref from the changes is usable at once; a full map is back when changesOnly is not asked for.
      const clicked = await act({
        sessionId: s.sessionId,
        actions: [{ click: { ref: c.controls.added[0].ref } }],
      });
      assert.equal(clicked.body.success, true, JSON.stringify(clicked.body));
      assert.equal(clicked.body.changes, undefined);
      assert.deepEqual(
        clicked.body.data.controls.map((x: Json) => x.name),
        ["Go", "Option", "Note", "New thing"],
      );
    } finally {
      await close(s.sessionId);
    }
  });

  test("an act's answer shows what its actions set going: a fetch's result, a timer's change", async () => {
    const s = (await open({ url: `${stack.site.url}/app` })).body;
    try {
      const loaded = await act({
        sessionId: s.sessionId,
        actions: [{ click: { ref: refOf(s.data.controls, "button", "Load data") } }],
        changesOnly: true,
      });
      assert.equal(loaded.body.success, true, JSON.stringify(loaded.body));
      assert.deepEqual(loaded.body.changes.text.added, ["Loaded after 300 ms"]);

      const page = `<button id="save" type="button">Save</button><p id="state">Unsaved</p><script>
document.getElementById("save").addEventListener("click", () => {
  setTimeout(() => { document.getElementById("state").textContent = "Saved"; }, 250);
});
</script>`;
      const t = (await open({ html: page })).body;
      const saved = await act({
        sessionId: t.sessionId,
        actions: [{ click: { ref: refOf(t.data.controls, "button", "Save") } }],
        changesOnly: true,
      });
      assert.deepEqual(saved.body.changes.text, { added: ["Saved"], removed: ["Unsaved"] });
      await close(t.sessionId);
    } finally {
      await close(s.sessionId);
    }
  });

  test("a consent banner that appears by a style change alone during a session is still dismissed", async () => {
    const page = `<h1>Shop</h1><input aria-label="Search"><button id="later" type="button">Later</button>
<div id="cookie-consent" style="display:none; position:fixed; bottom:0; left:0; right:0; background:#eee; padding:20px">
  We use cookies. <button type="button" id="reject">Reject all</button> <button type="button" id="accept">Accept all</button>
</div>
<script>
for (const id of ["reject", "accept"])
  document.getElementById(id).addEventListener("click", () => { document.getElementById("cookie-consent").style.display = "none"; });
document.getElementById("later").addEventListener("click", () => {
  document.getElementById("cookie-consent").style.display = "block";
});
</script>`;
    const s = (await open({ html: page })).body;
    try {
      const search = refOf(s.data.controls, "textbox", "Search");
      // Nothing on the page changes: these acts may skip looking for overlays.
      for (const text of ["a", "b"]) {
        const r = await act({ sessionId: s.sessionId, actions: [{ type: { ref: search, text } }] });
        assert.deepEqual(
          r.body.data.controls.map((c: Json) => c.name),
          ["Search", "Later"],
        );
      }
      const shown = await act({
        sessionId: s.sessionId,
        actions: [{ click: { ref: refOf(s.data.controls, "button", "Later") } }],
      });
      assert.equal(shown.body.success, true, JSON.stringify(shown.body));
      assert.deepEqual(
        shown.body.data.controls.map((c: Json) => c.name),
        ["Search", "Later"],
        "the banner was declined, not left over the page",
      );
    } finally {
      await close(s.sessionId);
    }
  });

  test("a run whose third action fails stops there, says why, and charges only what ran", async () => {
    const s = (await open({ url: `${stack.site.url}/form` })).body;
    const done = await act({
      sessionId: s.sessionId,
      actions: [
        { type: { ref: refOf(s.data.controls, "textbox", "Username"), text: "bob" } },
        { click: { ref: refOf(s.data.controls, "button", "Cancel") } },
        { click: { ref: "e99999" } },
        { press: "Enter" },
      ],
    });
    assert.equal(done.status, 200);
    assert.equal(done.body.success, false);
    assert.equal(done.body.stoppedAt, 2);
    assert.deepEqual(
      done.body.actions.map((a: Json) => a.status),
      ["ok", "ok", "failed", "skipped"],
    );
    const failed = done.body.actions[2];
    assert.equal(failed.error.code, "stale_ref");
    assert.match(failed.error.message, /e99999/);
    assert.match(failed.error.message, /controls/);
    assert.equal(done.headers.get("x-charged-usd"), "$0.001");
    await close(s.sessionId);
  });

  test("a ref from before a navigation is stale, and the error says to take a fresh controls map", async () => {
    const s = (await open({ url: `${stack.site.url}/form` })).body;
    const username = refOf(s.data.controls, "textbox", "Username");
    const moved = await act({
      sessionId: s.sessionId,
      actions: [{ navigate: { url: `${stack.site.url}/page2` } }],
    });
    assert.equal(moved.body.success, true, JSON.stringify(moved.body));
    assert.match(moved.body.metadata.url, /\/page2$/);
    const stale = await act({ sessionId: s.sessionId, actions: [{ type: { ref: username, text: "x" } }] });
    assert.equal(stale.body.success, false);
    assert.equal(stale.body.actions[0].error.code, "stale_ref");
    assert.match(stale.body.actions[0].error.message, new RegExp(`${username}.*fresh controls`));
    await close(s.sessionId);
  });

  test("navigate goes through the SSRF guard: a private address is refused before anything runs", async () => {
    const s = (await open({ url: `${stack.site.url}/form` })).body;
    const refused = await act({
      sessionId: s.sessionId,
      actions: [{ navigate: { url: "http://169.254.169.254/latest/meta-data/" } }],
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.code, "ssrf_blocked");
    assert.equal(refused.body.error.details[0].field, "actions.0.navigate.url");
    await close(s.sessionId);
  });

  test("only the caller that opened a session can act on it or close it; others get 404", async () => {
    const s = (await open({ url: `${stack.site.url}/form` })).body;
    const other = await stack.newKey(1_000_000);
    const theirAct = await act({ sessionId: s.sessionId, actions: [{ press: "Tab" }] }, other.key);
    assert.equal(theirAct.status, 404);
    assert.equal(theirAct.body.error.code, "not_found");
    assert.equal((await close(s.sessionId, other.key)).status, 404);
    const keyless = await stack.postKeyless("/web/v1/act", {
      sessionId: s.sessionId,
      actions: [{ press: "Tab" }],
    });
    assert.equal(keyless.status, 404);
    const made = await act({ sessionId: "ses_doesnotexist123", actions: [{ press: "Tab" }] });
    assert.equal(made.status, 404);
    const mine = await act({ sessionId: s.sessionId, actions: [{ press: "Tab" }] });
    assert.equal(mine.status, 200, "the owner still can");
    await close(s.sessionId);
  });

  test("close frees the slot at once, twice is fine, and an act after close is a free 410", async () => {
    // Both slots held by sessions: a third open is refused at once with Retry-After, never a hang.
    const a = (await open({ url: `${stack.site.url}/form` })).body;
    const b = (await open({ url: `${stack.site.url}/page2`, formats: ["markdown"] })).body;
    const full = await open({ url: `${stack.site.url}/form` });
    assert.equal(full.status, 429, JSON.stringify(full.body));
    assert.equal(full.body.error.code, "no_capacity");
    assert.ok(full.headers.get("retry-after"));
    assert.equal(full.headers.get("x-charged-usd"), null);

    const first = await close(a.sessionId);
    assert.equal(first.status, 200);
    assert.equal(first.body.status, "closed");
    const again = await close(a.sessionId);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, first.body);

    const c = await open({ url: `${stack.site.url}/form` });
    assert.equal(c.status, 200, "the closed session's slot is free again");

    const afterClose = await act({ sessionId: a.sessionId, actions: [{ press: "Tab" }] });
    assert.equal(afterClose.status, 410);
    assert.equal(afterClose.body.error.code, "session_closed");
    assert.equal(afterClose.headers.get("x-charged-usd"), null);
    await close(b.sessionId);
    await close(c.body.sessionId);
  });

  test("minutes past the first are charged once, with the next act", async () => {
    const { key } = await stack.newKey(1_000_000);
    const s = (await open({ url: `${stack.site.url}/form` }, key)).body;
    // The session has been open for 2.5 minutes: minutes 2 and 3 are due.
    await stack.pg.database
      .sql`update sessions set opened_at = now() - interval '150 seconds' where id = ${s.sessionId}`;
    const first = await act({ sessionId: s.sessionId, actions: [{ press: "Tab" }] }, key);
    assert.equal(first.headers.get("x-charged-usd"), "$0.0085");
    const second = await act({ sessionId: s.sessionId, actions: [{ press: "Tab" }] }, key);
    assert.equal(second.headers.get("x-charged-usd"), "$0.0005", "those minutes are not charged again");
    await close(s.sessionId, key);

    const res = await fetch(`${stack.api.url}/web/v1/account/sessions`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const view = (await res.json()) as Json;
    assert.equal(view.sessions.length, 1);
    const row = view.sessions[0];
    assert.equal(row.sessionId, s.sessionId);
    assert.equal(row.status, "closed");
    assert.equal(row.actions, 2);
    assert.equal(row.charged.micros, 5_000 + 8_500 + 500);
    assert.equal(row.closeReason, "closed by the caller");
  });

  test("a key-paid session holds its idle tail at open; its end charges the minutes after the last act, once", async () => {
    const start = 1_000_000;
    const { key } = await stack.newKey(start);
    const account = async () =>
      (await (
        await fetch(`${stack.api.url}/web/v1/account`, { headers: { authorization: `Bearer ${key}` } })
      ).json()) as Json;
    const sessions = async () =>
      (
        (await (
          await fetch(`${stack.api.url}/web/v1/account/sessions`, {
            headers: { authorization: `Bearer ${key}` },
          })
        ).json()) as Json
      ).sessions;
    const opened = await open({ url: `${stack.site.url}/form` }, key);
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    assert.equal(opened.headers.get("x-charged-usd"), "$0.005");
    const id = opened.body.sessionId;
    // 7 minutes of $0.004: the default idle timeout (5 min) plus an act's run (2 min)
    const TAIL = 28_000;
    assert.equal((await account()).balance.micros, start - 5_000 - TAIL);
    assert.deepEqual(
      (await sessions()).map((r: Json) => [r.minutes, r.charged.micros, r.held.micros]),
      [[1, 5_000, TAIL]],
    );
    // It has been open 2.5 minutes, with no act since it opened: minutes 2 and 3 are its idle tail.
    await stack.pg.database
      .sql`update sessions set opened_at = now() - interval '150 seconds' where id = ${id}`;
    assert.equal((await close(id, key)).status, 200);
    assert.equal((await close(id, key)).status, 200, "closing again changes nothing");
    assert.equal((await account()).balance.micros, start - 5_000 - 8_000);
    const [row] = await sessions();
    assert.deepEqual(
      [row.status, row.minutes, row.charged.micros, row.held.micros],
      ["closed", 3, 13_000, 0],
    );
    const ledger = await stack.pg.database.sql<{ kind: string; n: number; total: number }[]>`
      select kind, count(*)::int as n, sum(amount_micros + held_micros)::int as total from ledger_entries
      where account_id = (select account_id from sessions where id = ${id}) and kind <> 'topup'
      group by kind order by kind`;
    assert.deepEqual(
      ledger.map((r) => [r.kind, r.n]),
      [
        ["capture", 2],
        ["hold", 2],
        ["refund", 1],
      ],
      "the open's hold captured whole, the tail's captured in part and the rest refunded",
    );
  });

  test("a balance that covers the opening but not its idle tail is a 402 before any browser opens", async () => {
    const { key } = await stack.newKey(5_000 + 27_999);
    const r = await open({ url: `${stack.site.url}/form` }, key);
    assert.equal(r.status, 402, JSON.stringify(r.body));
    assert.equal(r.body.error.code, "insufficient_balance");
    assert.deepEqual(r.body.error.price, { usd: "$0.033", micros: 33_000 });
    assert.equal(r.body.error.balance.micros, 32_999);
    assert.match(r.body.error.message, /after its last act/);
    const account = await (
      await fetch(`${stack.api.url}/web/v1/account`, { headers: { authorization: `Bearer ${key}` } })
    ).json();
    assert.equal((account as Json).balance.micros, 32_999, "nothing was charged");
  });

  test("bad act input is a 400 naming the field", async () => {
    const tooMany = await act({
      sessionId: "ses_x",
      actions: Array.from({ length: 26 }, () => ({ press: "Tab" })),
    });
    assert.equal(tooMany.status, 400);
    assert.equal(tooMany.body.error.details[0].field, "actions");
    const unknown = await act({ sessionId: "ses_x", actions: [{ teleport: {} }] });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.details[0].field, "actions.0");
  });

  async function mcp(key?: string) {
    const client = new Client({ name: "e2e", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${stack.api.url}/mcp`), {
        requestInit: key ? { headers: { authorization: `Bearer ${key}` } } : {},
      }),
    );
    const call = async (name: string, args: Json) => {
      const r = await client.callTool({ name, arguments: args });
      const text = (r.content as Json)[0].text;
      let body: Json = r.structuredContent;
      if (body === undefined) {
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
      }
      return { isError: r.isError === true, body, text };
    };
    return { client, call };
  }

  test("a keyless MCP client gets one free session, ever; only it can use it", async () => {
    const { client, call } = await mcp();
    const opened = await call("web_session_open", { url: `${stack.site.url}/form` });
    assert.equal(opened.isError, false, opened.text);
    const id = opened.body.sessionId;
    const second = await call("web_session_open", { url: `${stack.site.url}/form` });
    assert.equal(second.isError, true);
    assert.match(second.text, /allowance/);
    const acted = await call("web_act", { sessionId: id, actions: [{ press: "Tab" }] });
    assert.equal(acted.isError, false, acted.text);
    const keyed = await act({ sessionId: id, actions: [{ press: "Tab" }] });
    assert.equal(keyed.status, 404, "a key does not reach a keyless client's session");
    const closed = await call("web_session_close", { sessionId: id });
    assert.equal(closed.body.status, "closed");
    await client.close();
  });

  test("the MCP tools open, act and close on the same path as REST", async () => {
    const { client, call } = await mcp(stack.key);
    const opened = await call("web_session_open", { url: `${stack.site.url}/form` });
    assert.equal(opened.isError, false, JSON.stringify(opened.body));
    const id = opened.body.sessionId;
    const typed = await call("web_act", {
      sessionId: id,
      actions: [
        { type: { ref: refOf(opened.body.data.controls, "textbox", "Username"), text: "mcp" } },
        { press: "Enter" },
      ],
      formats: ["markdown"],
    });
    assert.equal(typed.isError, false, JSON.stringify(typed.body));
    assert.match(typed.body.data.markdown, /Welcome, mcp/);
    const closed = await call("web_session_close", { sessionId: id });
    assert.equal(closed.body.status, "closed");
    const late = await call("web_act", { sessionId: id, actions: [{ press: "Tab" }] });
    assert.equal(late.isError, true);
    await client.close();
  });
});
