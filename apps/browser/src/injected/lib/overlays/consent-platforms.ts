/*
 * Consent-management platforms whose markup the overlay pass (entries/overlay-pass.ts) knows: where
 * their dialogs sit and which of their buttons reject or accept.
 */

/** A consent-management platform whose markup is known: its banner roots and its buttons. */
export interface KnownCmp {
  name: string;
  /**
   * CSS for its visible containers (banner, preference center, backdrop), comma-separated. Each
   * selector's subject must start with an #id or a .class: that is how the page looks them up.
   */
  root: string;
  /** CSS for its reject / necessary-only buttons, searched inside a root (open shadow roots too). */
  reject: string[];
  accept: string[];
}

export const KNOWN_CMPS: KnownCmp[] = [
  {
    name: "onetrust",
    root: "#onetrust-banner-sdk, #onetrust-pc-sdk, .onetrust-pc-dark-filter",
    reject: ["#onetrust-reject-all-handler", ".ot-pc-refuse-all-handler"],
    accept: ["#onetrust-accept-btn-handler", "#accept-recommended-btn-handler"],
  },
  {
    name: "cookiebot",
    root: "#CybotCookiebotDialog, #CybotCookiebotDialogBodyUnderlay",
    reject: [
      "#CybotCookiebotDialogBodyButtonDecline",
      "#CybotCookiebotDialogBodyLevelButtonLevelOptinDeclineAll",
    ],
    accept: [
      "#CybotCookiebotDialogBodyLevelButtonLevelOptinAllowAll",
      "#CybotCookiebotDialogBodyButtonAccept",
    ],
  },
  {
    name: "didomi",
    root: "#didomi-notice, #didomi-popup, .didomi-popup-backdrop",
    reject: ["#didomi-notice-disagree-button", ".didomi-continue-without-agreeing", "#btn-toggle-disagree"],
    accept: ["#didomi-notice-agree-button"],
  },
  // Quantcast / InMobi Choice: buttons are found by their text.
  { name: "quantcast", root: ".qc-cmp2-container, #qc-cmp2-ui", reject: [], accept: [] },
  {
    name: "trustarc",
    root: "#truste-consent-track, .truste_overlay, .truste_box_overlay",
    reject: ["#truste-consent-required"],
    accept: ["#truste-consent-button"],
  },
  {
    name: "usercentrics",
    root: "#usercentrics-root, #usercentrics-cmp-ui",
    reject: ['[data-testid="uc-deny-all-button"]', "button#deny"],
    accept: ['[data-testid="uc-accept-all-button"]', "button#accept"],
  },
  {
    name: "osano",
    root: ".osano-cm-dialog, .osano-cm-window__dialog",
    reject: [".osano-cm-denyAll", ".osano-cm-deny"],
    accept: [".osano-cm-accept-all", ".osano-cm-accept"],
  },
  {
    name: "complianz",
    root: "#cmplz-cookiebanner-container, .cmplz-cookiebanner, .cmplz-soft-cookiewall",
    reject: [".cmplz-deny"],
    accept: [".cmplz-accept"],
  },
  {
    name: "cookieyes",
    root: ".cky-consent-container, .cky-modal, .cky-overlay, #cookie-law-info-bar",
    reject: [".cky-btn-reject", "#cookie_action_close_header_reject"],
    accept: [".cky-btn-accept", "#cookie_action_close_header"],
  },
  {
    name: "klaro",
    root: ".klaro .cookie-notice, .klaro .cookie-modal",
    reject: [".cn-decline", ".cm-btn-decline"],
    accept: [".cm-btn-accept-all", ".cm-btn-success"],
  },
  { name: "consentmanager", root: "#cmpbox, #cmpbox2", reject: [".cmpboxbtnno"], accept: [".cmpboxbtnyes"] },
  {
    name: "iubenda",
    root: "#iubenda-cs-banner",
    reject: [".iubenda-cs-reject-btn"],
    accept: [".iubenda-cs-accept-btn"],
  },
  {
    name: "funding-choices",
    root: ".fc-consent-root",
    reject: [".fc-cta-do-not-consent"],
    accept: [".fc-cta-consent"],
  },
  {
    name: "cookiescript",
    root: "#cookiescript_injected",
    reject: ["#cookiescript_reject"],
    accept: ["#cookiescript_accept"],
  },
  {
    name: "cookieconsent",
    root: ".cc-window:not(.cc-invisible)",
    reject: [".cc-deny"],
    accept: [".cc-allow"],
  },
  {
    name: "tarteaucitron",
    root: "#tarteaucitronAlertBig, #tarteaucitronRoot .tarteaucitronAlertBigBottom",
    reject: ["#tarteaucitronAllDenied2"],
    accept: ["#tarteaucitronPersonalize2"],
  },
  // Borlabs Cookie (WordPress): version 2's choices are links (role=button, href="#"), version 3's buttons.
  {
    name: "borlabs",
    root: "._brlbs-bar-wrap, ._brlbs-box-wrap, .brlbs-cmpnt-dialog",
    reject: ["a[data-cookie-refuse]", ".brlbs-btn-accept-only-essential"],
    accept: ["a[data-cookie-accept-all]", ".brlbs-btn-accept-all"],
  },
  {
    name: "axeptio",
    root: "#axeptio_overlay",
    reject: ["#axeptio_btn_dismiss"],
    accept: ["#axeptio_btn_acceptAll"],
  },
];
