import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { Page } from "playwright-core";
import readPage from "../src/injected/generated/read-page.ts";
import scrollHooksInit from "../src/injected/generated/scroll-hooks-init.ts";
import settleInit from "../src/injected/generated/settle-init.ts";
import { SCROLL_HOOKS_GLOBAL, SETTLE_GLOBAL } from "../src/injected/lib/globals.ts";
import type { SettleState } from "../src/injected/lib/settle/api.ts";
import { settlePage, settleWait } from "../src/page/settle.ts";
import { selectForTyping } from "../src/session/type-ready.ts";
import { inPageDom } from "./in-page-dom.ts";

/*
 * The settle bookkeeping and the scroll hooks (injected/entries/settle-init.ts, scroll-hooks-init.ts) in
 * a real page, installed as every context the worker makes has them: before any page script.
 */
const dom = inPageDom();
const ORIGIN = "http://in-page.test";

/** A page holding `html`, its script run with the bookkeeping installed first. */
async function open(html: string, before?: (page: Page) => Promise<unknown>): Promise<Page> {
  const page = await dom.page("");
  await page.addInitScript(settleInit);
  await page.addInitScript(scrollHooksInit);
  await page.route(`${ORIGIN}/case`, (route) =>
    route.fulfill({ contentType: "text/html; charset=utf-8", body: html }),
  );
  await before?.(page);
  await page.goto(`${ORIGIN}/case`);
  return page;
}

/** The settle state as a settle reads it; requests older than `youngMs` are not waited for. */
async function stateOf(page: Page, youngMs = 60_000): Promise<SettleState> {
  const { state } = await page.evaluate(readPage, { settle: { youngMs } });
  assert.ok(state, "the page has the bookkeeping");
  return state;
}

/** Reads the state until `done` says so, for at most `ms`. */
async function stateWhen(page: Page, done: (s: SettleState) => boolean, ms = 5_000): Promise<SettleState> {
  const end = Date.now() + ms;
  for (;;) {
    const s = await stateOf(page);
    if (done(s) || Date.now() > end) return s;
    await sleep(40);
  }
}

/** What is left before the page counts as settled, by its own bookkeeping alone (see settleWait). */
const waitLeft = (s: SettleState, quietMs: number) =>
  settleWait(s, { count: 0, lastEnd: 0, now: 0 }, quietMs);

describe("settle bookkeeping in a page", () => {
  it("a page that adds content from a timer is active until it has, then goes quiet", async () => {
    const page = await open(
      `<p>first</p><script>setTimeout(() => document.body.append("late"), 1000)</script>`,
    );
    const loaded = await stateOf(page);
    assert.ok(loaded.nextTimer > loaded.now, "the timer is pending work");
    assert.ok(waitLeft(loaded, 100) > 0, "not settled while the timer is due");
    const started = Date.now();
    const settled = await settlePage(page, { deadline: Date.now() + 5_000, quietMs: 100 });
    assert.equal(settled.reason, "quiet");
    assert.ok(Date.now() - started >= 500, "the settle waited for the timer");
    assert.match(await page.evaluate(() => document.body.textContent ?? ""), /late/);
    const after = await stateOf(page);
    assert.ok(after.lastActivity > loaded.now, "the insertion counts as activity");
    assert.equal(after.nextTimer, -1);
    await sleep(150);
    const later = await stateOf(page);
    assert.equal(later.lastActivity, after.lastActivity, "nothing happened since");
    assert.equal(waitLeft(later, 100), 0, "quiet");
  });

  it("a fetch in flight is pending until it ends, and only while it is young", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const page = await open(
      `<script>fetch("/slow").then((r) => r.text()).then((t) => document.body.append(t))</script>`,
      (p) =>
        p.route(`${ORIGIN}/slow`, async (route) => {
          await held;
          await route.fulfill({ contentType: "text/plain", body: "answer" });
        }),
    );
    const inFlight = await stateWhen(page, (s) => s.pendingRequests > 0);
    assert.equal(inFlight.pendingRequests, 1);
    assert.ok(waitLeft(inFlight, 0) > 0, "not settled while it is in flight");
    await sleep(100);
    assert.equal((await stateOf(page)).pendingRequests, 1, "still pending");
    assert.equal((await stateOf(page, 0)).pendingRequests, 0, "older than asked: not waited for");
    release();
    const done = await stateWhen(page, (s) => s.pendingRequests === 0);
    assert.equal(done.pendingRequests, 0);
    assert.ok(done.lastActivity >= inFlight.now, "its end counts as activity");
  });

  it("a stream is pending until its first message, and the page still constructs it with new", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const page = await open("<p>live</p>", (p) =>
      p.route(`${ORIGIN}/events`, async (route) => {
        await held;
        await route.fulfill({ contentType: "text/event-stream", body: "data: hi\n\n" });
      }),
    );
    const made = await page.evaluate(() => {
      const w = window as unknown as { source: EventSource };
      w.source = new EventSource("/events");
      return w.source instanceof EventSource && typeof w.source.close === "function";
    });
    assert.equal(made, true);
    assert.equal((await stateOf(page)).pendingStreams, 1);
    release();
    assert.equal((await stateWhen(page, (s) => s.pendingStreams === 0)).pendingStreams, 0);
    await page.evaluate(() => (window as unknown as { source: EventSource }).source.close());
  });

  it("a ticking loop (setInterval, or a timer that sets the next) is not pending forever", async () => {
    const page = await open(`<p>clock</p><script>
      window.ticks = 0;
      setInterval(() => window.ticks++, 40);
      (function tick() { window.ticks++; setTimeout(tick, 40); })();
    </script>`);
    await sleep(400);
    for (let i = 0; i < 5; i++) {
      const s = await stateOf(page);
      assert.equal(s.nextTimer, -1, "no timer of the loop is waited for");
      await sleep(30);
    }
    assert.ok((await page.evaluate(() => (window as unknown as { ticks: number }).ticks)) > 10, "it ticks");
    const settled = await settlePage(page, { deadline: Date.now() + 3_000, quietMs: 100 });
    assert.equal(settled.reason, "quiet");
  });

  it("typing is unseen on a plain field, seen once page script listens for input", async () => {
    const seen = async (page: Page) => {
      const s = await stateOf(page);
      return { origin: s.origin, asked: s.asked };
    };
    const plain = await open(`<input id="f" aria-label="F">`);
    assert.equal(await selectForTyping(plain.locator("#f"), 5_000, await seen(plain)), "unseen");
    const listening = await open(
      `<input id="f" aria-label="F"><script>document.addEventListener("input", () => {})</script>`,
    );
    assert.equal(await selectForTyping(listening.locator("#f"), 5_000, await seen(listening)), "ready");
    const handler = await open(
      `<input id="f" aria-label="F"><script>document.getElementById("f").oninput = () => {}</script>`,
    );
    assert.equal(await selectForTyping(handler.locator("#f"), 5_000, await seen(handler)), "ready");
  });
});

describe("scroll hooks in a page", () => {
  const hooks = (page: Page) =>
    page.evaluate(
      (key) => (window as unknown as Record<string, { hooks: number }>)[key]?.hooks ?? -1,
      SCROLL_HOOKS_GLOBAL,
    );
  const mayScroll = async (page: Page) =>
    (await page.evaluate(readPage, { scroll: { anyPage: false } })).mayScroll;

  it("count the observers and scroll listeners the page sets; a tall page scrolls only once it has one", async () => {
    const page = await open(`<div style="height: 3000px">tall</div><script>window.ran = true</script>`);
    assert.equal(await hooks(page), 0);
    assert.equal(await mayScroll(page), false, "script that watches no scrolling");
    await page.evaluate(() => new IntersectionObserver(() => {}).observe(document.body));
    assert.equal(await hooks(page), 1);
    assert.equal(await mayScroll(page), true);
    await page.evaluate(() => addEventListener("scroll", () => {}));
    assert.equal(await hooks(page), 2);
    await page.evaluate(() => {
      document.onwheel = () => {};
    });
    assert.equal(await hooks(page), 3);
    await page.evaluate(() => addEventListener("click", () => {}));
    assert.equal(await hooks(page), 3, "a click listener is no scroll hook");
    await page.evaluate(() => new ResizeObserver(() => {}).observe(document.body));
    assert.equal((await stateOf(page)).frameHooks, 4, "what the next rendering step may run");
  });

  it("page script still sees native functions, and no new window keys", async () => {
    const page = await open("<p>plain</p>");
    const seen = await page.evaluate(
      ([settleKey, hooksKey]) => ({
        addEventListener: EventTarget.prototype.addEventListener.toString(),
        name: EventTarget.prototype.addEventListener.name,
        length: EventTarget.prototype.addEventListener.length,
        observer: IntersectionObserver.toString(),
        resize: ResizeObserver.toString(),
        onscroll: String(Object.getOwnPropertyDescriptor(HTMLElement.prototype, "onscroll")?.set),
        keys: Object.keys(window).filter((k) => k === settleKey || k === hooksKey),
      }),
      [SETTLE_GLOBAL, SCROLL_HOOKS_GLOBAL] as const,
    );
    assert.match(seen.addEventListener, /\[native code\]/);
    assert.equal(seen.name, "addEventListener");
    assert.equal(seen.length, 2);
    assert.match(seen.observer, /\[native code\]/);
    assert.match(seen.resize, /\[native code\]/);
    assert.match(seen.onscroll, /\[native code\]/);
    assert.deepEqual(seen.keys, []);
  });
});
