import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { type FixtureSite, startFixtureSite } from "../../../test/fixture-site/server.ts";
import { findChromium } from "../src/chromium.ts";
import { controlSelectorsBeside, selectorsInOnePass } from "../src/formats/control-selectors.ts";
import { readControls } from "../src/formats/render.ts";

describe("the controls map's CSS selectors, all read in one pass", () => {
  let site: FixtureSite;
  let browser: Browser;
  let context: BrowserContext;

  before(async () => {
    site = await startFixtureSite();
    browser = await chromium.launch({
      executablePath: findChromium(),
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
    });
    context = await browser.newContext();
  });
  after(async () => {
    await context?.close().catch(() => {});
    await browser?.close();
    await site?.close();
  });

  const refs = (cs: Array<{ ref: string }>) => cs.map((c) => c.ref);

  it("gives every control of the form its selector, each finding that very control", async () => {
    const page = await context.newPage();
    await page.goto(`${site.url}/form`);
    const { controls } = await readControls(page, true, 200);
    assert.deepEqual(
      controls.map((c) => [c.name, c.selector]),
      [
        ["Username", "#username"],
        ["Password", "#password"],
        ["Favourite colour", "#color"],
        ["Remember me", "#remember"],
        ["Sign in", "#submit"],
        ["Cancel", "#cancel"],
      ],
    );
    // The one pass alone answers for all of them (no ref is left to the slow way, one call per ref).
    const found = await selectorsInOnePass(page, refs(controls));
    assert.deepEqual([...found.keys()].sort(), refs(controls).sort());
    await page.close();
  });

  it("reaches into open shadow roots and tells apart elements without ids, and leaves the document as it was", async () => {
    const page: Page = await context.newPage();
    await page.setContent(`<main>
<div><button>One</button><button>Two</button></div>
<x-card></x-card>
</main>
<script>
customElements.define("x-card", class extends HTMLElement {
  constructor() { super(); this.attachShadow({ mode: "open" }).innerHTML = '<p><button id="inner">Inside</button></p>'; }
});
</script>`);
    const html = await page.evaluate(() => document.documentElement.outerHTML);
    const { controls } = await readControls(page, true, 200);
    assert.deepEqual(
      controls.map((c) => c.name),
      ["One", "Two", "Inside"],
    );
    const found = await selectorsInOnePass(page, refs(controls));
    assert.equal(found.size, 3);
    for (const c of controls) {
      const sel = found.get(c.ref)!;
      assert.equal(await page.locator(sel).count(), 1, `${sel} finds one element`);
      assert.equal((await page.locator(sel).textContent())?.trim(), c.name, `${sel} finds ${c.name}`);
    }
    assert.equal(await page.evaluate(() => document.documentElement.outerHTML), html);
    await page.close();
  });

  it("a control inside a frame still gets its selector, the slower way", async () => {
    const page = await context.newPage();
    await page.setContent(
      `<button id="top">Top</button><iframe srcdoc="<button id='deep'>Deep</button>"></iframe>`,
    );
    await page.frameLocator("iframe").locator("#deep").waitFor();
    const { controls } = await readControls(page, true, 200);
    const deep = controls.find((c) => c.name === "Deep");
    assert.ok(deep, JSON.stringify(controls));
    assert.match(deep.ref, /^f\d+e\d+$/);
    assert.equal(deep.selector, "#deep");
    assert.equal(controls.find((c) => c.name === "Top")?.selector, "#top");
    await page.close();
  });

  it("the pass asked beside the snapshot answers for every control; read before it, it is short but never wrong", async () => {
    const page = await context.newPage();
    await page.goto(`${site.url}/form`);
    const { controls } = await readControls(page, true, 200);
    const beside = await controlSelectorsBeside(page, 400);
    for (const c of controls) assert.equal(beside.get(c.ref), c.selector, `${c.name}'s selector`);

    // The page changes: a button is renamed, one is added. A pass read now (as when the page runs it
    // before the snapshot it was sent behind) holds the refs of the snapshot before.
    await page.evaluate(() => {
      document.querySelector("#cancel")!.textContent = "Abort";
      const b = document.createElement("button");
      b.type = "button";
      b.id = "later";
      b.textContent = "Later";
      document.querySelector("#submit")!.before(b);
    });
    const early = await controlSelectorsBeside(page, 400);
    const { controls: now } = await readControls(page, true, 200);
    const abort = now.find((c) => c.name === "Abort");
    const later = now.find((c) => c.name === "Later");
    assert.ok(abort && later, JSON.stringify(now));
    assert.equal(early.has(abort.ref), false, "a renamed control has a new ref, not in the early pass");
    assert.equal(early.has(later.ref), false, "a new control is not in the early pass");
    for (const c of now) {
      const sel = early.get(c.ref);
      if (sel === undefined) continue;
      assert.equal(sel, c.selector, `${c.name}: the early pass names the same element`);
    }
    assert.equal(abort.selector, "#cancel");
    assert.equal(later.selector, "#later");
    await page.close();
  });

  it("an unknown or stale ref is simply not found", async () => {
    const page = await context.newPage();
    await page.goto(`${site.url}/form`);
    await readControls(page, true, 200);
    const found = await selectorsInOnePass(page, ["e99999"]);
    assert.equal(found.size, 0);
    await page.close();
  });
});
