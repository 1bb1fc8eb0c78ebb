import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { type LiveWeb, startLiveWeb } from "../../../test/fixture-site/live-web.ts";
import { findChromium } from "../src/chromium.ts";
import readPage from "../src/injected/generated/read-page.ts";
import { DEFAULT_CONTEXT_REQUEST, newBareContext } from "../src/page/context.ts";
import { scrollForLazyContent } from "../src/page/scroll.ts";
import { settlePage } from "../src/page/settle.ts";

/**
 * Scrolling for lazy content inside panels (injected/lib/scroll-panels.ts, page/scroll.ts): elements that
 * scroll on their own, on pages like chat apps and feeds (test/fixture-site/panels.ts), in contexts made
 * as the worker makes them (the settle bookkeeping and the scroll hooks before any page script).
 */
describe("scrolling panels for lazy content", () => {
  let web: LiveWeb;
  let browser: Browser;
  let context: BrowserContext;

  before(async () => {
    web = await startLiveWeb();
    browser = await chromium.launch({
      executablePath: findChromium(),
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
    });
    context = await newBareContext(browser, DEFAULT_CONTEXT_REQUEST);
  });
  after(async () => {
    await context?.close().catch(() => {});
    await browser?.close();
    await web?.close();
  });

  /** The page opened and settled, as a scrape does before it scrolls. */
  async function open(path: string): Promise<Page> {
    const page = await context.newPage();
    await page.goto(web.a(path), { waitUntil: "commit" });
    await settlePage(page, { deadline: Date.now() + 15_000 });
    return page;
  }
  const scroll = (page: Page, maxSteps = 20) =>
    scrollForLazyContent(page, { maxSteps, budgetMs: 30_000, countImages: false });
  /** The text of the last item in the page's panel (in a shadow root for the support widget). */
  const lastItem = (page: Page) =>
    page.evaluate(() => {
      const root = document.querySelector("support-thread")?.shadowRoot ?? document;
      return Array.from(root.querySelectorAll(".item")).at(-1)?.textContent;
    });

  it("a chat pane whose IntersectionObserver is rooted at it loads to its end, and is put back where it was", async () => {
    const page = await open("/panel-chat?pages=4");
    assert.equal(await lastItem(page), "Chat message 10", "one page of messages before scrolling");
    const top = await page.evaluate(() => {
      const feed = document.getElementById("feed")!;
      feed.scrollTop = 40;
      return feed.scrollTop;
    });
    assert.equal(top, 40);
    const outcome = await scroll(page);
    assert.ok(outcome, "the page was scrolled");
    assert.equal(outcome.steps, 0, "the window itself does not scroll");
    assert.equal(outcome.panels?.count, 1);
    assert.equal(outcome.panels?.complete, true);
    assert.ok((outcome.panels?.steps ?? 0) >= 3, JSON.stringify(outcome));
    assert.equal(await lastItem(page), "Chat message 40");
    assert.equal(await page.evaluate(() => document.getElementById("feed")!.scrollTop), 40);
    await page.close();
  });

  it("a panel that loads on its own scroll event, and one in an open shadow root", async () => {
    for (const [path, last] of [
      ["/panel-scroll-event", "Order 40"],
      ["/panel-shadow", "Support reply 30"],
    ] as const) {
      const page = await open(path);
      const outcome = await scroll(page);
      assert.equal(outcome?.panels?.complete, true, `${path}: ${JSON.stringify(outcome)}`);
      assert.equal(await lastItem(page), last, path);
      await page.close();
    }
  });

  it("an endless chat stops at the step bound, each panel's steps counted as the window's are", async () => {
    const page = await open("/panel-chat?pages=0");
    const outcome = await scroll(page, 3);
    assert.equal(outcome?.panels?.steps, 3);
    assert.equal(outcome?.panels?.complete, false);
    assert.notEqual(await lastItem(page), "Chat message 10", "the chat grew while it was scrolled");
    await page.close();
  });

  it("an endless chat stops at the time budget too", async () => {
    const page = await open("/panel-chat?pages=0");
    const outcome = await scrollForLazyContent(page, { maxSteps: 100, budgetMs: 1_000, countImages: false });
    assert.equal(outcome?.panels?.complete, false);
    assert.ok((outcome?.panels?.steps ?? 0) < 100, JSON.stringify(outcome));
    await page.close();
  });

  it("panels too small, hidden, transparent, clipped or not displayed are left alone", async () => {
    const page = await open("/panel-untouchable");
    assert.equal(await scroll(page), undefined);
    const tops = await page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLElement>(".box"), (b) => b.scrollTop),
    );
    assert.deepEqual(tops, [0, 0, 0, 0, 0]);
    assert.equal(web.hits("/api/panel-touched"), 0, "no panel's scroll handler ran");
    await page.close();
  });

  it("a page that fits its viewport and has no panel costs one evaluate and reports nothing", async () => {
    const page = await open("/panel-none");
    assert.equal(
      (await page.evaluate(readPage, { scroll: { anyPage: false } })).mayScroll,
      true,
      "its script watches scrolling: a panel could hold lazy content",
    );
    let calls = 0;
    for (const name of ["evaluate", "evaluateHandle"] as const) {
      const original = page[name].bind(page) as (...args: unknown[]) => Promise<unknown>;
      Object.assign(page, {
        [name]: (...args: unknown[]) => {
          calls++;
          return original(...args);
        },
      });
    }
    assert.equal(await scroll(page), undefined);
    assert.equal(calls, 1);
    assert.equal(web.hits("/api/panel-touched"), 0);
    await page.close();
  });

  it("a static page that fits its viewport is not scrolled at all", async () => {
    const page = await open("/static");
    assert.equal((await page.evaluate(readPage, { scroll: { anyPage: true } })).mayScroll, false);
    await page.close();
  });
});
