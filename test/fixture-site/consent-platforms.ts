/**
 * Consent banners that behave like the real consent-management platforms: their own element ids and
 * classes, the global API their script exposes (what rule libraries such as DuckDuckGo's autoconsent
 * detect them by), a banner that arrives after load, and a choice that is stored in the CMP's own cookie
 * and reported to the site (`report`, when given, is fetched with the choice: `${report}/rejected`)
 * before the banner goes. Markup trimmed from each platform's live banner, in its default layout.
 *
 *   `${cmpScript("onetrust", { report: "/consent-choice" })}` inside a page's body
 *
 * In the page: window.consent is null, then "rejected", "accepted" or "settings" (a settings button);
 * document.cookie holds the CMP's cookie once a choice is made.
 */

export const REAL_CMPS = ["onetrust", "cookiebot", "didomi", "borlabs"] as const;
export type RealCmp = (typeof REAL_CMPS)[number];

/** The cookie each platform stores when everything but the necessary is refused (what a test looks for). */
export const REJECT_COOKIE: Record<RealCmp, RegExp> = {
  onetrust: /OptanonConsent=[^;]*groups%3DC0001%3A1%2CC0002%3A0/,
  cookiebot: /CookieConsent=[^;]*marketing%3Afalse/,
  didomi: /didomi_token=[^;]*disagree/,
  // {"consents":{"essential":["borlabs-cookie"]}}: the essential group alone.
  borlabs: /borlabs-cookie=%7B%22consents%22%3A%7B%22essential%22%3A%5B%22borlabs-cookie%22%5D%7D%7D/,
};

const BAR =
  "position:fixed;left:0;right:0;bottom:0;z-index:2147483646;background:#fff;padding:20px 24px;box-shadow:0 0 12px rgba(0,0,0,.3)";

const MARKUP: Record<RealCmp, string> = {
  onetrust: `<div id="onetrust-consent-sdk" data-cmp-root>
  <div class="onetrust-pc-dark-filter ot-fade-in" style="position:fixed;inset:0;background:rgba(0,0,0,.5);z-index:2147483645"></div>
  <div id="onetrust-banner-sdk" class="otFlat ot-bnr-w-logo" tabindex="0" role="region" aria-label="Cookie banner" style="${BAR}">
    <div role="dialog" aria-label="Privacy"><div id="onetrust-policy"><h2 id="onetrust-policy-title">We value your privacy</h2>
    <div id="onetrust-policy-text">We and our partners store and access information on your device, such as cookies, to measure content
      and personalise ads. <a class="ot-cookie-policy-link" href="/privacy">Cookie Policy</a></div></div>
    <div id="onetrust-button-group-parent" class="ot-sdk-three ot-sdk-columns"><div id="onetrust-button-group">
      <button id="onetrust-pc-btn-handler" data-choice="settings">Cookie Settings</button>
      <button id="onetrust-reject-all-handler" data-choice="rejected">Reject All</button>
      <button id="onetrust-accept-btn-handler" data-choice="accepted">Accept All Cookies</button></div></div></div></div></div>`,
  cookiebot: `<div id="CybotCookiebotDialog" name="CybotCookiebotDialog" role="dialog" aria-modal="true" aria-label="Cookiebot"
  class="CybotCookiebotDialogActive CybotEdge" lang="en" data-template="popup" data-cmp-root
  style="position:fixed;left:50%;top:50%;transform:translate(-50%,-50%);width:600px;z-index:2147483647;background:#fff;padding:24px;box-shadow:0 30px 70px rgba(0,0,0,.3)">
  <div id="CybotCookiebotDialogBody"><h2 id="CybotCookiebotDialogBodyContentTitle">This website uses cookies</h2>
    <div id="CybotCookiebotDialogBodyContentText">We use cookies to personalise content and ads, to provide social media features
      and to analyse our traffic.</div></div>
  <div id="CybotCookiebotDialogFooter"><div id="CybotCookiebotDialogBodyButtonsWrapper">
    <button id="CybotCookiebotDialogBodyButtonDecline" class="CybotCookiebotDialogBodyButton" data-choice="rejected">Deny</button>
    <button id="CybotCookiebotDialogBodyLevelButtonLevelOptinAllowallSelection" class="CybotCookiebotDialogBodyButton" data-choice="selection">Allow selection</button>
    <button id="CybotCookiebotDialogBodyLevelButtonLevelOptinAllowAll" class="CybotCookiebotDialogBodyButton" data-choice="accepted">Allow all</button>
  </div></div></div>`,
  didomi: `<div id="didomi-host" data-nosnippet="true" aria-hidden="false" data-cmp-root><div class="didomi-popup-notice didomi-notice-banner" id="didomi-notice" style="${BAR}">
  <div class="didomi-notice-text" id="didomi-notice-text">We and our partners use cookies and other technologies to store and access
    information on your device.</div>
  <div class="didomi-notice-buttons">
    <button id="didomi-notice-learn-more-button" class="didomi-components-button didomi-button-highlight" data-choice="settings">Learn More →</button>
    <button id="didomi-notice-disagree-button" class="didomi-components-button didomi-button didomi-dismiss-button" data-choice="rejected"><span>Continue without agreeing →</span></button>
    <button id="didomi-notice-agree-button" class="didomi-components-button didomi-button" data-choice="accepted"><span>Agree and close</span></button>
  </div></div></div>`,
  // Borlabs Cookie 2 (a WordPress plugin): its choices are links, not buttons.
  borlabs: `<div id="BorlabsCookieBox" class="BorlabsCookie" role="dialog" aria-describedby="CookieBoxTextDescription" aria-modal="true" data-cmp-root>
  <div class="bottom-center"><div class="_brlbs-bar-wrap" style="${BAR}"><div class="_brlbs-bar _brlbs-bar-advanced">
    <div class="cookie-box"><div class="container"><div class="row"><div class="col-12"><div class="_brlbs-block-content">
      <p id="CookieBoxTextDescription" class="_brlbs-cookie-text">We use cookies on our website. Some of them are essential, while others
        help us to improve this website and your experience.</p>
      <p class="_brlbs-accept"><a href="#" tabindex="0" role="button" class="_brlbs-btn _brlbs-btn-accept-all _brlbs-cursor" data-cookie-accept-all data-choice="accepted">Accept all</a></p>
      <p class="_brlbs-refuse-btn"><a href="#" tabindex="0" role="button" class="_brlbs-btn _brlbs-cursor" data-cookie-refuse data-choice="rejected">Accept only essential cookies</a></p>
      <p class="_brlbs-manage-btn"><a href="#" tabindex="0" class="_brlbs-cursor" data-cookie-individual data-choice="settings">Individual Privacy Preferences</a></p>
    </div></div></div></div></div></div></div></div></div>`,
};

/** The cookie value each platform writes for a choice (URI-encoded, as the platforms do). */
const COOKIE: Record<RealCmp, (choice: "rejected" | "accepted") => string> = {
  onetrust: (c) =>
    `OptanonConsent=${encodeURIComponent(`isGpcEnabled=0&groups=C0001:1,C0002:${c === "accepted" ? 1 : 0},C0004:${c === "accepted" ? 1 : 0}`)}`,
  cookiebot: (c) =>
    `CookieConsent=${encodeURIComponent(`{stamp:'x',necessary:true,preferences:${c === "accepted"},statistics:${c === "accepted"},marketing:${c === "accepted"}}`)}`,
  didomi: (c) => `didomi_token=${encodeURIComponent(c === "accepted" ? "agree-all" : "disagree-all")}`,
  borlabs: (c) =>
    `borlabs-cookie=${encodeURIComponent(JSON.stringify({ consents: c === "accepted" ? { essential: ["borlabs-cookie"], statistics: ["ga"] } : { essential: ["borlabs-cookie"] } }))}`,
};

/**
 * The platform's global API, as its script defines it (only what rule libraries call): Cookiebot's
 * `window.Cookiebot`, Didomi's `window.Didomi`, OneTrust's `window.OneTrust`. `choose` is the page's
 * own handler for a choice.
 */
const API: Record<RealCmp, string> = {
  onetrust: `window.OneTrust = { RejectAll: function () { choose("rejected"); }, AllowAll: function () { choose("accepted"); },
    IsAlertBoxClosed: function () { return document.cookie.indexOf("OptanonConsent=") >= 0; } };
  window.OnetrustActiveGroups = ",C0001,C0002,C0004,";`,
  cookiebot: `window.Cookiebot = { hasResponse: false, consented: false, declined: false, dialog: { visible: true },
    consent: { necessary: true, preferences: false, statistics: false, marketing: false },
    withdraw: function () { choose("rejected"); }, hide: function () { window.Cookiebot.dialog.visible = false; root.remove(); },
    submitCustomConsent: function () { choose("selection"); } };`,
  didomi: `window.Didomi = { setUserDisagreeToAll: function () { choose("rejected"); }, setUserAgreeToAll: function () { choose("accepted"); },
    getCurrentUserStatus: function () { var on = window.consent === "accepted";
      return { purposes: { cookies: { id: "cookies", enabled: on }, analytics: { id: "analytics", enabled: on } } }; },
    notice: { isVisible: function () { return document.contains(root); } } };
  window.didomiOnReady = window.didomiOnReady || [];`,
  borlabs: `window.BorlabsCookie = { Consents: { hasConsent: function (id) { return window.consent === "accepted" || id === "borlabs-cookie"; } } };`,
};

export interface CmpScriptOptions {
  /** A path fetched as `${report}/${choice}` when a choice is made, so a server sees which one was clicked. */
  report?: string;
  /** How long after load the banner appears (ms); 200 by default. */
  delayMs?: number;
}

/** A <script> (with its <template>) that shows `cmp`'s banner after load, as the platform's script does. */
export function cmpScript(cmp: RealCmp, opts: CmpScriptOptions = {}): string {
  return `<template id="cmp-${cmp}">${MARKUP[cmp]}</template>
<script>(function () {
  window.consent = window.consent || null;
  var root = null;
  function choose(choice) {
    if (choice === "settings") { window.consent = "settings"; return; }
    window.consent = choice;
    var cookies = { rejected: ${JSON.stringify(COOKIE[cmp]("rejected"))}, accepted: ${JSON.stringify(COOKIE[cmp]("accepted"))} };
    if (cookies[choice]) document.cookie = cookies[choice] + "; path=/; max-age=31536000; SameSite=Lax";
    if (window.Cookiebot) { window.Cookiebot.hasResponse = true; window.Cookiebot.declined = choice === "rejected";
      window.Cookiebot.consented = choice === "accepted"; window.Cookiebot.dialog.visible = false; }
    ${opts.report ? `fetch(${JSON.stringify(opts.report)} + "/" + choice, { keepalive: true }).catch(function () {});` : ""}
    if (root) root.remove();
  }
  ${API[cmp]}
  setTimeout(function () {
    if (document.cookie.indexOf(${JSON.stringify(COOKIE[cmp]("rejected").split("=")[0])} + "=") >= 0) return;
    var holder = document.createElement("div");
    holder.appendChild(document.getElementById("cmp-${cmp}").content.cloneNode(true));
    root = holder.querySelector("[data-cmp-root]");
    document.body.appendChild(root);
    root.querySelectorAll("[data-choice]").forEach(function (b) {
      b.addEventListener("click", function (e) { e.preventDefault(); choose(b.getAttribute("data-choice")); });
    });
  }, ${opts.delayMs ?? 200});
})();</script>`;
}
