/*
 * The overlay pass (the in-page half of clearOverlays), run from its generated bundle (the very text
 * the worker sends) in a real DOM, and the button classifier over its phrase rules, in Node.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Page } from "playwright-core";
import type { PassArgs } from "../src/injected/entries/overlay-pass.ts";
import clickElement from "../src/injected/generated/click-element.ts";
import overlayPass from "../src/injected/generated/overlay-pass.ts";
import removeOverlayGuard from "../src/injected/generated/remove-overlay-guard.ts";
import { classifyButtonText, classifyWith } from "../src/injected/lib/overlays/classify-button.ts";
import { BUTTON_RULES, type ButtonRules } from "../src/injected/lib/overlays/consent-rules.ts";
import { GUARD_KEY } from "../src/injected/lib/overlays/overlay-marks.ts";
import { inPageDom } from "./in-page-dom.ts";

describe("classifying a consent button's text (Node)", () => {
  const cases: Array<[string, ReturnType<typeof classifyButtonText>]> = [
    ["Reject all", "reject"],
    ["Only necessary cookies", "reject"],
    ["Alle ablehnen", "reject"],
    ["Nur notwendige", "reject"],
    ["Accept all cookies", "accept"],
    ["Got it", "accept"],
    ["Alle akzeptieren", "accept"],
    ["Einverstanden", "accept"],
    ["Close", "close"],
    ["×", "close"],
    ["Schließen", "close"],
    ["Subscribe", "unsafe"],
    ["Accept and subscribe", "unsafe"],
    ["Jetzt kaufen", "unsafe"],
    ["Registrieren", "unsafe"],
    ["Settings", undefined],
    ["Einstellungen", undefined],
  ];
  for (const [text, kind] of cases) {
    test(`${JSON.stringify(text)} → ${kind}`, () => assert.equal(classifyWith(BUTTON_RULES, text), kind));
  }

  test("classifyWith reads the rules it is given; classifyButtonText is it over BUTTON_RULES", () => {
    const rules: ButtonRules = { maxLength: 20, unsafe: "pay", reject: "nope", accept: "yep", close: "bye" };
    assert.equal(classifyWith(rules, "Nope"), "reject");
    assert.equal(classifyWith(rules, "Yep, pay"), "unsafe");
    assert.equal(classifyWith(rules, "Reject all"), undefined);
    assert.equal(classifyWith(rules, "yep yep yep yep yep yep"), undefined, "longer than maxLength");
    assert.equal(classifyButtonText("Tout refuser"), "reject");
  });
});

const dom = inPageDom();

const args = (over: Partial<PassArgs> = {}): PassArgs => ({
  mode: "main",
  allowClick: true,
  framesDone: false,
  acted: false,
  token: "tok1",
  deadline: Date.now() + 30_000,
  ...over,
});

const ARTICLE = Array.from(
  { length: 30 },
  (_, i) => `<p>Paragraph ${i + 1}: the council met on Tuesday to discuss the new tram line.</p>`,
).join("\n");

const page = (body: string, head = "") =>
  `<!doctype html><html><head><meta charset="utf-8"><title>t</title>${head}</head><body>
<main><h1>News</h1>${ARTICLE}</main>${body}</body></html>`;

/** The elements carrying any data-bf-overlay-* mark, as "tag#id attr=value". */
const marks = (p: Page) =>
  p.evaluate(() =>
    Array.from(document.querySelectorAll("*")).flatMap((el) =>
      Array.from(el.attributes)
        .filter((a) => a.name.startsWith("data-bf-overlay-"))
        .map((a) => `${el.tagName.toLowerCase()}#${el.id} ${a.name}=${a.value}`),
    ),
  );

const displayOf = (p: Page, sel: string) =>
  p.evaluate((s) => getComputedStyle(document.querySelector(s)!).display, sel);

describe("the overlay pass in a page", () => {
  test("a generic cookie banner with Reject and Accept: reject is the target, nothing is hidden", async () => {
    const p = await dom.page(
      page(`<div id="banner" style="position:fixed;left:0;right:0;bottom:0;padding:20px;background:#fff">
  We use cookies to measure traffic.
  <button id="accept">Accept all</button> <button id="reject">Reject all</button></div>`),
    );
    const r = await p.evaluate(overlayPass, args());
    assert.deepEqual(r, { target: { name: "generic-consent", kind: "reject" }, hidden: 0, unlocked: 0 });
    assert.deepEqual(await marks(p), [
      "div#banner data-bf-overlay-done=tok1",
      "button#reject data-bf-overlay-target=tok1",
    ]);
    // The pass guards the page against the click's navigation until the next pass or the guard's removal.
    const guard = (key: string) => p.evaluate((k) => typeof (window as never)[Symbol.for(k)], key);
    assert.equal(await guard(GUARD_KEY), "function");
    await p.evaluate(removeOverlayGuard);
    assert.equal(await guard(GUARD_KEY), "undefined");

    // The host's fallback click, then the next pass: the banner is done (never clicked twice), the
    // target mark is gone, and a banner that stays is hidden.
    await p.locator("#reject").evaluate(clickElement);
    const next = await p.evaluate(overlayPass, args({ acted: true }));
    assert.deepEqual(next, { hidden: 1, unlocked: 0 });
    assert.equal(await displayOf(p, "#banner"), "none");
    assert.deepEqual(await marks(p), [
      "div#banner data-bf-overlay-done=tok1",
      "div#banner data-bf-overlay-hidden=tok1",
    ]);
  });

  test("a known platform's banner (OneTrust) aims at its own reject button", async () => {
    const p = await dom.page(
      page(`<div id="onetrust-banner-sdk" style="position:fixed;left:0;right:0;bottom:0;background:#fff">
  <p>We value your privacy</p><button id="onetrust-accept-btn-handler">Accept All Cookies</button>
  <button id="onetrust-reject-all-handler">Reject All</button></div>`),
    );
    const r = await p.evaluate(overlayPass, args());
    assert.deepEqual(r.target, { name: "onetrust", kind: "reject" });
  });

  test("a banner whose buttons only buy or subscribe is never aimed at; hidden when it covers the page", async () => {
    const wall = await dom.page(
      page(`<div id="wall" style="position:fixed;inset:0;background:rgba(255,255,255,.95);z-index:50">
  <p>We use cookies. Support us to keep reading.</p>
  <button id="sub" onclick="window.clicked = true">Subscribe</button>
  <button id="buy" onclick="window.clicked = true">Buy now</button></div>`),
    );
    const r = await wall.evaluate(overlayPass, args());
    assert.deepEqual(r, { hidden: 1, unlocked: 0 });
    assert.equal(await displayOf(wall, "#wall"), "none");
    assert.deepEqual(await marks(wall), ["div#wall data-bf-overlay-hidden=tok1"]);
    assert.equal(await wall.evaluate(() => (window as { clicked?: boolean }).clicked ?? false), false);

    // The same buttons in a small bar that covers nothing much (and says nothing of cookies): left alone.
    const bar = await dom.page(
      page(`<div id="bar" style="position:fixed;left:0;right:0;bottom:0;height:60px;background:#fff">
  Never miss a story. <button>Subscribe</button> <button>Buy now</button></div>`),
    );
    assert.deepEqual(await bar.evaluate(overlayPass, args()), { hidden: 0, unlocked: 0 });
    assert.deepEqual(await marks(bar), []);
  });

  test("a full-screen modal with a backdrop is hidden and the body's scroll lock undone", async () => {
    const p = await dom.page(
      page(
        `<div id="backdrop" style="position:fixed;inset:0;background:rgba(0,0,0,.6);z-index:9000"></div>
<div id="modal" role="dialog" aria-modal="true" style="position:fixed;top:50%;left:50%;transform:translate(-50%,-50%);width:460px;padding:20px;background:#fff;z-index:9001">
  <h2>Never miss a story</h2><p>Get the best stories every Friday.</p></div>`,
      ),
    );
    // A page that locks its scroll for the modal the way sites do: overflow hidden, a fixed body
    // kept at the reader's place by a negative top.
    await p.evaluate(() => {
      document.body.style.cssText = "overflow:hidden;position:fixed;top:-300px;left:0;right:0";
    });
    const r = await p.evaluate(overlayPass, args());
    assert.deepEqual(r, { hidden: 2, unlocked: 2 });
    assert.equal(await displayOf(p, "#backdrop"), "none");
    assert.equal(await displayOf(p, "#modal"), "none");
    const body = await p.evaluate(() => {
      const s = getComputedStyle(document.body);
      return { overflowY: s.overflowY, position: s.position, scrollY: window.scrollY };
    });
    assert.deepEqual(body, { overflowY: "auto", position: "static", scrollY: 300 });
    assert.deepEqual(await marks(p), [
      "body# data-bf-overlay-unlocked=tok1",
      "div#backdrop data-bf-overlay-hidden=tok1",
      "div#modal data-bf-overlay-hidden=tok1",
    ]);
  });

  test("a page without overlays: nothing reported, nothing changed", async () => {
    const p = await dom.page(
      page(`<header style="position:sticky;top:0;background:#fff"><nav><a href="/">Home</a></nav></header>`),
    );
    const before = await p.evaluate(() => document.documentElement.outerHTML);
    assert.deepEqual(await p.evaluate(overlayPass, args()), { hidden: 0, unlocked: 0 });
    assert.equal(await p.evaluate(() => document.documentElement.outerHTML), before);
  });

  test("a pass past its deadline does nothing", async () => {
    const p = await dom.page(
      page(`<div id="banner" style="position:fixed;left:0;right:0;bottom:0">We use cookies.
  <button>Reject all</button></div>`),
    );
    assert.deepEqual(await p.evaluate(overlayPass, args({ deadline: Date.now() - 1 })), {
      hidden: 0,
      unlocked: 0,
    });
    assert.deepEqual(await marks(p), []);
  });
});
