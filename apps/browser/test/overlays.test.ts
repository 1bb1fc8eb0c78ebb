import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import {
  cmpScript,
  REAL_CMPS,
  REJECT_COOKIE,
  type RealCmp,
} from "../../../test/fixture-site/consent-platforms.ts";
import { findChromium } from "../src/chromium.ts";
import { classifyButtonText } from "../src/injected/lib/overlays/classify-button.ts";
import { clearOverlays } from "../src/page/overlays.ts";

describe("classifyButtonText", () => {
  const cases: Array<[string, ReturnType<typeof classifyButtonText>]> = [
    ["Reject All", "reject"],
    ["Reject all cookies", "reject"],
    ["Decline", "reject"],
    ["Deny", "reject"],
    ["I do not agree", "reject"],
    ["DISAGREE", "reject"],
    ["Necessary cookies only", "reject"],
    ["Only essential", "reject"],
    ["Use necessary cookies only", "reject"],
    ["Accept only necessary", "reject"],
    ["Continue without accepting", "reject"],
    ["Alle ablehnen", "reject"],
    ["Nur notwendige Cookies akzeptieren", "reject"],
    ["Tout refuser", "reject"],
    ["Continuer sans accepter →", "reject"],
    ["Rechazar todo", "reject"],
    ["Rifiuta", "reject"],
    ["Accept", "accept"],
    ["Accept All Cookies", "accept"],
    ["I agree", "accept"],
    ["Allow all", "accept"],
    ["Got it!", "accept"],
    ["OK", "accept"],
    ["Alle akzeptieren", "accept"],
    ["Akzeptieren und schließen", "accept"],
    ["Tout accepter", "accept"],
    ["J’accepte", "accept"],
    ["Aceptar", "accept"],
    ["Accetta tutti", "accept"],
    ["×", "close"],
    ["✕", "close"],
    ["Close", "close"],
    ["Schließen", "close"],
    ["Subscribe now", "unsafe"],
    ["Reject and subscribe", "unsafe"],
    ["Accept & pay", "unsafe"],
    ["Buy ticket", "unsafe"],
    ["Checkout", "unsafe"],
    ["Sign up", "unsafe"],
    ["Place order", "unsafe"],
    ["Jetzt abonnieren", "unsafe"],
    ["Cookie settings", undefined],
    ["Manage options", undefined],
    ["More options", undefined],
    ["Learn more", undefined],
    ["Disallow", undefined],
    ["Okayama travel guide", undefined],
    ["", undefined],
    [
      "Accept the terms described in the long paragraph that goes on and on about data processing purposes",
      undefined,
    ],
  ];
  for (const [text, kind] of cases) {
    it(`${JSON.stringify(text)} → ${kind}`, () => assert.equal(classifyButtonText(text), kind));
  }
});

/* ------------------------------------------------------------------ fixture site */

const PARAGRAPHS = Array.from(
  { length: 24 },
  (_, i) =>
    `<p>Section ${i + 1}. The city council met on Tuesday to discuss the new tram line, which will connect the ` +
    `harbour district with the university campus. Residents raised questions about noise, the timetable and ` +
    `the cost of the project, which is expected to take three years. <a href="/news/${i}">Read the full story</a>.</p>`,
).join("\n");

/** A news article the way sites build one: a fixed header, the story, a button low in the viewport. */
function article(opts: { head?: string; body?: string; title?: string } = {}): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${opts.title ?? "Daily Fixture"}</title>
<style>
  body { margin: 0; font: 16px/1.5 sans-serif; }
  .site-header { position: fixed; top: 0; left: 0; right: 0; height: 64px; background: #fff; border-bottom: 1px solid #ddd;
    z-index: 100; display: flex; align-items: center; gap: 24px; padding: 0 24px; }
  main { max-width: 760px; margin: 0 auto; padding: 88px 24px 40px; }
  #low { position: absolute; top: 672px; left: 560px; }
</style>
${opts.head ?? ""}</head><body>
<header class="site-header"><strong>Daily Fixture</strong>
  <nav><a href="/">Home</a> <a href="/news">News</a> <a href="/privacy">Privacy</a></nav>
  <button id="menu">Menu</button></header>
<div id="page">
  <main><h1>Council approves the harbour tram</h1>
    <p>After two years of debate the new line is going ahead.</p>
    <button id="buy" onclick="window.buyClicks = (window.buyClicks || 0) + 1">Buy ticket</button>
    ${PARAGRAPHS}
  </main>
  <button id="low">Load comments</button>
</div>
<script>window.consent = null; window.subscribeClicks = 0; window.buyClicks = 0;</script>
${opts.body ?? ""}
</body></html>`;
}

const ONETRUST = `<script>
setTimeout(function () {
  var withReject = location.search.indexOf("reject=0") < 0;
  var sdk = document.createElement("div");
  sdk.id = "onetrust-consent-sdk";
  sdk.innerHTML =
    '<div class="onetrust-pc-dark-filter ot-fade-in" style="position:fixed;inset:0;background:rgba(0,0,0,.5);z-index:2147483645"></div>' +
    '<div id="onetrust-banner-sdk" class="otFlat ot-bnr-w-logo" role="region" aria-label="Cookie banner" ' +
    'style="position:fixed;left:0;right:0;bottom:0;z-index:2147483646;background:#fff;padding:20px 24px;box-shadow:0 0 12px rgba(0,0,0,.3)">' +
    '<div id="onetrust-policy"><h2 id="onetrust-policy-title">We value your privacy</h2>' +
    '<p id="onetrust-policy-text">We and our partners store and access information on your device, such as cookies, ' +
    'to measure content and personalise ads. <a class="ot-cookie-policy-link" href="/privacy">Cookie Policy</a></p></div>' +
    '<div id="onetrust-button-group-parent"><div id="onetrust-button-group">' +
    '<button id="onetrust-pc-btn-handler">Cookie Settings</button>' +
    (withReject ? '<button id="onetrust-reject-all-handler">Reject All</button>' : "") +
    '<button id="onetrust-accept-btn-handler">Accept All Cookies</button></div></div></div>';
  document.body.appendChild(sdk);
  var done = function (choice) {
    window.consent = choice;
    sdk.querySelector(".onetrust-pc-dark-filter").style.display = "none";
    var banner = document.getElementById("onetrust-banner-sdk");
    banner.style.transition = "opacity .15s";
    banner.style.opacity = "0";
    setTimeout(function () { banner.style.display = "none"; }, 150);
  };
  if (withReject) document.getElementById("onetrust-reject-all-handler").addEventListener("click", function () { done("rejected"); });
  document.getElementById("onetrust-accept-btn-handler").addEventListener("click", function () { done("accepted"); });
  document.getElementById("onetrust-pc-btn-handler").addEventListener("click", function () { window.consent = "settings"; });
}, 250);
</script>`;

const USERCENTRICS = `<script>
setTimeout(function () {
  var host = document.createElement("div");
  host.id = "usercentrics-root";
  document.body.appendChild(host);
  var sr = host.attachShadow({ mode: "open" });
  sr.innerHTML =
    "<style>.banner{position:fixed;left:0;right:0;bottom:0;z-index:2147483647;background:#fff;padding:20px;" +
    "box-shadow:0 -2px 10px rgba(0,0,0,.2)} button{margin-right:8px}</style>" +
    '<div class="banner" data-testid="uc-default-banner" role="dialog" aria-label="Privacy settings">' +
    "<div>This website uses cookies and similar technologies to analyse traffic and show personalised content.</div>" +
    '<div data-testid="uc-buttons-container"><button data-testid="uc-more-button">Settings</button>' +
    '<button data-testid="uc-deny-all-button">Deny</button>' +
    '<button data-testid="uc-accept-all-button">Accept All</button></div></div>';
  sr.querySelector("[data-testid=uc-deny-all-button]").addEventListener("click", function () { window.consent = "denied"; host.remove(); });
  sr.querySelector("[data-testid=uc-accept-all-button]").addEventListener("click", function () { window.consent = "accepted"; host.remove(); });
}, 300);
</script>`;

const NEWSLETTER = `<style>
  .nl-backdrop { position: fixed; inset: 0; background: rgba(0,0,0,.6); z-index: 9000; }
  .nl-modal { position: fixed; top: 50%; left: 50%; transform: translate(-50%, -50%); width: 460px; background: #fff;
    padding: 28px; z-index: 9001; border-radius: 8px; }
  .nl-close { position: absolute; top: 8px; right: 12px; border: 0; background: none; font-size: 22px; }
</style>
<script>
setTimeout(function () {
  var backdrop = document.createElement("div");
  backdrop.className = "nl-backdrop";
  var modal = document.createElement("div");
  modal.className = "nl-modal";
  modal.setAttribute("role", "dialog");
  modal.setAttribute("aria-modal", "true");
  modal.innerHTML = '<button class="nl-close" aria-label="Close">×</button><h2>Never miss a story</h2>' +
    "<p>Join 50,000 readers and get the best stories every Friday.</p>" +
    '<input type="email" placeholder="you@example.com"> <button id="nl-subscribe">Subscribe now</button>';
  document.body.append(backdrop, modal);
  modal.querySelector("#nl-subscribe").addEventListener("click", function () { window.subscribeClicks++; });
  modal.querySelector(".nl-close").addEventListener("click", function () { window.closedByPage = true; });
  document.body.style.overflow = "hidden";
  if (location.search.indexOf("inert=1") >= 0) {
    document.getElementById("page").inert = true;
    document.querySelector(".site-header").setAttribute("aria-hidden", "true");
  }
}, 200);
</script>`;

const LINKS_ONLY = `<div class="cookie-bar" style="position:fixed;left:0;right:0;bottom:0;background:#222;color:#fff;padding:18px 24px;z-index:500">
  This site uses cookies to give you the best experience.
  <a href="/privacy" class="btn" role="button">Accept</a> <a href="/privacy">Learn more</a></div>`;

const GERMAN = `<script>
setTimeout(function () {
  var b = document.createElement("div");
  b.id = "cookie-hinweis";
  b.setAttribute("role", "dialog");
  b.setAttribute("aria-label", "Cookie-Einstellungen");
  b.style.cssText = "position:fixed;left:24px;bottom:24px;width:420px;background:#fff;border:1px solid #ccc;padding:20px;z-index:9999";
  b.innerHTML = "<p>Wir verwenden Cookies, um Inhalte zu personalisieren und Zugriffe zu analysieren.</p>" +
    '<button class="s">Einstellungen</button> <button class="r">Alle ablehnen</button> <button class="a">Alle akzeptieren</button>';
  document.body.appendChild(b);
  b.querySelector(".r").onclick = function () { window.consent = "rejected"; b.remove(); };
  b.querySelector(".a").onclick = function () { window.consent = "accepted"; b.remove(); };
  b.querySelector(".s").onclick = function () { window.consent = "settings"; };
}, 150);
</script>`;

const PAY_OR_OK = `<div id="consent-wall" style="position:fixed;inset:0;background:rgba(255,255,255,.96);z-index:10000;display:flex;align-items:center;justify-content:center">
  <div style="width:520px"><h2>Choose how you read us</h2>
    <p>We and our 120 partners use cookies for advertising and audience measurement.</p>
    <button id="pur">Reject and subscribe</button> <button id="acc">Accept and continue</button></div></div>
<script>
  document.getElementById("pur").onclick = function () { window.subscribeClicks++; };
  document.getElementById("acc").onclick = function () { window.consent = "accepted"; document.getElementById("consent-wall").remove(); };
</script>`;

const NAVIGATING = `<div class="gdpr-banner" style="position:fixed;left:0;right:0;bottom:0;background:#eee;padding:20px;z-index:800">
  We use cookies to keep the site running. <button id="agree">I agree</button></div>
<script>document.getElementById("agree").onclick = function () {
  window.consent = "accepted"; document.querySelector(".gdpr-banner").remove(); location.href = "/thanks"; };
  // Every navigation the page starts, as its navigate event: whether it was stopped shows on the event.
  window.navigations = []; navigation.addEventListener("navigate", function (e) { navigations.push(e); });</script>`;

const FORM_POST = `<form class="cookie-consent-form" method="post" action="/cookies"
  style="position:fixed;left:0;right:0;bottom:0;background:#eee;padding:20px;z-index:800">
  We use cookies to measure traffic. <button name="c" value="reject">Reject all</button> <button name="c" value="accept">Accept all</button></form>`;

const DIALOG = `<dialog id="promo"><form method="dialog"><h2>Read us in the app</h2><p>Offline reading and push alerts.</p>
  <button value="install" onclick="window.subscribeClicks++">Get the app</button> <button value="close" aria-label="Close">×</button></form></dialog>
<script>setTimeout(function () { document.getElementById("promo").showModal(); }, 150);</script>`;

const BODY_LOCK = `<script>
setTimeout(function () {
  window.scrollTo(0, 400);
  var y = window.scrollY;
  document.body.style.position = "fixed";
  document.body.style.top = -y + "px";
  document.body.style.width = "100%";
  var o = document.createElement("div");
  o.className = "push-prompt-overlay";
  o.style.cssText = "position:fixed;inset:0;background:rgba(0,0,0,.4);z-index:5000;display:flex;align-items:center;justify-content:center";
  o.innerHTML = '<div style="background:#fff;padding:24px;width:380px"><p>Get breaking news alerts?</p><button>Not now</button> <button>Allow alerts</button></div>';
  document.body.appendChild(o);
}, 150);
</script>`;

const SOURCEPOINT = (frameOrigin: string, variant: string) => `<div id="sp_message_container_1170"
  style="position:fixed;inset:0;z-index:2147483647;background:rgba(0,0,0,.55);display:flex;align-items:center;justify-content:center">
  <iframe id="sp_message_iframe_1170" title="SP Consent Message" src="${frameOrigin}/cmp-frame?variant=${variant}"
    style="width:560px;height:360px;border:0;background:#fff"></iframe></div>
<script>addEventListener("message", function (e) {
  if (e.data && e.data.sp) { window.consent = e.data.sp; document.getElementById("sp_message_container_1170").remove(); }
});</script>`;

const CMP_FRAME = (variant: string) => `<!doctype html><html><body style="font:15px sans-serif">
<div class="message-container"><p>We and our partners use cookies and process personal data such as unique identifiers.</p>
${
  variant === "opaque"
    ? '<button class="sp_choice_type_12">Options</button> <button class="sp_choice_type_11">Continue</button>'
    : '<button class="sp_choice_type_12">Options</button> <button class="sp_choice_type_13" title="Reject">Reject</button> <button class="sp_choice_type_11" title="Accept">Accept</button>'
}</div>
<script>document.querySelectorAll("button").forEach(function (b) { b.onclick = function () {
  parent.postMessage({ sp: b.className === "sp_choice_type_13" ? "rejected" : b.className === "sp_choice_type_11" ? "accepted" : "options" }, "*");
}; });</script></body></html>`;

const BAR =
  "position:fixed;left:0;right:0;bottom:0;z-index:99999;background:#fff;padding:20px;box-shadow:0 0 10px #0004";
/** Known CMPs' real ids and classes (trimmed), each with a reject and an accept button. */
const CMP_MARKUP: Record<string, string> = {
  cookiebot: `<div id="CybotCookiebotDialog" class="CybotCookiebotDialogActive" style="${BAR}"><p>This website uses cookies.</p>
    <button id="CybotCookiebotDialogBodyButtonDecline" data-choice="rejected">Deny</button>
    <button id="CybotCookiebotDialogBodyLevelButtonLevelOptinAllowallSelection" data-choice="selection">Allow selection</button>
    <button id="CybotCookiebotDialogBodyLevelButtonLevelOptinAllowAll" data-choice="accepted">Allow all</button></div>`,
  "cookiebot-legacy": `<div id="CybotCookiebotDialog" style="${BAR}"><p>This website uses cookies.</p>
    <a id="CybotCookiebotDialogBodyButtonDecline" href="#" data-choice="rejected">Use necessary cookies only</a>
    <a id="CybotCookiebotDialogBodyButtonAccept" href="#" data-choice="accepted">Allow all cookies</a></div>`,
  didomi: `<div id="didomi-host"><div id="didomi-notice" class="didomi-notice-banner" style="${BAR}">
    <p>We and our partners use cookies.</p><button id="didomi-notice-learn-more-button" data-choice="settings">Learn more</button>
    <button id="didomi-notice-disagree-button" data-choice="rejected"><span>Continue without agreeing</span></button>
    <button id="didomi-notice-agree-button" data-choice="accepted"><span>Agree and close</span></button></div></div>`,
  quantcast: `<div id="qc-cmp2-container"><div class="qc-cmp2-container" style="position:fixed;inset:0;z-index:99999;background:#0007">
    <div id="qc-cmp2-ui" role="dialog" style="background:#fff;margin:120px auto;width:600px;padding:24px"><p>We value your privacy</p>
    <div class="qc-cmp2-summary-buttons"><button mode="secondary" data-choice="settings">MORE OPTIONS</button>
    <button mode="secondary" data-choice="rejected">DISAGREE</button><button mode="primary" data-choice="accepted">AGREE</button></div></div></div></div>`,
  trustarc: `<div id="truste-consent-track" style="${BAR}"><p>This site uses cookies.</p>
    <button id="truste-consent-required" data-choice="rejected">Required Only</button>
    <button id="truste-consent-button" data-choice="accepted">Accept All</button></div>`,
  osano: `<div class="osano-cm-window"><div class="osano-cm-dialog osano-cm-dialog--position_bottom" style="${BAR}">
    <p>This website stores data such as cookies.</p><button class="osano-cm-accept-all" data-choice="accepted">Accept All</button>
    <button class="osano-cm-denyAll" data-choice="rejected">Deny</button></div></div>`,
  complianz: `<div id="cmplz-cookiebanner-container"><div class="cmplz-cookiebanner cmplz-show" style="${BAR}">
    <p>We use cookies.</p><button class="cmplz-btn cmplz-accept" data-choice="accepted">Accept</button>
    <button class="cmplz-btn cmplz-deny" data-choice="rejected">Deny</button></div></div>`,
  cookieyes: `<div class="cky-consent-container" style="${BAR}"><p>We value your privacy</p>
    <button class="cky-btn cky-btn-customize" data-choice="settings">Customize</button>
    <button class="cky-btn cky-btn-reject" data-choice="rejected">Reject All</button>
    <button class="cky-btn cky-btn-accept" data-choice="accepted">Accept All</button></div>`,
  klaro: `<div class="klaro"><div class="cookie-notice" style="${BAR}"><p>Hi! Could we please enable some additional services?</p>
    <button class="cm-btn cm-btn-danger cn-decline" data-choice="rejected">I decline</button>
    <button class="cm-btn cm-btn-success" data-choice="accepted">That's ok</button></div></div>`,
};

/** `busyMs`: the page's handler keeps the page busy after it took the choice, as a heavy page or a loaded machine does. */
const CMP_PAGE = (name: string, busyMs = 0) => `<template id="cmp">${CMP_MARKUP[name] ?? ""}</template>
<script>setTimeout(function () {
  var holder = document.createElement("div");
  holder.id = "cmp-holder";
  holder.appendChild(document.getElementById("cmp").content.cloneNode(true));
  document.body.appendChild(holder);
  holder.querySelectorAll("[data-choice]").forEach(function (b) {
    b.addEventListener("click", function (e) {
      e.preventDefault();
      window.consent = b.getAttribute("data-choice");
      if (window.consent !== "settings") holder.remove();
      for (var end = Date.now() + ${busyMs}; Date.now() < end; );
    });
  });
}, 120);</script>`;

/** An app whose root is position:fixed and full-size (its own scroller inside), optionally on a fixed backdrop. */
const SPA = (q: URLSearchParams) => {
  const tag = q.get("main") === "0" ? "div" : "main";
  const rows = Array.from(
    { length: 40 },
    (_, i) => `<div class="row">Message ${i + 1}: quarterly report draft from the finance team</div>`,
  ).join("");
  const banner =
    q.get("banner") === "1"
      ? `setTimeout(function () {
          var t = document.createElement("div");
          t.className = "consent-toast";
          t.style.cssText = "position:fixed;right:16px;bottom:16px;width:360px;background:#fff;border:1px solid #999;padding:16px;z-index:50";
          t.innerHTML = "We use cookies for analytics. <button class='d'>Decline</button> <button class='a'>Accept</button>";
          document.getElementById("app").appendChild(t);
          t.querySelector(".d").onclick = function () { window.consent = "declined"; t.remove(); };
          t.querySelector(".a").onclick = function () { window.consent = "accepted"; t.remove(); };
        }, 150);`
      : "";
  return `<!doctype html><html><head><meta charset="utf-8"><title>Mail</title>
<style>html, body { margin: 0; height: 100%; overflow: hidden; font: 15px sans-serif }
  #bg { position: fixed; inset: 0; z-index: -1; background: linear-gradient(#eef, #fff) }
  #app { position: fixed; inset: 0; display: flex } .side { width: 220px; background: #f4f4f4; padding: 16px }
  .content { flex: 1; overflow: auto; padding: 24px } .row { padding: 10px; border-bottom: 1px solid #eee }</style>
<script>window.consent = null; addEventListener("DOMContentLoaded", function () { ${banner} });</script></head>
<body><div id="bg"></div><div id="app"><div class="side"><button id="compose">Compose</button>
<p><a href="#/inbox">Inbox</a></p><p><a href="#/sent">Sent</a></p></div>
<${tag} class="content"><h1>Inbox</h1><button id="archive">Archive</button>${rows}</${tag}></div></body></html>`;
};

/** A long page without any overlay, for the cost measurement (a few thousand elements). */
const PLAIN = article({
  body: `<section>${Array.from(
    { length: 150 },
    (_, i) =>
      `<article class="teaser"><h3><a href="/story/${i}">Story ${i}</a></h3><p>Summary of story ${i} with <em>some</em> <strong>markup</strong>.</p>` +
      `<ul><li>tag a</li><li>tag b</li><li>tag c</li></ul></article>`,
  ).join("")}</section><footer><a class="footer-privacy" href="/privacy">Privacy policy</a></footer>`,
});

function route(path: string, q: URLSearchParams, frameOrigin: string): string | undefined {
  switch (path) {
    case "/onetrust":
      return article({ body: ONETRUST });
    case "/usercentrics":
      return article({ body: USERCENTRICS });
    case "/newsletter":
      return article({ body: NEWSLETTER });
    case "/links-only":
      return article({ body: LINKS_ONLY });
    case "/german":
      return article({ body: GERMAN });
    case "/pay-or-ok":
      return article({ body: PAY_OR_OK });
    case "/navigating":
      return article({ body: NAVIGATING });
    case "/form-post":
      return article({ body: FORM_POST });
    case "/dialog":
      return article({ body: DIALOG });
    case "/body-lock":
      return article({ body: BODY_LOCK });
    case "/sourcepoint":
      return article({ body: SOURCEPOINT(frameOrigin, q.get("variant") ?? "") });
    case "/cmp-frame":
      return CMP_FRAME(q.get("variant") ?? "");
    case "/spa":
      return SPA(q);
    case "/cmp":
      return article({ body: CMP_PAGE(q.get("name") ?? "", Number(q.get("busy") ?? 0)) });
    case "/plain":
      return PLAIN;
    case "/real-cmp":
      return article({ body: cmpScript(q.get("cmp") as RealCmp) });
    case "/privacy":
    case "/thanks":
    case "/cookies":
      return `<!doctype html><title>${path}</title><p>${path}</p>`;
  }
  return undefined;
}

async function listen(handler: (path: string, q: URLSearchParams) => string | undefined): Promise<Server> {
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? "/", "http://x");
    const html = handler(u.pathname, u.searchParams);
    res.writeHead(html === undefined ? 404 : 200, { "content-type": "text/html; charset=utf-8" });
    res.end(html ?? "not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

/* ------------------------------------------------------------------ live pages */

/**
 * What clearOverlays does is tested with room to do it (test machines can be heavily loaded); that
 * it stays within its budget is tested on its own, and the cost test uses the default.
 */
const ROOMY = { timeoutMs: 5_000 };

describe("clearOverlays on live pages (Chromium)", () => {
  let site: Server;
  let frames: Server;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;

  before(async () => {
    // The consent frame comes from another origin, as a CMP's does.
    frames = await listen((path, q) => route(path, q, ""));
    const frameOrigin = `http://127.0.0.1:${(frames.address() as AddressInfo).port}`;
    site = await listen((path, q) => route(path, q, frameOrigin));
    base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: findChromium(),
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    });
    context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  });

  after(async () => {
    await context?.close().catch(() => {});
    await browser?.close().catch(() => {});
    site?.close();
    frames?.close();
  });

  const open = async (path: string): Promise<Page> => {
    const page = await context.newPage();
    await page.goto(base + path);
    return page;
  };
  /**
   * A user's click at its centre lands on it, where it is now (nothing on top, page not inert), and
   * Playwright's actionability checks agree (the trial click also scrolls, so it alone is not enough).
   */
  const reachable = async (page: Page, selector: string): Promise<boolean> => {
    const onTop = await page.locator(selector).evaluate((el) => {
      const r = el.getBoundingClientRect();
      const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
      return hit !== null && (hit === el || el.contains(hit));
    });
    if (!onTop) return false;
    return page
      .locator(selector)
      .click({ trial: true, timeout: 800 })
      .then(
        () => true,
        () => false,
      );
  };
  const value = <T>(page: Page, expr: string) => page.evaluate(expr) as Promise<T>;
  const aiSnapshot = (page: Page) => page.ariaSnapshot({ mode: "ai" });

  it("OneTrust: clicks Reject All, the page records it, the controls beneath are reachable", async () => {
    const page = await open("/onetrust");
    await page.locator("#onetrust-banner-sdk").waitFor();
    assert.equal(await reachable(page, "#buy"), false, "the fixture's dark filter covers the page");
    const r = await clearOverlays(page, ROOMY);
    assert.deepEqual(r.dismissed, ["onetrust"]);
    assert.equal(await value(page, "window.consent"), "rejected");
    assert.equal(await reachable(page, "#buy"), true);
    assert.equal(await reachable(page, "#low"), true);
    const snap = await aiSnapshot(page);
    assert.match(snap, /button "Load comments" \[ref=/);
    assert.doesNotMatch(snap, /Accept All Cookies/);
    assert.equal(page.url(), `${base}/onetrust`);
    assert.equal(await page.locator(".site-header").isVisible(), true, "the site's fixed header stays");
    await page.close();
  });

  it("OneTrust without a reject button: accepts", async () => {
    const page = await open("/onetrust?reject=0");
    await page.locator("#onetrust-banner-sdk").waitFor();
    const r = await clearOverlays(page, ROOMY);
    assert.deepEqual(r.dismissed, ["onetrust"]);
    assert.equal(await value(page, "window.consent"), "accepted");
    assert.equal(await reachable(page, "#low"), true);
    await page.close();
  });

  it("Usercentrics in an open shadow root: clicks Deny", async () => {
    const page = await open("/usercentrics");
    await page.locator("[data-testid=uc-deny-all-button]").waitFor();
    assert.equal(await reachable(page, "#low"), false);
    const r = await clearOverlays(page, ROOMY);
    assert.deepEqual(r.dismissed, ["usercentrics"]);
    assert.equal(await value(page, "window.consent"), "denied");
    assert.equal(await reachable(page, "#low"), true);
    await page.close();
  });

  it("a reject click that lands while the page stays busy past the click's wait is still reported", async () => {
    const page = await open("/cmp?name=cookieyes&busy=1500");
    await page.locator("#cmp-holder [data-choice]").first().waitFor();
    const r = await clearOverlays(page, ROOMY);
    assert.deepEqual(r.dismissed, ["cookieyes"]);
    assert.equal(await value(page, "window.consent"), "rejected");
    await page.close();
  });

  it("each known CMP's markup: its reject button is clicked", async () => {
    for (const name of Object.keys(CMP_MARKUP)) {
      const page = await open(`/cmp?name=${name}`);
      await page.locator("#cmp-holder [data-choice]").first().waitFor();
      const r = await clearOverlays(page, ROOMY);
      assert.deepEqual(r.dismissed, [name.replace("-legacy", "")], name);
      assert.equal(await value(page, "window.consent"), "rejected", name);
      assert.equal(r.hidden, 0, name);
      assert.equal(page.url(), `${base}/cmp?name=${name}`, name);
      assert.equal(await reachable(page, "#buy"), true, name);
      await page.close();
    }
  });

  it("real CMPs (their markup, API and cookie): the reject is clicked, its cookie stored, the banner gone", async () => {
    for (const cmp of REAL_CMPS) {
      const page = await open(`/real-cmp?cmp=${cmp}`);
      await page.locator("[data-cmp-root]").waitFor({ state: "attached" });
      const r = await clearOverlays(page, ROOMY);
      assert.deepEqual(
        r,
        { dismissed: [cmp], hidden: 0 },
        "declined by its own button, named after the platform",
      );
      assert.equal(await value(page, "window.consent"), "rejected", cmp);
      assert.match(await value<string>(page, "document.cookie"), REJECT_COOKIE[cmp], cmp);
      assert.equal(
        await page.locator("[data-cmp-root]").count(),
        0,
        `${cmp}: its own handler removed the banner`,
      );
      assert.equal(page.url(), `${base}/real-cmp?cmp=${cmp}`, cmp);
      assert.equal(await reachable(page, "#buy"), true, cmp);
      await page.close();
    }
  });

  it("a generic German banner: clicks 'Alle ablehnen'", async () => {
    const page = await open("/german");
    await page.locator("#cookie-hinweis").waitFor();
    const r = await clearOverlays(page, ROOMY);
    assert.deepEqual(r.dismissed, ["generic-consent"]);
    assert.equal(await value(page, "window.consent"), "rejected");
    assert.equal(r.hidden, 0);
    await page.close();
  });

  it("a consent wall whose other choice is to subscribe: accepts, never subscribes", async () => {
    const page = await open("/pay-or-ok");
    const r = await clearOverlays(page, ROOMY);
    assert.deepEqual(r.dismissed, ["generic-consent"]);
    assert.equal(await value(page, "window.consent"), "accepted");
    assert.equal(await value(page, "window.subscribeClicks"), 0);
    assert.equal(await reachable(page, "#buy"), true);
    await page.close();
  });

  it("a newsletter popup (backdrop + dialog, ×, Subscribe now, scroll lock): hidden, never clicked, scrolling restored", async () => {
    const page = await open("/newsletter");
    await page.locator(".nl-modal").waitFor();
    assert.equal(await reachable(page, "#buy"), false);
    const r = await clearOverlays(page, ROOMY);
    assert.deepEqual(r.dismissed, []);
    assert.equal(r.hidden, 2, "the backdrop and its dialog");
    assert.equal(await value(page, "window.subscribeClicks"), 0);
    assert.equal(await page.locator(".nl-modal").isVisible(), false);
    assert.equal(await reachable(page, "#buy"), true);
    assert.equal(await reachable(page, "#menu"), true, "the fixed header stays");
    const scrolled = await page.evaluate(() => {
      window.scrollTo(0, 600);
      return window.scrollY;
    });
    assert.ok(scrolled > 500, `the page scrolls again (scrollY ${scrolled})`);
    assert.doesNotMatch(await aiSnapshot(page), /Subscribe now/);
    await page.close();
  });

  it("a pass that outlasts the bound (a loaded machine) still reports what it hid", async () => {
    const page = await open("/newsletter");
    await page.locator(".nl-modal").waitFor();
    // The page's first style read blocks for 400 ms: the pass starts in time and ends past its 150 ms bound.
    await page.evaluate(() => {
      const read = window.getComputedStyle;
      let first = true;
      window.getComputedStyle = (el: Element, pseudo?: string | null) => {
        if (first) {
          first = false;
          const until = Date.now() + 400;
          while (Date.now() < until) {}
        }
        return read(el, pseudo);
      };
    });
    const r = await clearOverlays(page, { timeoutMs: 150 });
    assert.equal(await page.locator(".nl-modal").isVisible(), false, "the pass hid the popup");
    assert.equal(r.hidden, 2, "and metadata says so");
    await page.close();
  });

  it("a modal that made the page inert and aria-hidden: the page comes back", async () => {
    const page = await open("/newsletter?inert=1");
    await page.locator(".nl-modal").waitFor();
    const r = await clearOverlays(page, ROOMY);
    assert.equal(r.hidden, 2);
    assert.equal(await reachable(page, "#buy"), true);
    assert.equal(await reachable(page, "#menu"), true);
    assert.deepEqual(
      await page.evaluate(() => [document.querySelectorAll("[inert], [aria-hidden=true]").length]),
      [0],
    );
    assert.match(await page.ariaSnapshot(), /button "Menu"/, "the default snapshot sees the header again");
    await page.close();
  });

  it("a cookie banner whose only 'buttons' are links to /privacy: hidden, not followed", async () => {
    const page = await open("/links-only");
    assert.equal(await reachable(page, "#low"), false);
    const r = await clearOverlays(page, ROOMY);
    assert.deepEqual(r.dismissed, []);
    assert.equal(r.hidden, 1);
    assert.equal(page.url(), `${base}/links-only`);
    assert.equal(await reachable(page, "#low"), true);
    await page.close();
  });

  it("an accept button whose handler navigates: the navigation is stopped, later clicks still work", async () => {
    const page = await open("/navigating");
    const r = await clearOverlays(page, ROOMY);
    assert.deepEqual(r.dismissed, ["generic-consent"]);
    assert.equal(await value(page, "window.consent"), "accepted");
    // The handler's navigation was cancelled as it started (its navigate event), so it can never land.
    assert.deepEqual(await value(page, "window.navigations.map((e) => e.defaultPrevented)"), [true]);
    assert.equal(page.url(), `${base}/navigating`);
    await page.locator("#buy").click({ timeout: 2_000 });
    assert.equal(await value(page, "window.buyClicks"), 1);
    await page.close();
  });

  it("a consent form that posts to the server: never submitted, hidden instead", async () => {
    const page = await open("/form-post");
    const r = await clearOverlays(page, ROOMY);
    assert.deepEqual(r.dismissed, []);
    assert.equal(r.hidden, 1);
    assert.equal(page.url(), `${base}/form-post`);
    await page.locator("#low").click({ timeout: 2_000 });
    await page.close();
  });

  it("a <dialog> opened with showModal(): hidden and closed, the page is no longer inert", async () => {
    const page = await open("/dialog");
    await page.locator("#promo").waitFor();
    assert.equal(await reachable(page, "#buy"), false);
    const r = await clearOverlays(page, ROOMY);
    assert.equal(r.hidden, 1);
    assert.equal(await value(page, "window.subscribeClicks"), 0);
    assert.equal(await reachable(page, "#buy"), true);
    await page.close();
  });

  it("a scroll-lock library's fixed body: unlocked at the same scroll position", async () => {
    const page = await open("/body-lock");
    await page.locator(".push-prompt-overlay").waitFor();
    const r = await clearOverlays(page, ROOMY);
    assert.equal(r.hidden, 1);
    const state = await page.evaluate(() => ({
      position: getComputedStyle(document.body).position,
      y: window.scrollY,
    }));
    assert.equal(state.position, "static");
    assert.ok(Math.abs(state.y - 400) < 5, `scrollY ${state.y}`);
    assert.equal(await reachable(page, "#low"), true);
    await page.close();
  });

  it("a Sourcepoint-like consent iframe from another origin: rejects inside the frame", async () => {
    const page = await open("/sourcepoint");
    await page.frameLocator("#sp_message_iframe_1170").locator(".sp_choice_type_13").waitFor();
    const r = await clearOverlays(page, ROOMY);
    assert.deepEqual(r.dismissed, ["sourcepoint"]);
    assert.equal(await value(page, "window.consent"), "rejected");
    assert.equal(await reachable(page, "#buy"), true);
    await page.close();
  });

  it("a consent iframe without a button it understands: hidden", async () => {
    const page = await open("/sourcepoint?variant=opaque");
    await page.frameLocator("#sp_message_iframe_1170").locator(".sp_choice_type_11").waitFor();
    const r = await clearOverlays(page, ROOMY);
    assert.deepEqual(r.dismissed, []);
    assert.equal(r.hidden, 1);
    assert.equal(await value(page, "window.consent"), null);
    assert.equal(await reachable(page, "#buy"), true);
    await page.close();
  });

  it("an SPA whose root is position:fixed and full-size stays (with <main>, and without on a fixed backdrop)", async () => {
    for (const path of ["/spa", "/spa?main=0"]) {
      const page = await open(path);
      const r = await clearOverlays(page, ROOMY);
      assert.deepEqual(r, { dismissed: [], hidden: 0 }, path);
      assert.equal(await reachable(page, "#archive"), true, path);
      assert.equal(await reachable(page, "#compose"), true, path);
      assert.equal(
        await page.evaluate(() => document.querySelectorAll("[data-bf-overlay-unlocked]").length),
        0,
        `${path}: its overflow:hidden is its design, not a lock`,
      );
      await page.close();
    }
  });

  it("an SPA with a consent toast inside its fixed root: declines, the app stays", async () => {
    const page = await open("/spa?main=0&banner=1");
    await page.locator(".consent-toast").waitFor();
    const r = await clearOverlays(page, ROOMY);
    assert.deepEqual(r, { dismissed: ["generic-consent"], hidden: 0 });
    assert.equal(await value(page, "window.consent"), "declined");
    assert.equal(await reachable(page, "#archive"), true);
    await page.close();
  });

  // A hang fails at the test's timeout; no timing is asserted.
  it("gives up on a page whose main thread is busy, without throwing or touching it later", {
    timeout: 30_000,
  }, async () => {
    const page = await open("/german");
    await page.locator("#cookie-hinweis").waitFor();
    // The page's next task runs for 2.5 s: every evaluate waits behind it.
    await page.evaluate(() => {
      setTimeout(() => {
        const end = Date.now() + 2_500;
        while (Date.now() < end) {
          // busy
        }
      }, 0);
    });
    const r = await clearOverlays(page, { timeoutMs: 300 });
    assert.deepEqual(r, { dismissed: [], hidden: 0 });
    // The pass that ran late found its deadline gone and left the page alone.
    await page.waitForFunction(() => true, undefined, { timeout: 5_000 });
    assert.equal(await page.locator("#cookie-hinweis").isVisible(), true);
    assert.equal(await value(page, "window.consent"), null);
    await page.close();
  });

  it("a page without overlays: one evaluate, nothing changed", async () => {
    const page = await open("/plain");
    const main = page.mainFrame() as unknown as { evaluate: (...args: unknown[]) => Promise<unknown> };
    const original = main.evaluate.bind(main);
    let evaluates = 0;
    main.evaluate = (...args: unknown[]) => {
      evaluates++;
      return original(...args);
    };
    await page.evaluate(() => document.getElementsByTagName("*").length);
    evaluates = 0;
    for (let i = 0; i < 3; i++) await clearOverlays(page);
    evaluates = 0;
    for (let i = 0; i < 20; i++) {
      const r = await clearOverlays(page);
      assert.deepEqual(r, { dismissed: [], hidden: 0 });
    }
    assert.equal(evaluates, 20, "one evaluate per call");
    assert.equal(
      await page.evaluate(
        () => document.querySelectorAll("[data-bf-overlay-hidden], [data-bf-overlay-unlocked]").length,
      ),
      0,
    );
    assert.equal(await reachable(page, "#menu"), true);
    await page.close();
  });

  it("works from an esbuild bundle built with --keep-names", async (t) => {
    let esbuild: typeof import("esbuild");
    try {
      esbuild = await import("esbuild");
    } catch {
      t.skip("esbuild is not installed");
      return;
    }
    const dir = await mkdtemp(join(tmpdir(), "overlays-bundle-"));
    try {
      const outfile = join(dir, "overlays.mjs");
      await esbuild.build({
        entryPoints: [fileURLToPath(new URL("../src/page/overlays.ts", import.meta.url))],
        bundle: true,
        platform: "node",
        format: "esm",
        keepNames: true,
        external: ["playwright-core"],
        outfile,
        logLevel: "silent",
      });
      // The host's own functions carry __name calls in this build; the page code is the committed
      // bundle (injected/generated), text the host's build does not touch.
      const code = await readFile(outfile, "utf8");
      assert.match(code, /__name\(/, "a keep-names build");
      const bundled = (await import(pathToFileURL(outfile).href)) as typeof import("../src/page/overlays.ts");
      const page = await open("/newsletter");
      await page.locator(".nl-modal").waitFor();
      assert.deepEqual(await bundled.clearOverlays(page, ROOMY), { dismissed: [], hidden: 2 });
      await page.close();
      const page2 = await open("/onetrust");
      await page2.locator("#onetrust-banner-sdk").waitFor();
      assert.deepEqual((await bundled.clearOverlays(page2, ROOMY)).dismissed, ["onetrust"]);
      await page2.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
