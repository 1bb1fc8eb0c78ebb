import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Browser, type BrowserContext, chromium } from "playwright-core";
import { type FixtureSite, startFixtureSite } from "../../../test/fixture-site/server.ts";
import { findChromium } from "../src/chromium.ts";
import { pageBeside } from "../src/formats/control-selectors.ts";
import settleInit from "../src/injected/generated/settle-init.ts";
import { SETTLE_GLOBAL } from "../src/injected/lib/globals.ts";
import type { PageState } from "../src/page/settle.ts";
import { isDone, quietRead } from "../src/session/quiet-read.ts";

const quiet: PageState = {
  now: 5_000,
  readyState: "complete",
  lastActivity: 1_000,
  pendingRequests: 0,
  pendingStreams: 0,
  nextTimer: -1,
  refreshAt: -1,
  height: 720,
  lastChange: 1_000,
  origin: 1,
  pendingFrames: 0,
  lastPosted: -1,
};

describe("isDone: the page has nothing left to do by its own bookkeeping", () => {
  it("a quiet page is done; anything it queued or changed within the quiet window is not", () => {
    assert.equal(isDone(quiet, 80), true);
    assert.equal(isDone({ ...quiet, pendingFrames: 1 }, 80), false, "a frame callback a handler asked for");
    assert.equal(isDone({ ...quiet, lastPosted: 4_990 }, 80), false, "a message it posted to itself");
    assert.equal(isDone({ ...quiet, lastPosted: 4_000 }, 80), true, "a message long since delivered");
    assert.equal(isDone({ ...quiet, nextTimer: 5_040 }, 80), false, "a timer due");
    assert.equal(isDone({ ...quiet, pendingRequests: 1 }, 80), false, "a fetch in flight");
    assert.equal(isDone({ ...quiet, lastActivity: 4_950 }, 80), false, "a change 50 ms ago");
    assert.equal(isDone({ ...quiet, readyState: "loading" }, 80), false);
    assert.equal(isDone({ ...quiet, frameHooks: 1 }, 80), false, "a scroll listener or an observer");
  });
});

describe("the controls map's in-page pass reads the page's settle state", () => {
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
    await context.addInitScript(settleInit);
  });
  after(async () => {
    await context?.close().catch(() => {});
    await browser?.close();
    await site?.close();
  });

  it("answers the selectors, the title and the state in one pass, and no page script sees it asked", async () => {
    const page = await context.newPage();
    await page.goto(`${site.url}/form`);
    // A page listening for the very event the pass sends, on the window, capturing, as early as it can.
    await page.evaluate((name) => {
      const w = window as unknown as { seen: number };
      w.seen = 0;
      window.addEventListener(name, () => w.seen++, true);
      document.addEventListener(name, () => w.seen++, true);
    }, SETTLE_GLOBAL);
    await page.ariaSnapshotJSON({ mode: "ai", boxes: true });
    const pass = await pageBeside(page, 400, 1_000);
    assert.equal(pass.title, "Login Form");
    assert.ok([...pass.selectors.values()].includes("#username"));
    assert.equal(pass.state?.readyState, "complete");
    assert.equal(typeof pass.state?.origin, "number");
    assert.equal(await page.evaluate(() => (window as unknown as { seen: number }).seen), 0);
    assert.equal(await page.locator("[data-state]").count(), 0, "nothing is left in the document");
    await page.close();
  });

  it("still answers on a page made by setContent (document.open drops the window's listeners)", async () => {
    const page = await context.newPage();
    await page.goto(`${site.url}/form`);
    await page.setContent("<title>Made</title><button>Go</button>");
    // The settle bookkeeping is read once (as a settle does), which puts the listener back.
    await page.evaluate(
      (key) => (window as unknown as Record<string, { state(y: number): unknown }>)[key]?.state(0),
      SETTLE_GLOBAL,
    );
    const read = await quietRead(page, {
      visibleOnly: true,
      limit: 200,
      youngMs: 1_000,
      quietMs: 0,
      overlaysClear: () => true,
    });
    assert.ok(read, "the page is quiet and its state was read");
    assert.equal(read.title, "Made");
    assert.deepEqual(
      read.controls.map((c) => [c.role, c.name]),
      [["button", "Go"]],
    );
    await page.close();
  });

  it("between actions, handlers that queued work are waited for; with nothing queued since the last read, the state is read at once", async () => {
    const page = await context.newPage();
    await page.goto(`${site.url}/form`);
    // As the page would after an action: a handler posts a message to itself whose handler changes the
    // page, or a timer, or a frame callback; the wait must end after that change.
    // A string, not a function: the bundler would wrap the inner functions in a helper the page lacks.
    const after = (await page.evaluate(`(async () => {
      const api = window[${JSON.stringify(SETTLE_GLOBAL)}];
      const run = async (queue) => {
        const seen = api.state(0);
        let changed = false;
        queue(() => {
          document.body.append("x");
          changed = true;
        });
        const state = await api.handlersRan(0, seen);
        return { changed, asked: state.asked - seen.asked };
      };
      const queued = [
        await run((then) => {
          const c = new MessageChannel();
          c.port1.onmessage = then;
          c.port2.postMessage(0);
        }),
        await run((then) => requestAnimationFrame(then)),
        await run((then) => window.postMessage("go", "*") || window.addEventListener("message", then, { once: true })),
      ];
      const seen = api.state(0);
      const quiet = await api.handlersRan(0, seen);
      return { queued, quietAsked: quiet.asked - seen.asked };
    })()`)) as { queued: Array<{ changed: boolean; asked: number }>; quietAsked: number };
    for (const q of after.queued) {
      assert.equal(q.changed, true, "the queued work ran before the wait ended");
      assert.ok(q.asked >= 1);
    }
    assert.equal(after.quietAsked, 0);
    await page.close();
  });

  it("is not kept while the page has work queued: a timer due", async () => {
    const page = await context.newPage();
    await page.goto(`${site.url}/form`);
    await page.evaluate(() => {
      setTimeout(() => document.body.append("late"), 1_000);
    });
    const opts = { visibleOnly: true, limit: 200, youngMs: 1_000, quietMs: 0, overlaysClear: () => true };
    assert.equal(await quietRead(page, opts), undefined);
    await page.close();
  });
});
