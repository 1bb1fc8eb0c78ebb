import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Action, action } from "@browserfleet/contracts";
import { parseAllowList } from "@browserfleet/ssrf";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { type FixtureSite, startFixtureSite } from "../../../test/fixture-site/server.ts";
import { ChromiumKeeper, findChromium } from "../src/chromium.ts";
import type { Control } from "../src/formats/controls-tree.ts";
import { readControls } from "../src/formats/render.ts";
import settleInit from "../src/injected/generated/settle-init.ts";
import { SETTLE_GLOBAL } from "../src/injected/lib/globals.ts";
import { type GuardProxy, startGuardProxy } from "../src/net/guard-proxy.ts";
import type { Seen } from "../src/page/settle.ts";
import { type RunActionsOptions, runActions } from "../src/session/actions.ts";
import { selectForTyping } from "../src/session/type-ready.ts";

describe("session actions on a live page", () => {
  let site: FixtureSite;
  let proxy: GuardProxy;
  let keeper: ChromiumKeeper;
  let browser: Browser;
  let context: BrowserContext;

  before(async () => {
    site = await startFixtureSite();
    proxy = await startGuardProxy(parseAllowList("127.0.0.1"));
    // As the worker launches it: every connection, loopback included, through the guard proxy.
    keeper = new ChromiumKeeper(findChromium()!, [
      `--proxy-server=${proxy.url}`,
      "--proxy-bypass-list=<-loopback>",
    ]);
    browser = await keeper.browser();
    context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    // As the worker's contexts have it: the bookkeeping settling reads.
    await context.addInitScript(settleInit);
  });

  after(async () => {
    await context?.close().catch(() => {});
    await keeper?.close();
    await proxy?.close();
    await site?.close();
  });

  const open = async (path: string): Promise<Page> => {
    const page = await context.newPage();
    await page.goto(site.url + path);
    return page;
  };
  const controls = async (page: Page): Promise<Control[]> => (await readControls(page, true, 200)).controls;
  const refOf = (cs: Control[], role: string, name: string): string => {
    const c = cs.find((x) => x.role === role && x.name === name);
    assert.ok(c, `no ${role} "${name}" in ${JSON.stringify(cs.map((x) => [x.role, x.name]))}`);
    return c.ref;
  };
  /** Actions as an agent sends them, through the contract (which fills defaults). */
  const acts = (...raw: unknown[]): Action[] => raw.map((r) => action.parse(r));
  const run = (page: Page, actions: Action[], opts: Partial<RunActionsOptions> = {}) =>
    runActions(page, proxy, actions, { budgetMs: 30_000, actionTimeoutMs: 5_000, ...opts });
  const text = async (page: Page, selector: string) => (await page.locator(selector).textContent())?.trim();
  const statuses = (r: Awaited<ReturnType<typeof run>>) => r.outcomes.map((o) => o.status);
  const assertAllOk = (r: Awaited<ReturnType<typeof run>>) => {
    assert.equal(r.stoppedAt, null, JSON.stringify(r.outcomes));
    assert.ok(
      r.outcomes.every((o) => o.status === "ok"),
      JSON.stringify(r.outcomes),
    );
  };

  it("logs in through the form by ref: type, type, press Enter", async () => {
    const page = await open("/form");
    const cs = await controls(page);
    const r = await run(
      page,
      acts(
        { type: { ref: refOf(cs, "textbox", "Username"), text: "alice" } },
        { type: { ref: refOf(cs, "textbox", "Password"), text: "secret" } },
        { press: "Enter" },
      ),
    );
    assertAllOk(r);
    assert.deepEqual(
      r.outcomes.map((o) => [o.index, o.action]),
      [
        [0, "type"],
        [1, "type"],
        [2, "press"],
      ],
    );
    assert.ok(r.outcomes.every((o) => typeof o.ms === "number"));
    // No wait action: the press's navigation was settled to load.
    assert.equal(await text(page, "h1"), "Welcome, alice");
    assert.match(page.url(), /\/welcome\?username=alice/);
    await page.close();
  });

  it("type, then Enter: each run ends on the page the form led to, ten times in a row", async () => {
    for (let i = 0; i < 10; i++) {
      const page = await open("/form");
      const cs = await controls(page);
      const r = await run(
        page,
        acts({ type: { ref: refOf(cs, "textbox", "Username"), text: `user${i}` } }, { press: "Enter" }),
      );
      assertAllOk(r);
      // Read at once, as the act's result is: the run waited for the page the Enter sent the form to.
      assert.match(page.url(), /\/welcome\?username=user/, `round ${i}`);
      assert.equal(await text(page, "h1"), `Welcome, user${i}`, `round ${i}`);
      await page.close();
    }
  });

  /** What a read of the page's settle state finds now, as a session keeps it from one act to the next. */
  const seenNow = (page: Page): Promise<Seen> =>
    page.evaluate((key) => {
      const s = (window as unknown as Record<string, { state(y: number): Seen }>)[key]!.state(0);
      return { origin: s.origin, asked: s.asked };
    }, SETTLE_GLOBAL);

  it("typing tells when no page script can see the text: a plain form's field, the page having queued nothing since the last read", async () => {
    const page = await open("/form");
    const field = page.locator("#username");
    assert.equal(await selectForTyping(field, 5_000, await seenNow(page)), "unseen");
    // Without a read to start from, or once the page has queued something since it: only ready.
    assert.equal(await selectForTyping(field, 5_000), "ready");
    const before = await seenNow(page);
    await page.evaluate(() => setTimeout(() => {}, 10));
    assert.equal(await selectForTyping(field, 5_000, before), "ready");
    // Any way page script could see typing makes it only ready.
    const seenBy: Record<string, string> = {
      "an input listener": `<script>document.addEventListener("input", () => {})</script>`,
      "an oninput property": `<script>document.getElementById("f").oninput = () => {}</script>`,
      "an inline handler": `<div oninput="void 0"></div>`,
      "a selectionchange handler": `<script>document.onselectionchange = () => {}</script>`,
      "a transition listener": `<script>document.body.addEventListener("transitionend", () => {})</script>`,
      "a child frame": `<iframe></iframe>`,
      "a shadow root": `<div id="h"></div><script>document.getElementById("h").attachShadow({ mode: "open" })</script>`,
    };
    for (const [name, extra] of Object.entries(seenBy)) {
      const p = await context.newPage();
      await p.route(`${site.url}/seen`, (route) =>
        route.fulfill({ contentType: "text/html", body: `<input id="f" aria-label="F">${extra}` }),
      );
      await p.goto(`${site.url}/seen`);
      assert.equal(await selectForTyping(p.locator("#f"), 5_000, await seenNow(p)), "ready", name);
      await p.close();
    }
    // Page script that listens only for keys or clicks cannot see text typed in.
    const keys = await context.newPage();
    await keys.route(`${site.url}/keys`, (route) =>
      route.fulfill({
        contentType: "text/html",
        body: `<input id="f" aria-label="F"><script>
          addEventListener("keydown", () => {}); document.addEventListener("click", () => {});
        </script>`,
      }),
    );
    await keys.goto(`${site.url}/keys`);
    assert.equal(await selectForTyping(keys.locator("#f"), 5_000, await seenNow(keys)), "unseen");
    await keys.close();
    await page.close();
  });

  it("type replaces the value, and submit presses Enter", async () => {
    const page = await open("/form");
    const cs = await controls(page);
    const user = refOf(cs, "textbox", "Username");
    await page.locator("#username").fill("old value");
    const r = await run(page, acts({ type: { ref: user, text: "bob", submit: true } }));
    assertAllOk(r);
    assert.equal(await text(page, "h1"), "Welcome, bob");
    await page.close();
  });

  it("type leaves a field as Playwright's fill does: the same events, value, selection and focus; fields not ready still wait and fail as fill does", async () => {
    const page = await context.newPage();
    const field = (id: string, tag: string, extra = "") =>
      tag === "textarea"
        ? `<label>${id} <textarea id="${id}" ${extra}>old text</textarea></label>`
        : `<label>${id} <input id="${id}" type="${tag}" value="old text" ${extra}></label>`;
    const kinds = ["text", "textarea", "password", "search"];
    await page.setContent(
      `${kinds.map((k) => field(`ours-${k}`, k) + field(`fill-${k}`, k)).join("")}
      <label>number <input id="num" type="number"></label>
      <label>aria-off <input id="aria-off" type="text" aria-disabled="true"></label>
      <label>frozen <input id="frozen" type="text" readonly></label>
      <div inert><label>inert <input id="inert" type="text"></label></div>
      <script>
        window.log = [];
        for (const el of document.querySelectorAll("input, textarea"))
          for (const type of ["focus", "select", "beforeinput", "input", "change", "keydown", "blur"])
            el.addEventListener(type, (e) => {
              const who = el.id.replace(/^(ours|fill)-/, "");
              log.push([el.id.split("-")[0], who, e.type, e.inputType ?? "", e.data ?? "", e.isTrusted].join(":"));
            });
      </script>`,
    );
    const cs = await controls(page);
    const events = async (side: string) =>
      (await page.evaluate(() => (window as unknown as { log: string[] }).log)).filter((e) =>
        e.startsWith(`${side}:`),
      );
    for (const k of kinds) {
      const ours = refOf(cs, k === "search" ? "searchbox" : "textbox", `ours-${k}`);
      assertAllOk(await run(page, acts({ type: { ref: ours, text: "new words" } })));
      const state = (id: string) =>
        page.evaluate((i) => {
          const el = document.getElementById(i) as HTMLInputElement;
          return [el.value, el.selectionStart, el.selectionEnd, document.activeElement === el];
        }, id);
      const oursState = await state(`ours-${k}`);
      await page.locator(`#fill-${k}`).fill("new words");
      assert.deepEqual(oursState, await state(`fill-${k}`), k);
      assert.equal(oursState[0], "new words");
    }
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    // Focus moves from field to field alike on both sides: the same events, in the same order, but
    // for the select event, a task the page runs whenever it comes to it (with fill too).
    const inOrder = async (side: string) =>
      (await events(side)).map((e) => e.slice(5)).filter((e) => !e.includes(":select:"));
    assert.deepEqual(await inOrder("ours"), await inOrder("fill"));
    // Both sides' select tasks have run once every field has logged one (fill's last one may still be
    // queued when its fill returns).
    await page.waitForFunction(
      (n) => (window as unknown as { log: string[] }).log.filter((e) => e.includes(":select:")).length >= n,
      kinds.length * 2,
    );
    const selects = async (side: string) =>
      (await events(side)).map((e) => e.slice(5)).filter((e) => e.includes(":select:"));
    assert.deepEqual(await selects("ours"), await selects("fill"));
    assert.ok((await events("ours")).includes("ours:text:input:insertText:new words:true"));

    // Fields a plain type does not cover go through fill as before.
    assertAllOk(await run(page, acts({ type: { ref: "#num", text: "42" } })));
    assert.equal(await page.locator("#num").inputValue(), "42");
    for (const id of ["aria-off", "frozen", "inert"]) {
      const r = await run(page, acts({ type: { ref: `#${id}`, text: "no" } }), { actionTimeoutMs: 300 });
      assert.equal(r.outcomes[0]!.error?.code, "timeout", `${id}: ${JSON.stringify(r.outcomes)}`);
      assert.equal(await page.locator(`#${id}`).inputValue(), "", id);
    }
    await page.close();
  });

  it("select by label and by value, check and uncheck, hover", async () => {
    const page = await open("/app");
    const cs = await controls(page);
    const fruit = refOf(cs, "combobox", "Fruit");
    const agree = refOf(cs, "checkbox", "I agree");

    assertAllOk(await run(page, acts({ select: { ref: fruit, values: ["Pear"] } })));
    assert.equal(await text(page, "#fruit-shown"), "Chosen: pear");
    assertAllOk(await run(page, acts({ select: { ref: fruit, values: ["plum"] } })));
    assert.equal(await text(page, "#fruit-shown"), "Chosen: plum");

    const missing = await run(page, acts({ select: { ref: fruit, values: ["mango"] } }));
    assert.equal(missing.outcomes[0]!.error?.code, "not_found");
    assert.match(missing.outcomes[0]!.error!.message, /mango.*apple \(Apple\)/);

    assertAllOk(await run(page, acts({ check: { ref: agree } })));
    assert.equal(await text(page, "#agree-shown"), "Agreed: yes");
    assertAllOk(await run(page, acts({ uncheck: { ref: agree } })));
    assert.equal(await text(page, "#agree-shown"), "Agreed: no");

    assert.equal(await text(page, "#tip"), "");
    assertAllOk(await run(page, acts({ hover: { ref: refOf(cs, "button", "Hover for a tip") } })));
    assert.equal(await text(page, "#tip"), "Tip: you hovered");
    await page.close();
  });

  it("scrolls the page, an element, and a control's scrollable box", async () => {
    const page = await open("/app");
    const scrollY = () => page.evaluate(() => window.scrollY);
    const boxTop = () => page.evaluate(() => document.getElementById("scroller")!.scrollTop);

    assertAllOk(await run(page, acts({ scroll: {} })));
    assert.equal(await scrollY(), 600, "default: down 600 px");
    assertAllOk(await run(page, acts({ scroll: { direction: "up", amount: 200 } })));
    assert.equal(await scrollY(), 400);

    assertAllOk(await run(page, acts({ scroll: { ref: "#scroller", amount: 250 } })));
    assert.equal(await boxTop(), 250);
    assert.equal(await scrollY(), 400, "scrolling the box leaves the page where it was");

    // A button cannot scroll; its scrollable box does.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.evaluate(() => {
      document.getElementById("scroller")!.scrollTop = 0;
    });
    const cs = await controls(page);
    assertAllOk(
      await run(page, acts({ scroll: { ref: refOf(cs, "button", "Inside the box"), amount: 100 } })),
    );
    assert.equal(await boxTop(), 100);
    assert.equal(await scrollY(), 0);
    await page.close();
  });

  it("settles after a click: the fetched text is there when the act returns", async () => {
    const page = await open("/app");
    const cs = await controls(page);
    const before = site.hits("/api/slow-json");
    const r = await run(page, acts({ click: { ref: refOf(cs, "button", "Load data") } }));
    assertAllOk(r);
    assert.equal(site.hits("/api/slow-json"), before + 1);
    assert.equal(await text(page, "#loaded"), "Loaded after 300 ms");
    await page.close();
  });

  it("settles after actions whose handlers draw in the next frame: the drawing is there when the act returns", async () => {
    const page = await context.newPage();
    await page.route(`${site.url}/framed`, (route) =>
      route.fulfill({
        contentType: "text/html",
        body: `<button id="b">Draw</button><input id="i" aria-label="Field"><p id="out">0</p><script>
let n = 0;
const draw = () => requestAnimationFrame(() => { document.getElementById("out").textContent = String(++n); });
document.getElementById("b").addEventListener("click", draw);
document.getElementById("i").addEventListener("input", draw);
</script>`,
      }),
    );
    await page.goto(`${site.url}/framed`);
    const cs = await controls(page);
    // Without waiting for the frame the handlers asked for, about one in four of these reads the old text.
    for (let i = 1; i <= 12; i += 2) {
      assertAllOk(await run(page, acts({ click: { ref: refOf(cs, "button", "Draw") } })));
      assert.equal(await text(page, "#out"), String(i));
      assertAllOk(await run(page, acts({ type: { ref: refOf(cs, "textbox", "Field"), text: `x${i}` } })));
      assert.equal(await text(page, "#out"), String(i + 1));
    }
    await page.close();
  });

  it("a page that animates without end does not hold an act back", async () => {
    const page = await context.newPage();
    await page.route(`${site.url}/spinning`, (route) =>
      route.fulfill({
        contentType: "text/html",
        body: `<button id="b">Count</button><p id="out">0</p><canvas id="c"></canvas><script>
let n = 0;
const spin = () => { document.getElementById("c").dataset.frame = String(n++); requestAnimationFrame(spin); };
requestAnimationFrame(spin);
document.getElementById("b").addEventListener("click", () => {
  document.getElementById("out").textContent = "1";
  requestAnimationFrame(spin);
});
</script>`,
      }),
    );
    await page.goto(`${site.url}/spinning`);
    const cs = await controls(page);
    const r = await run(
      page,
      acts(
        { click: { ref: refOf(cs, "button", "Count") } },
        { click: { ref: refOf(cs, "button", "Count") } },
      ),
    );
    assertAllOk(r);
    assert.equal(await text(page, "#out"), "1");
    await page.close();
  });

  it("stops at the first failure and skips the rest", async () => {
    const page = await open("/app");
    const cs = await controls(page);
    const counter = refOf(cs, "button", "Count");
    const seen: [string, boolean][] = [];
    const r = await run(
      page,
      acts(
        { click: { ref: counter } },
        { click: { ref: counter } },
        { hover: { ref: "e99999" } },
        { click: { ref: counter } },
      ),
      { onAction: (a, ok) => seen.push([a, ok]) },
    );
    assert.deepEqual(statuses(r), ["ok", "ok", "failed", "skipped"]);
    assert.equal(r.stoppedAt, 2);
    assert.deepEqual(
      r.outcomes.map((o) => o.action),
      ["click", "click", "hover", "click"],
    );
    assert.equal(r.outcomes[2]!.error?.code, "stale_ref");
    assert.equal(r.outcomes[3]!.ms, undefined);
    assert.deepEqual(seen, [
      ["click", true],
      ["click", true],
      ["hover", false],
    ]);
    assert.equal(await text(page, "#count"), "Clicked 2 times");
    await page.close();
  });

  it("an action form this worker does not know fails and stops the run, never ok", async () => {
    const page = await open("/app");
    const cs = await controls(page);
    const counter = refOf(cs, "button", "Count");
    // What a newer api could send an older worker during a rolling update.
    const unknown = { zoom: { level: 2 } } as unknown as Action;
    const r = await run(page, [
      ...acts({ click: { ref: counter } }),
      unknown,
      ...acts({ click: { ref: counter } }),
    ]);
    assert.deepEqual(statuses(r), ["ok", "failed", "skipped"]);
    assert.equal(r.stoppedAt, 1);
    assert.equal(r.outcomes[1]!.action, "zoom");
    assert.equal(r.outcomes[1]!.error?.code, "unavailable");
    assert.equal(await text(page, "#count"), "Clicked 1 times");
    await page.close();
  });

  it("a click on a link by ref that navigates is ok, twenty times in a row, never stale_ref", async () => {
    for (let i = 0; i < 20; i++) {
      const page = await open("/app");
      const link = refOf(await controls(page), "link", "Go to page two");
      const r = await run(page, acts({ click: { ref: link } }));
      assert.equal(r.stoppedAt, null, `round ${i}: ${JSON.stringify(r.outcomes)}`);
      assert.equal(await text(page, "h1"), "Page Two", `round ${i}`);
      await page.close();
    }
  });

  it("a ref from before a navigation, or a made-up one, is stale_ref", async () => {
    const page = await open("/app");
    const cs = await controls(page);
    const counter = refOf(cs, "button", "Count");
    assertAllOk(await run(page, acts({ click: { ref: refOf(cs, "link", "Go to page two") } })));
    assert.equal(await text(page, "h1"), "Page Two");

    const stale = await run(page, acts({ click: { ref: counter } }, { press: "Enter" }));
    assert.deepEqual(statuses(stale), ["failed", "skipped"]);
    assert.equal(stale.stoppedAt, 0);
    const err = stale.outcomes[0]!.error!;
    assert.equal(err.code, "stale_ref");
    assert.ok(err.message.includes(`ref ${counter} `), err.message);
    assert.match(err.message, /fresh controls map/);
    assert.ok(!err.message.includes("\n"));

    const madeUp = await run(page, acts({ type: { ref: "e99999", text: "x" } }));
    assert.equal(madeUp.outcomes[0]!.error?.code, "stale_ref");
    assert.match(madeUp.outcomes[0]!.error!.message, /ref e99999 /);

    // After a navigation the main frame's refs carry a frame prefix (f1e5); once that document is
    // gone too, Playwright refuses the frame outright: still stale_ref.
    const back = refOf(await controls(page), "link", "Back to the article");
    assert.match(back, /^f\d+e\d+$/);
    assertAllOk(await run(page, acts({ navigate: { url: `${site.url}/app` } })));
    const gone = await run(page, acts({ hover: { ref: back } }));
    assert.equal(gone.outcomes[0]!.error?.code, "stale_ref");
    assert.ok(gone.outcomes[0]!.error!.message.includes(`ref ${back} `));

    // An element removed from the same page is stale as well.
    const fresh = await controls(page);
    const greet = refOf(fresh, "button", "Greet");
    await page.evaluate(() => document.getElementById("greet")!.remove());
    const removed = await run(page, acts({ click: { ref: greet } }));
    assert.equal(removed.outcomes[0]!.error?.code, "stale_ref");
    await page.close();
  });

  it("keeps an element's ref across controls maps of the same page", async () => {
    const page = await open("/app");
    const first = await controls(page);
    const counter = refOf(first, "button", "Count");
    assertAllOk(await run(page, acts({ click: { ref: counter } })));
    assert.equal(await text(page, "#count"), "Clicked 1 times");
    const second = await controls(page);
    assert.equal(refOf(second, "button", "Count"), counter);
    assert.equal(refOf(second, "combobox", "Fruit"), refOf(first, "combobox", "Fruit"));
    assertAllOk(await run(page, acts({ click: { ref: counter } })));
    assert.equal(await text(page, "#count"), "Clicked 2 times");
    await page.close();
  });

  it("CSS selectors: works, not_found, invalid_selector, and a disabled control times out", async () => {
    const page = await open("/app");
    const r = await run(page, acts({ type: { ref: "#name", text: "Bob" } }, { click: { ref: "#greet" } }));
    assertAllOk(r);
    assert.equal(await text(page, "#greeting"), "Hello, Bob");

    const none = await run(page, acts({ click: { ref: "#nope" } }), { actionTimeoutMs: 300 });
    assert.equal(none.outcomes[0]!.error?.code, "not_found");
    assert.match(none.outcomes[0]!.error!.message, /#nope/);

    const bad = await run(page, acts({ click: { ref: "div[[[" } }), { actionTimeoutMs: 300 });
    assert.equal(bad.outcomes[0]!.error?.code, "invalid_selector");
    assert.match(bad.outcomes[0]!.error!.message, /div\[\[\[/);

    const off = await run(page, acts({ click: { ref: "#off" } }), { actionTimeoutMs: 300 });
    const e = off.outcomes[0]!.error!;
    assert.equal(e.code, "timeout");
    assert.match(e.message, /not enabled/);
    assert.ok(!e.message.includes("\n") && e.message.length <= 300, e.message);

    const wrong = await run(page, acts({ check: { ref: "#greet" } }));
    assert.equal(wrong.outcomes[0]!.error?.code, "action_failed");
    assert.match(wrong.outcomes[0]!.error!.message, /checkbox/i);
    await page.close();
  });

  it("press: a known key acts on the focused element, an unknown one fails clearly", async () => {
    const page = await open("/app");
    assertAllOk(
      await run(
        page,
        acts({ type: { ref: "#name", text: "abc" } }, { press: "Backspace" }, { press: "End" }),
      ),
    );
    assert.equal(await page.locator("#name").inputValue(), "ab");
    const r = await run(page, acts({ press: "Foo" }, { press: "Enter" }));
    assert.deepEqual(statuses(r), ["failed", "skipped"]);
    assert.equal(r.outcomes[0]!.error?.code, "invalid_key");
    assert.match(r.outcomes[0]!.error!.message, /unknown key "Foo".*Enter/);
    await page.close();
  });

  it("navigate and back; a blocked address is ssrf_blocked; back without history fails", async () => {
    const page = await open("/app");
    const nav = await run(page, acts({ navigate: { url: `${site.url}/page2` } }));
    assertAllOk(nav);
    assert.equal(await text(page, "h1"), "Page Two");
    assertAllOk(await run(page, acts({ back: {} })));
    assert.equal(page.url(), `${site.url}/app`);
    assert.equal(await text(page, "h1"), "App");

    for (const url of [
      "http://169.254.169.254/latest/meta-data/",
      `http://127.0.0.2:${site.port}/`,
      `${site.url}/redirect-to?url=${encodeURIComponent("http://169.254.169.254/")}`,
    ]) {
      const blocked = await run(page, acts({ navigate: { url } }, { back: {} }));
      assert.deepEqual(statuses(blocked), ["failed", "skipped"], url);
      assert.equal(blocked.outcomes[0]!.error?.code, "ssrf_blocked", JSON.stringify(blocked.outcomes[0]));
    }

    const fresh = await open("/page2");
    const none = await run(fresh, acts({ back: {} }));
    assert.equal(none.outcomes[0]!.error?.code, "no_history");
    await fresh.close();
    await page.close();
  });

  it("wait for a selector, a text, a load state; a wait that times out", async () => {
    const page = await context.newPage();
    await page.goto(`${site.url}/js-content`, { waitUntil: "commit" });
    const r = await run(
      page,
      acts(
        { wait: { until: "load" } },
        { wait: { selector: "#late" } },
        { wait: { text: "Rendered by JavaScript" } },
        { wait: { ms: 10 } },
      ),
    );
    assertAllOk(r);
    const late = await run(page, acts({ wait: { selector: "#never", timeout: 200 } }));
    assert.equal(late.outcomes[0]!.error?.code, "timeout");
    assert.match(late.outcomes[0]!.error!.message, /#never/);
    await page.close();
  });

  it("the budget: an action that would start past it fails with timeout, the rest are skipped", async () => {
    const page = await open("/app");
    // The click settles until its 3 s fetch is done or the budget is gone, whichever is first.
    const r = await run(
      page,
      acts({ click: { ref: "#load-slow" } }, { click: { ref: "#counter" } }, { click: { ref: "#counter" } }),
      { budgetMs: 1_500 },
    );
    assert.deepEqual(statuses(r), ["ok", "failed", "skipped"]);
    assert.equal(r.stoppedAt, 1);
    assert.equal(r.outcomes[1]!.error?.code, "timeout");
    assert.match(r.outcomes[1]!.error!.message, /budget/);
    assert.equal(await text(page, "#count"), "Clicked 0 times");

    // A wait longer than what is left fails at once.
    const w = await run(page, acts({ wait: { ms: 100 } }, { wait: { ms: 5_000 } }, { wait: { ms: 1 } }), {
      budgetMs: 1_000,
    });
    assert.deepEqual(statuses(w), ["ok", "failed", "skipped"]);
    assert.equal(w.outcomes[1]!.error?.code, "timeout");
    await page.close();
  });
});
