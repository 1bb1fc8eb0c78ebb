import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type ScrapeRequest, scrapeRequest } from "@browserfleet/contracts";
import type { Browser } from "playwright-core";
import { waitFor } from "../../../test/helpers/wait-for.ts";
import { ChromiumKeeper, findChromium } from "../src/chromium.ts";
import { fitsDefaultContext, makeWarmContext, warmOrFreshContext } from "../src/page/context.ts";
import { WarmContexts, type WarmFactory } from "../src/page/warm-contexts.ts";

const req = (extra: Record<string, unknown> = {}): ScrapeRequest =>
  scrapeRequest.parse({ url: "http://127.0.0.1:9/", ...extra });

describe("which requests a pre-made context may serve", () => {
  test("a request setting no context option, or only the defaults, fits", () => {
    assert.equal(fitsDefaultContext(req()), true);
    assert.equal(fitsDefaultContext(req({ viewport: { width: 1280, height: 720 } })), true);
    // Cookies and block rules are added to the context before the page loads: they fit too.
    assert.equal(fitsDefaultContext(req({ request: { cookies: [{ name: "a", value: "b" }] } })), true);
    assert.equal(fitsDefaultContext(req({ block: { resourceTypes: ["image"] } })), true);
  });

  test("any option a context is made with does not fit", () => {
    assert.equal(fitsDefaultContext(req({ request: { userAgent: "Other/1.0" } })), false);
    assert.equal(fitsDefaultContext(req({ viewport: { width: 390, height: 844 } })), false);
    assert.equal(fitsDefaultContext(req({ viewport: { deviceScaleFactor: 2 } })), false);
    assert.equal(fitsDefaultContext(req({ request: { headers: { "x-a": "1" } } })), false);
    assert.equal(fitsDefaultContext(req({ request: { auth: { username: "u", password: "p" } } })), false);
  });
});

describe("WarmContexts on a real Chromium", () => {
  let keeper: ChromiumKeeper;
  let browser: Browser;
  before(async () => {
    keeper = new ChromiumKeeper(findChromium()!, []);
    browser = await keeper.browser();
  });
  after(() => keeper.close());

  test("keeps as many ready as asked, hands each out once, and makes none until asked again", async () => {
    let want = 2;
    const warm = new WarmContexts(makeWarmContext, () => want);
    warm.fill(browser);
    assert.equal(warm.size(), 2);
    const a = await warm.take(browser);
    const b = await warm.take(browser);
    assert.ok(a && b);
    assert.notEqual(a.context, b.context, "two callers never get the same context");
    assert.equal(await warm.take(browser), undefined, "a taken context is not in the pool any more");
    // Each is a never-used context: one blank page, no cookies.
    assert.deepEqual(
      a.context.pages().map((p) => p.url()),
      ["about:blank"],
    );
    assert.deepEqual(await a.context.cookies(), []);
    await a.context.close();
    await b.context.close();

    want = 1;
    warm.fill(browser, false);
    assert.equal(warm.size(), 0, "asked not to make any (no scrape used one), it makes none");
    assert.equal(warm.full(), false);
    warm.fill(browser);
    assert.equal(warm.size(), 1);
    assert.equal(warm.full(), true);
    await warm.closeAll();
    assert.equal(warm.size(), 0);
    warm.fill(browser);
    assert.equal(warm.size(), 0, "a stopped pool makes no more");
  });

  test("extra ready contexts are closed when fewer slots are free, and a dropped browser's ones too", async () => {
    let want = 3;
    // Every context the pool asks for, and how many of them have closed since.
    let asked = 0;
    let closed = 0;
    const counted: WarmFactory = async (b) => {
      asked++;
      const w = await makeWarmContext(b);
      w.context.once("close", () => closed++);
      return w;
    };
    const warm = new WarmContexts(counted, () => want);
    // Contexts of the test before may still be closing: count only the ones made from here on.
    const before = new Set(browser.contexts());
    const made = () => browser.contexts().filter((c) => !before.has(c)).length;
    warm.fill(browser);
    const first = await warm.take(browser);
    assert.ok(first);
    await first.context.close();
    want = 1;
    warm.fill(browser);
    assert.equal(warm.size(), 1);
    warm.drop(browser);
    assert.equal(warm.size(), 0);
    // The ones still being made when dropped are closed once they are made.
    await waitFor(`all ${asked} contexts the pool made to be closed`, () => closed === asked, 10_000, 20);
    assert.equal(made(), 0, "every context the pool made and did not hand out is closed");
  });

  test("a request with its own context options gets a context made for it, the others a pre-made one", async () => {
    const warm = new WarmContexts(makeWarmContext, () => 1);
    const origins: string[] = [];
    const lease = warmOrFreshContext(warm, (o) => origins.push(o));
    warm.fill(browser);
    const ua = await lease(browser, req({ request: { userAgent: "Other/1.0" } }));
    assert.equal(warm.size(), 1, "the pre-made context stays for a request it fits");
    const page = ua.page ?? (await ua.context.newPage());
    assert.equal(await page.evaluate(() => navigator.userAgent), "Other/1.0");
    await ua.release();
    const plain = await lease(browser, req({ request: { cookies: [{ name: "c", value: "1" }] } }));
    assert.equal(warm.size(), 0);
    assert.deepEqual(origins, ["made", "warm"]);
    assert.deepEqual(
      (await plain.context.cookies()).map((c) => `${c.name}=${c.value}`),
      ["c=1"],
      "the caller's cookies are added to the pre-made context",
    );
    await plain.release();
    await warm.closeAll();
  });
});
