/**
 * Session recordings as an agent's developer uses them: a session opened with record: true is recorded
 * while the agent acts (the page, what was typed, each action), priced per minute, listed in the sessions
 * view, and replayed in a real Chromium at its recordingUrl with the actions as steps to jump to. What the
 * agent types into a password field never leaves the page, even once the page shows the password as text.
 * Changed or expired links open nothing; a keyless caller cannot record; a recording stops at the
 * deployment's size limit and says so.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { recordingToken } from "../../apps/api/src/recordings/token.ts";
import { launchPeoplesBrowser, seriousViolations } from "../helpers/people.ts";
import { type Stack, startStack } from "../helpers/stack.ts";
import { waitFor } from "../helpers/wait-for.ts";

// biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the route answered
type Json = any;

const PASSWORD = "hunter2-Secret-7781";
const NAME = "Ada Lovelace";

/** A sign-in form; its "Show password" box turns the password field into a text field, as many sites do. */
const LOGIN = `<!doctype html><html><head><title>Sign in</title><style>
  body { font: 18px sans-serif; margin: 2rem; }
  .welcome { color: rgb(0, 120, 0); font-weight: bold; }
</style></head><body>
  <h1>Sign in</h1>
  <label>Name <input id="name" autocomplete="username"></label>
  <label>Password <input id="pw" type="password" autocomplete="current-password"></label>
  <label><input id="show" type="checkbox"> Show password</label>
  <button id="go" type="button">Sign in</button>
  <p id="out"></p>
  <script>
    document.getElementById("show").addEventListener("change", (e) => {
      document.getElementById("pw").type = e.target.checked ? "text" : "password";
    });
    document.getElementById("go").addEventListener("click", () => {
      const out = document.getElementById("out");
      out.className = "welcome";
      out.textContent = "Welcome, " + document.getElementById("name").value;
    });
  </script>
</body></html>`;

let stack: Stack;
let people: Browser;

before(async () => {
  // The smallest recording the deployment keeps is 64 KiB: a page that writes much more is cut there.
  stack = await startStack({ jobs: false, slots: 3, env: { RECORDING_MAX_BYTES: String(64 * 1024) } });
  people = await launchPeoplesBrowser();
});

after(async () => {
  await people?.close();
  await stack?.stop();
});

const refOf = (controls: Json[], role: string, name: string): string => {
  const c = controls.find((x) => x.role === role && x.name === name);
  assert.ok(c, `no ${role} "${name}" in ${JSON.stringify(controls.map((x) => [x.role, x.name]))}`);
  return c.ref;
};

async function listed(sessionId: string): Promise<Json> {
  const res = await stack.call("GET", "/web/v1/account/sessions?limit=50");
  assert.equal(res.status, 200);
  return res.body.sessions.find((s: Json) => s.sessionId === sessionId);
}

describe("session recordings", () => {
  test("a recorded session replays its page, what was typed and each action; the password never leaves the page", async () => {
    const opened = await stack.post("/web/v1/session", { html: LOGIN, record: true });
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const s = opened.body;
    assert.match(s.recordingUrl, new RegExp(`^${stack.api.url}/recordings/${s.sessionId}\\.\\d+\\.`));
    const controls = s.data.controls;
    const acted = await stack.post("/web/v1/act", {
      sessionId: s.sessionId,
      actions: [
        { type: { ref: refOf(controls, "textbox", "Name"), text: NAME } },
        { type: { ref: refOf(controls, "textbox", "Password"), text: PASSWORD } },
        { click: { ref: refOf(controls, "checkbox", "Show password") } },
        { click: { ref: refOf(controls, "button", "Sign in") } },
      ],
    });
    assert.equal(acted.status, 200, JSON.stringify(acted.body));
    assert.equal(acted.body.success, true);
    const during = await listed(s.sessionId);
    assert.equal(during.recording.status, "recording");
    assert.equal(during.recording.url, s.recordingUrl);
    assert.equal((await stack.call("DELETE", `/web/v1/session/${s.sessionId}`)).status, 200);

    // Ready once the worker's last part is in; the sessions view says how long and how large.
    const row = await waitFor(
      "the recording ready",
      async () => {
        const r = await listed(s.sessionId);
        return r.recording.status === "ready" && r.recording.events > 0 ? r : undefined;
      },
      15_000,
    );
    assert.ok(row.recording.bytes > 0 && row.recording.durationMs > 0, JSON.stringify(row.recording));
    assert.equal(row.recording.url, s.recordingUrl);
    // Priced per minute: $0.001 on top of each of the session's minutes, the first with the open.
    const perMinute = 4_000 + 1_000;
    assert.equal(
      row.charged.micros,
      5_000 + 1_000 + 4 * 500 + (row.minutes - 1) * perMinute,
      JSON.stringify(row),
    );

    // The events: the page, the name as typed, the actions as steps (typed text by its length only),
    // and no trace of the password, masked or not, anywhere.
    const raw = await fetch(`${s.recordingUrl}/events`);
    assert.equal(raw.status, 200);
    assert.match(raw.headers.get("content-type") ?? "", /application\/x-ndjson/);
    const text = await raw.text();
    assert.ok(!text.includes(PASSWORD), "the password is in the recording");
    assert.ok(!text.includes(PASSWORD.slice(0, 7)), "part of the password is in the recording");
    const events = text
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    assert.ok(
      events.some((e) => e.type === 2),
      "a full snapshot of the page",
    );
    assert.ok(text.includes(NAME), "the typed name is in the recording");
    const steps = events.filter((e) => e.type === 5 && e.data.tag === "action").map((e) => e.data.payload);
    assert.deepEqual(
      steps.map((p) => [p.action, p.detail ?? "", p.ok]),
      [
        ["type", `${NAME.length} characters`, true],
        ["type", `${PASSWORD.length} characters`, true],
        ["click", "", true],
        ["click", "", true],
      ],
    );
    assert.ok(events.some((e) => e.type === 5 && e.data.tag === "ended"));

    // A person replays it: the steps are listed, jumping to the last shows the page as the click left it.
    const page = await people.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const res = await page.goto(s.recordingUrl);
    assert.equal(res?.status(), 200);
    const csp = res?.headers()["content-security-policy"] ?? "";
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.equal(res?.headers()["referrer-policy"], "no-referrer");
    const stepButtons = page.locator(".steps li.action button");
    await stepButtons.first().waitFor({ timeout: 15_000 });
    assert.equal(await stepButtons.count(), 4);
    assert.match(await stepButtons.nth(1).innerText(), new RegExp(`${PASSWORD.length} characters`));
    await stepButtons.nth(3).click();
    await page.locator(".steps li.ended button").click();
    const replayed = page.frameLocator(".frame iframe");
    await replayed.getByText(`Welcome, ${NAME}`).waitFor({ timeout: 15_000 });
    // The password field (a text field by then) shows the mask, never the password.
    const shown = await replayed.locator("#pw").inputValue();
    assert.ok(shown.length > 0 && !shown.includes(PASSWORD.slice(0, 3)), `password field shows ${shown}`);
    assert.equal(await replayed.locator("#name").inputValue(), NAME);
    // Play runs to the end and stops.
    await page.getByRole("button", { name: "Play" }).click();
    await page.getByRole("button", { name: "Play" }).waitFor({ timeout: 20_000 });
    assert.deepEqual(await seriousViolations(page), []);
    assert.deepEqual(errors, []);
    // The page's own script never ran in the replay.
    assert.equal(await replayed.locator("script").count(), 0);
    await page.close();
  });

  test("the recording follows the agent to another tab, from a full snapshot of it, and never shows a tab in the background", async () => {
    const opened = await stack.post("/web/v1/session", { url: `${stack.site.url}/tabs`, record: true });
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const { sessionId, recordingUrl } = opened.body;
    const act = async (actions: Json[]) => {
      const r = await stack.post("/web/v1/act", { sessionId, actions });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.success, true, JSON.stringify(r.body.actions));
      return r.body;
    };
    await act([{ click: { ref: refOf(opened.body.data.controls, "link", "Open report in new tab") } }]);
    const there = await act([{ tab: { id: "t2" } }]);
    await act([{ click: { ref: refOf(there.data.controls, "button", "Confirm report") } }]);
    assert.equal((await stack.call("DELETE", `/web/v1/session/${sessionId}`)).status, 200);
    await waitFor("the recording ready", async () => (await listed(sessionId)).recording.status === "ready");

    const events = (await (await fetch(`${recordingUrl}/events`)).text())
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const pages = events.flatMap((e, i) => (e.type === 4 ? [[i, new URL(e.data.href).pathname]] : []));
    const switched = events.findIndex((e) => e.type === 5 && e.data.payload?.action === "tab");
    assert.ok(switched > 0, "the tab action is a step");
    // Before the switch only the first tab; after it, the report's tab from a snapshot of its own.
    assert.ok(pages.length >= 2, JSON.stringify(pages));
    assert.ok(
      pages.filter(([i]) => (i as number) < switched).every(([, path]) => path === "/tabs"),
      JSON.stringify({ pages, switched }),
    );
    const reportAt = pages.find(([, path]) => path === "/tab-target")?.[0] as number;
    assert.ok(reportAt > switched, JSON.stringify({ pages, switched }));
    assert.equal(events[reportAt + 1]?.type, 2, "a full snapshot follows the new tab's meta");
    const confirmed = events.findIndex((e) => JSON.stringify(e).includes("Report confirmed"));
    assert.ok(confirmed > reportAt, "the click on the report's tab is in the recording");
  });

  test("a quiet spell between acts loses nothing: what comes after it is recorded", async () => {
    const opened = await stack.post("/web/v1/session", { html: LOGIN, record: true });
    assert.equal(opened.status, 200);
    const { sessionId, recordingUrl } = opened.body;
    await waitFor("the first part stored", async () => (await listed(sessionId)).recording.bytes > 0);
    // A few seconds with nothing to send: the worker's flush comes and finds nothing (this once stopped
    // every later part from going out).
    await new Promise((r) => setTimeout(r, 4_000));
    const acted = await stack.post("/web/v1/act", {
      sessionId,
      actions: [{ type: { ref: refOf(opened.body.data.controls, "textbox", "Name"), text: NAME } }],
    });
    assert.equal(acted.status, 200);
    assert.equal((await stack.call("DELETE", `/web/v1/session/${sessionId}`)).status, 200);
    await waitFor("the recording ready", async () => (await listed(sessionId)).recording.status === "ready");
    const text = await (await fetch(`${recordingUrl}/events`)).text();
    assert.ok(text.includes(`"${NAME.length} characters"`), "the action after the quiet spell");
    assert.ok(text.includes('"tag":"ended"'), "the session's end");
  });

  test("links: a changed or expired one opens nothing; an unrecorded session has none; a keyless caller cannot record", async () => {
    const opened = await stack.post("/web/v1/session", { html: LOGIN, record: true });
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const { sessionId, recordingUrl } = opened.body;
    const token = recordingUrl.split("/recordings/")[1] as string;
    const [id, expires, signature] = token.split(".");
    const changed = [
      `${id}.${Number(expires) + 1}.${signature}`,
      `${id}.${expires}.${signature!.slice(0, -2)}AA`,
      `ses_${"A".repeat(20)}.${expires}.${signature}`,
    ];
    for (const t of changed) {
      const pageRes = await fetch(`${stack.api.url}/recordings/${t}`);
      assert.equal(pageRes.status, 404, t);
      assert.match(await pageRes.text(), /data-refused="invalid"/);
      assert.equal((await fetch(`${stack.api.url}/recordings/${t}/events`)).status, 404, t);
    }
    // Signed here, but past its time.
    const secret = (await readFile(join(stack.dataDir, "artifact-url-secret"), "utf8")).trim();
    const past = recordingToken(secret, { sessionId, expires: Math.floor(Date.now() / 1000) - 1 });
    assert.equal((await fetch(`${stack.api.url}/recordings/${past}/events`)).status, 404);
    // A live view link is no recording link, though both are signed with the same secret.
    const live = opened.body.liveViewUrl.split("/live/")[1];
    assert.equal((await fetch(`${stack.api.url}/recordings/${live}/events`)).status, 404);
    await stack.call("DELETE", `/web/v1/session/${sessionId}`);

    const plain = await stack.post("/web/v1/session", { html: LOGIN });
    assert.equal(plain.status, 200);
    assert.equal(plain.body.recordingUrl, undefined);
    assert.equal((await listed(plain.body.sessionId)).recording, undefined);
    await stack.call("DELETE", `/web/v1/session/${plain.body.sessionId}`);

    const keyless = await stack.postKeyless("/web/v1/session", { html: LOGIN, record: true });
    assert.equal(keyless.status, 402, JSON.stringify(keyless.body));
    const bad = await stack.post("/web/v1/session", { html: LOGIN, record: "yes" });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.details[0].field, "record");
  });

  test("a recording stops at the deployment's size limit, says so, and the session goes on", async () => {
    // Each click writes 8 KiB of fresh text that compresses poorly: a few acts pass 64 KiB.
    const NOISY = `<!doctype html><html><body><button id="more" type="button">More</button><div id="log"></div>
      <script>
        document.getElementById("more").addEventListener("click", () => {
          const p = document.createElement("pre");
          let s = "";
          for (let i = 0; i < 8192; i++) s += String.fromCharCode(33 + Math.floor(Math.random() * 90));
          p.textContent = s;
          document.getElementById("log").append(p);
        });
      </script></body></html>`;
    const opened = await stack.post("/web/v1/session", { html: NOISY, record: true });
    assert.equal(opened.status, 200);
    const more = refOf(opened.body.data.controls, "button", "More");
    // The page as it opened is stored first (its part goes within seconds): what the limit cuts comes after.
    await waitFor(
      "the first part stored",
      async () => (await listed(opened.body.sessionId)).recording.bytes > 0,
    );
    for (let i = 0; i < 6; i++) {
      const acted = await stack.post("/web/v1/act", {
        sessionId: opened.body.sessionId,
        actions: Array.from({ length: 4 }, () => ({ click: { ref: more } })),
      });
      assert.equal(acted.status, 200, JSON.stringify(acted.body));
      assert.equal(acted.body.success, true);
    }
    assert.equal((await stack.call("DELETE", `/web/v1/session/${opened.body.sessionId}`)).status, 200);
    let last: Json;
    const row = await waitFor(
      "the recording cut at its limit",
      async () => {
        last = await listed(opened.body.sessionId);
        return last.recording.status === "ready" && last.recording.truncated ? last : undefined;
      },
      15_000,
    ).catch((err) => assert.fail(`${err.message}: ${JSON.stringify(last?.recording)}`));
    assert.ok(row.recording.bytes <= 64 * 1024, JSON.stringify(row.recording));
    // What was kept still replays from its start.
    const text = await (await fetch(`${opened.body.recordingUrl}/events`)).text();
    assert.ok(text.split("\n").some((l) => l.startsWith('{"type":2')));
  });
});
