/**
 * A session's live view as a person uses it: a real Chromium (Playwright) opens the liveViewUrl the api
 * gave out, watches the session's page change as an agent acts on it, and, in interactive mode, clicks
 * and types into the page through the picture. Links that expired, were changed, or outlived their session
 * are refused; a page's hostile title is shown as text; axe-core finds no serious accessibility violation.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { liveToken } from "../../apps/api/src/live/token.ts";
import { launchPeoplesBrowser, seriousViolations } from "../helpers/people.ts";
import { type Stack, startStack } from "../helpers/stack.ts";
import { waitFor } from "../helpers/wait-for.ts";

// biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the route answered
type Json = any;

let stack: Stack;
let viewerBrowser: Browser;

/** A form whose state shows in its colours: a typed value turns the page red, a click turns it green. */
const FORM = `<!doctype html><html><head><title>Sign up</title><style>
  body { margin: 0; background: #fff; font: 32px sans-serif; }
  body.typed { background: rgb(220, 0, 0); }
  body.clicked { background: rgb(0, 200, 0); }
  input, button { font-size: 32px; margin: 40px; width: 400px; height: 80px; }
</style></head><body>
  <input id="name" aria-label="Name">
  <button id="go" type="button">Go</button>
  <p id="out">Clicked 0 times</p>
  <script>
    let n = 0;
    document.getElementById("name").addEventListener("input", (e) => {
      document.body.className = e.target.value ? "typed" : "";
    });
    document.getElementById("go").addEventListener("click", () => {
      n += 1;
      document.body.className = "clicked";
      document.getElementById("out").textContent = "Clicked " + n + " times";
    });
  </script>
</body></html>`;

const HOSTILE_TITLE = `<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>`;

before(async () => {
  stack = await startStack({ jobs: false, slots: 4 });
  viewerBrowser = await launchPeoplesBrowser();
});

after(async () => {
  await viewerBrowser?.close();
  await stack?.stop();
});

async function openSession(body: Record<string, unknown>): Promise<Json> {
  const res = await stack.post("/web/v1/session", { html: FORM, ...body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

const refOf = (controls: Json[], role: string, name: string): Json => {
  const c = controls.find((x) => x.role === role && x.name === name);
  assert.ok(c, `no ${role} "${name}"`);
  return c;
};

/** The viewer's current picture, sampled at a point given in the page's CSS pixels: [r, g, b]. */
async function pixelAt(viewer: Page, x: number, y: number): Promise<number[]> {
  return viewer.evaluate(
    async ([px, py]) => {
      const img = document.querySelector("img.frame") as HTMLImageElement | null;
      if (!img) return [-1, -1, -1];
      await img.decode().catch(() => {});
      const c = document.createElement("canvas");
      c.width = img.naturalWidth;
      c.height = img.naturalHeight;
      const g = c.getContext("2d")!;
      g.drawImage(img, 0, 0);
      const scale = img.naturalWidth / Number(img.getAttribute("width"));
      return [...g.getImageData(Math.round(px! * scale), Math.round(py! * scale), 1, 1).data.slice(0, 3)];
    },
    [x, y],
  );
}

const near = (rgb: number[], want: number[]) => rgb.every((v, i) => Math.abs(v - want[i]!) < 40);

async function openViewer(url: string): Promise<Page> {
  const page = await viewerBrowser.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  const res = await page.goto(url);
  assert.equal(res?.status(), 200);
  const csp = res?.headers()["content-security-policy"] ?? "";
  assert.match(csp, /script-src 'self'/);
  assert.equal(res?.headers()["referrer-policy"], "no-referrer");
  await page.waitForSelector("img.frame", { timeout: 15_000 });
  assert.deepEqual(errors, []);
  return page;
}

describe("live view", () => {
  test("watching: the picture follows the agent's acts, with the page's title, URL and the actions (typed text only as its length)", async () => {
    const s = await openSession({});
    assert.match(s.liveViewUrl, new RegExp(`^${stack.api.url}/live/${s.sessionId}\\.v\\.`));
    // The sessions view gives the same link while the session is open.
    const listed = (await stack.call("GET", "/web/v1/account/sessions")).body.sessions.find(
      (x: Json) => x.sessionId === s.sessionId,
    );
    assert.equal(listed.liveViewUrl, s.liveViewUrl);
    const viewer = await openViewer(s.liveViewUrl);
    await viewer.getByText("Sign up", { exact: true }).waitFor();
    // White before anything was typed.
    assert.ok(near(await pixelAt(viewer, 5, 5), [255, 255, 255]));
    const name = refOf(s.data.controls, "textbox", "Name");
    const act = await stack.post("/web/v1/act", {
      sessionId: s.sessionId,
      actions: [{ type: { ref: name.ref, text: "secret-hello" } }],
    });
    assert.equal(act.status, 200, JSON.stringify(act.body));
    // The typed value appears in the picture: the page turned red.
    await waitFor(
      "the picture turned red",
      async () => near(await pixelAt(viewer, 5, 5), [220, 0, 0]),
      15_000,
    );
    const log = await viewer.locator(".actions li").first().textContent();
    assert.match(log ?? "", /type.*12 characters/);
    assert.doesNotMatch(await viewer.content(), /secret-hello/);
    // View only: the viewer's input is refused, and says why.
    const token = new URL(s.liveViewUrl).pathname.split("/").pop();
    const input = await fetch(`${stack.api.url}/live/${token}/input`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ type: "click", x: 10, y: 10 }),
    });
    assert.equal(input.status, 403);
    assert.equal(((await input.json()) as Json).error.code, "live_view_only");
    // Closing the session ends the view: the page says so, and the link is refused from then on.
    await stack.call("DELETE", `/web/v1/session/${s.sessionId}`);
    await viewer.getByText(/The session ended \(closed\)/).waitFor({ timeout: 15_000 });
    assert.equal((await fetch(s.liveViewUrl)).status, 410);
    assert.equal((await fetch(`${s.liveViewUrl}/events`)).status, 410);
    const after = (await stack.call("GET", "/web/v1/account/sessions")).body.sessions.find(
      (x: Json) => x.sessionId === s.sessionId,
    );
    assert.equal(after.liveViewUrl, undefined);
    await viewer.close();
  });

  test("interactive: a person clicks and types through the picture, and the agent's next act sees it", async () => {
    const s = await openSession({ liveView: "interactive" });
    assert.match(s.liveViewUrl, /\.i\./);
    const viewer = await openViewer(s.liveViewUrl);
    const img = viewer.locator("img.frame");
    const frameWidth = Number(await img.getAttribute("width"));
    const at = async (box: Json) => {
      const r = (await img.boundingBox())!;
      const k = r.width / frameWidth;
      return { x: r.x + (box.x + box.width / 2) * k, y: r.y + (box.y + box.height / 2) * k };
    };
    const go = refOf(s.data.controls, "button", "Go");
    let p = await at(go.box);
    await viewer.mouse.click(p.x, p.y);
    await waitFor(
      "the click turned it green",
      async () => near(await pixelAt(viewer, 5, 5), [0, 200, 0]),
      15_000,
    );
    p = await at(refOf(s.data.controls, "textbox", "Name").box);
    await viewer.mouse.click(p.x, p.y);
    await viewer.keyboard.type("by hand");
    const read = async () =>
      (
        await stack.post("/web/v1/act", {
          sessionId: s.sessionId,
          actions: [{ wait: { ms: 50 } }],
          formats: ["controls", "markdown"],
        })
      ).body;
    await waitFor(
      "the typed text reached the page",
      async () => refOf((await read()).data.controls, "textbox", "Name").value === "by hand",
      15_000,
    );
    assert.match((await read()).data.markdown, /Clicked 1 times/);
    // Bad input is a 400 naming the field, never a 500.
    const token = new URL(s.liveViewUrl).pathname.split("/").pop();
    const bad = await fetch(`${stack.api.url}/live/${token}/input`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ type: "click", x: "left" }),
    });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as Json).error.details[0].field, "x");
    await stack.call("DELETE", `/web/v1/session/${s.sessionId}`);
    await viewer.close();
  });

  test("a link opens its own session only, and not once it expired or was changed", async () => {
    const a = await openSession({});
    const b = await openSession({ liveView: "off" });
    assert.equal(b.liveViewUrl, undefined);
    const token = new URL(a.liveViewUrl).pathname.split("/").pop()!;
    // a's signature on b's id.
    const foreign = token.replace(a.sessionId, b.sessionId);
    for (const path of [`/live/${foreign}`, `/live/${foreign}/events`])
      assert.equal((await fetch(stack.api.url + path)).status, 404, path);
    // Signed here, but past its time.
    const secret = (await readFile(join(stack.dataDir, "artifact-url-secret"), "utf8")).trim();
    const expired = liveToken(secret, {
      sessionId: a.sessionId,
      mode: "view",
      expires: Math.floor(Date.now() / 1000) - 1,
    });
    const refused = await fetch(`${stack.api.url}/live/${expired}`);
    assert.equal(refused.status, 404);
    assert.match(await refused.text(), /<div id="app" data-refused="invalid">/);
    // The same secret signs a live link that does work (so the expiry above is what refused it).
    const fresh = liveToken(secret, {
      sessionId: a.sessionId,
      mode: "view",
      expires: Math.floor(Date.now() / 1000) + 60,
    });
    assert.equal((await fetch(`${stack.api.url}/live/${fresh}`)).status, 200);
    for (const s of [a, b]) await stack.call("DELETE", `/web/v1/session/${s.sessionId}`);
  });

  test("a page's hostile title is shown as text and runs nothing; no serious accessibility violation", async () => {
    const s = await openSession({
      html: `<!doctype html><html><head><title>${HOSTILE_TITLE.replace(/</g, "&lt;")}</title></head><body><p>Hi</p></body></html>`,
    });
    const viewer = await openViewer(s.liveViewUrl);
    await viewer.locator(".title", { hasText: "onerror" }).waitFor({ timeout: 15_000 });
    assert.equal(await viewer.locator(".title").textContent(), HOSTILE_TITLE);
    assert.equal(await viewer.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
    assert.equal(await viewer.locator('img[src="x"]').count(), 0);
    assert.deepEqual(await seriousViolations(viewer), []);
    await stack.call("DELETE", `/web/v1/session/${s.sessionId}`);
    await viewer.close();
  });
});
