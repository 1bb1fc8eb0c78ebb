import type { Frame, Page } from "playwright-core";

/*
 * Cookie-consent banners and modal overlays, cleared before a screenshot or a controls snapshot:
 * first a consent dialog's own reject (else accept, else close) button is clicked, then whatever
 * still covers the page is hidden with `display: none !important` and a page-locked scroll is restored.
 *
 * Marks left in the page (all carry the call's token as value):
 *   data-bf-overlay-hidden    an element this module hid
 *   data-bf-overlay-unlocked  html/body whose scroll lock was undone, or content made non-inert again
 *   data-bf-overlay-done      a consent container already clicked in (never clicked twice; hidden if it stays)
 *   data-bf-overlay-target    the button about to be clicked (removed by the next pass)
 */

export type ButtonKind = "reject" | "accept" | "close" | "unsafe";

/** Regular-expression sources (flags "iu"), matched against a button's normalized text. */
export interface ButtonRules {
  /** Longer texts are not buttons this module understands (but are still checked for `unsafe`). */
  maxLength: number;
  unsafe: string;
  reject: string;
  accept: string;
  close: string;
}

/** Words or phrases, matched whole (a letter or digit may not touch either end). */
const phrases = (alts: readonly string[]): string =>
  `(?:^|[^\\p{L}\\p{N}])(?:${alts.join("|")})(?=$|[^\\p{L}\\p{N}])`;

export const BUTTON_RULES: ButtonRules = {
  maxLength: 60,
  // Anything that buys, subscribes or signs up: never clicked, even when a known CMP's button says so.
  unsafe: phrases([
    "buy",
    "buy now",
    "purchase",
    "subscribe",
    "subscription",
    "check ?out",
    "pay",
    "payment",
    "order",
    "sign ?up",
    "register",
    "log ?in",
    "sign in",
    "donate",
    "upgrade",
    "(?:free|start) trial",
    "add to (?:cart|basket|bag)",
    "kaufen",
    "jetzt kaufen",
    "bestellen",
    "abonnieren",
    "abo abschließen",
    "registrieren",
    "anmelden",
    "acheter",
    "commander",
    "s'abonner",
    "abonnez-vous",
    "s'inscrire",
    "comprar",
    "suscribirse",
    "suscríbete",
    "pagar",
    "acquista",
    "abbonati",
    "iscriviti",
    "abonneren",
    "kopen",
  ]),
  reject: phrases([
    "reject(?: all)?(?: cookies)?",
    "decline(?: all)?(?: cookies)?",
    "deny(?: all)?",
    "refuse(?: all)?",
    "disagree",
    "do not agree",
    "don't agree",
    "(?:i )?do not accept",
    "don't accept",
    "do not consent",
    "don't consent",
    "don't allow",
    "do not allow",
    "no thanks",
    "no, thanks",
    "opt[- ]out",
    "continue without (?:accepting|agreeing|consent)",
    "(?:strictly )?(?:necessary|essential|required|functional)(?: cookies)? only",
    "only (?:strictly )?(?:necessary|essential|required|functional)(?: cookies)?",
    "(?:use|allow|accept) (?:strictly )?(?:necessary|essential|required)(?: cookies)? only",
    "ablehnen",
    "alle ablehnen",
    "verweigern",
    "nicht zustimmen",
    "nicht einverstanden",
    "nur (?:technisch )?(?:notwendige|essenzielle|essentielle|erforderliche)",
    "ohne (?:zustimmung|einwilligung)",
    "refuser",
    "tout refuser",
    "je refuse",
    "continuer sans accepter",
    "(?:uniquement )?(?:les )?(?:cookies )?nécessaires(?: uniquement)?",
    "rechazar(?: todo| todas| todos)?",
    "denegar",
    "no acepto",
    "solo (?:las )?necesarias",
    "rifiuta(?: tutto| tutti)?",
    "rifiuto",
    "continua senza accettare",
    "solo (?:i )?necessari",
    "weigeren",
    "alles weigeren",
    "alleen noodzakelijke",
    "rejeitar(?: tudo)?",
    "recusar",
    "odrzuć(?: wszystkie)?",
  ]),
  accept: phrases([
    "accept(?: all)?(?: cookies)?",
    "i accept",
    "agree",
    "i agree",
    "allow(?: all)?(?: cookies)?",
    "got it",
    "ok",
    "okay",
    "understood",
    "i understand",
    "yes",
    "consent",
    "akzeptieren",
    "alle akzeptieren",
    "alles akzeptieren",
    "annehmen",
    "alle annehmen",
    "zustimmen",
    "allen zustimmen",
    "einverstanden",
    "(?:alle )?zulassen",
    "(?:alle )?erlauben",
    "verstanden",
    "accepter",
    "tout accepter",
    "j'accepte",
    "d'accord",
    "(?:tout )?autoriser",
    "compris",
    "aceptar(?: todo| todas| todos)?",
    "acepto",
    "de acuerdo",
    "permitir",
    "entendido",
    "accetta(?: tutto| tutti)?",
    "accetto",
    "consenti",
    "ho capito",
    "akkoord",
    "(?:alles )?accepteren",
    "toestaan",
    "aceitar(?: tudo)?",
    "aceito",
    "concordo",
  ]),
  close: `${phrases([
    "close",
    "dismiss",
    "schließen",
    "schliessen",
    "fermer",
    "cerrar",
    "chiudi",
    "sluiten",
    "fechar",
  ])}|^[×✕✖✗╳x]$`,
};

/**
 * Pure: what clicking a button with this text would do on a consent banner. Self-contained (it also
 * runs inside the page): `unsafe` wins over everything, then reject, accept, close.
 */
export function classifyWith(rules: ButtonRules, text: string): ButtonKind | undefined {
  const t = text
    .normalize("NFKC")
    .replace(/[\u2018\u2019\u02bc`´]/g, "'")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
  if (!t) return undefined;
  if (new RegExp(rules.unsafe, "iu").test(t)) return "unsafe";
  if (t.length > rules.maxLength) return undefined;
  if (new RegExp(rules.reject, "iu").test(t)) return "reject";
  if (new RegExp(rules.accept, "iu").test(t)) return "accept";
  if (new RegExp(rules.close, "iu").test(t)) return "close";
  return undefined;
}

/** Button text → 'reject' | 'accept' | 'close' | 'unsafe' | undefined (not understood). */
export function classifyButtonText(text: string): ButtonKind | undefined {
  return classifyWith(BUTTON_RULES, text);
}

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
  {
    name: "axeptio",
    root: "#axeptio_overlay",
    reject: ["#axeptio_btn_dismiss"],
    accept: ["#axeptio_btn_acceptAll"],
  },
];

/** Words in an element's own id, class or aria-label that make it a consent banner. */
const CONSENT_ATTR =
  "cookie|consent|gdpr|privacy|datenschutz|rgpd|onetrust|optanon|didomi|usercentrics|truste|cybot|sp_message|qc-cmp|cky-|cmplz|klaro|osano|iubenda|cmpbox|tarteaucitron|axeptio|cookiescript";
/** Words in a banner's text that make it a consent banner (with a consent button, or no button at all). */
const CONSENT_TEXT = "\\bcookies?\\b|\\bconsent|\\bgdpr\\b|datenschutz|\\brgpd\\b|\\beinwilligung";
/** An iframe (id, name, or host + path of its src) that holds a consent dialog. */
const CONSENT_FRAME =
  "consent|cookie|gdpr|privacy|sp_message|truste|trustarc|didomi|usercentrics|onetrust|cookiebot|\\bcmp";

interface PassArgs {
  rules: ButtonRules;
  cmps: KnownCmp[];
  consentAttr: string;
  consentText: string;
  consentFrame: string;
  /** "frame": the document is a consent frame; look for its buttons only. */
  mode: "main" | "frame";
  allowClick: boolean;
  /** Consent frames were dealt with already (or cannot be): hide them. */
  framesDone: boolean;
  /** Something was clicked before this pass (a scroll lock left behind is then undone). */
  acted: boolean;
  token: string;
  /** Date.now() past which a pass that starts late (a busy page) does nothing: nobody awaits it. */
  deadline: number;
}

interface PassTarget {
  name: string;
  kind: ButtonKind;
}

interface PassFrame {
  name: string;
  src: string;
}

interface PassResult {
  /** Marked with data-bf-overlay-target=token; a navigation guard is installed until the next pass. */
  target?: PassTarget;
  frames?: PassFrame[];
  hidden: number;
  unlocked: number;
}

/**
 * Runs inside the page (see PASS_SOURCE for how): finds a consent button to click, else the visible
 * consent frames to search, else hides what blocks the page. Self-contained; `classify` is
 * `classifyWith`, handed over by the wrapper.
 */
function overlayPass(a: PassArgs, classify: typeof classifyWith): PassResult {
  const HID = "data-bf-overlay-hidden";
  const TGT = "data-bf-overlay-target";
  const DONE = "data-bf-overlay-done";
  const UNL = "data-bf-overlay-unlocked";
  const w = window as unknown as Record<symbol, unknown>;
  const GUARD = Symbol.for("browserfleet.overlays.guard");
  const LAST = Symbol.for("browserfleet.overlays.target");
  const out: PassResult = { hidden: 0, unlocked: 0 };
  if (Date.now() > a.deadline) return out;
  // The previous click's navigation guard and target mark end here.
  const undo = w[GUARD];
  if (typeof undo === "function") undo();
  const last = w[LAST];
  if (last instanceof Element) last.removeAttribute(TGT);
  w[LAST] = undefined;

  const doc = document;
  const root = doc.documentElement;
  const body = doc.body;
  if (!root || !body) return out;
  const vw = window.innerWidth;
  const vh = window.innerHeight;
  if (vw < 1 || vh < 1) return out;

  const styles = new Map<Element, CSSStyleDeclaration>();
  const style = (el: Element): CSSStyleDeclaration => {
    let s = styles.get(el);
    if (!s) {
      s = getComputedStyle(el);
      styles.set(el, s);
    }
    return s;
  };
  // The parent in the flat tree: a slot, a parent element, or the host of a shadow root.
  const up = (el: Element): Element | null => {
    if (el.assignedSlot) return el.assignedSlot;
    if (el.parentElement) return el.parentElement;
    const pn = el.parentNode;
    return pn instanceof ShadowRoot ? pn.host : null;
  };
  const within = (outer: Element, el: Element): boolean => {
    for (let x: Element | null = el; x; x = up(x)) if (x === outer) return true;
    return false;
  };
  const shown = (el: Element): boolean => {
    if (!el.isConnected || !el.checkVisibility({ visibilityProperty: true })) return false;
    const r = el.getBoundingClientRect();
    return r.width >= 2 && r.height >= 2 && r.right > 0 && r.bottom > 0 && r.left < vw && r.top < vh;
  };
  // A shadow host often has no box of its own (its banner is fixed inside): look at its shadow tree.
  const shownDeep = (el: Element): boolean => {
    if (shown(el)) return true;
    const sr = el.shadowRoot;
    if (!sr) return false;
    return Array.from(sr.querySelectorAll("*"))
      .slice(0, 300)
      .some((x) => shown(x));
  };
  const layerOf = (el: Element): string => {
    const s = style(el);
    if (s.position === "fixed" || s.position === "sticky") return s.position;
    if (el.tagName === "DIALOG" && (el as HTMLDialogElement).open) return "dialog";
    if (s.position === "absolute" && Number.parseInt(s.zIndex, 10) >= 1000) return "z";
    return "";
  };
  const attrText = (el: Element): string =>
    `${el.id} ${el.getAttribute("class") ?? ""} ${el.getAttribute("aria-label") ?? ""}`;
  const ownWords = new RegExp(a.consentAttr, "i");
  const textWords = new RegExp(a.consentText, "i");
  const frameWords = new RegExp(a.consentFrame, "i");
  const strongSel = ["cookie", "consent", "gdpr"]
    .flatMap((x) => [`[id*="${x}" i]`, `[class*="${x}" i]`])
    .join(",");
  const BTN = "button, [role=button], input[type=button], input[type=submit]";
  const deepAll = (scope: Element | Document, sel: string): Element[] => {
    const found: Element[] = [];
    const scopes: Array<Element | Document | ShadowRoot> = [scope];
    if (scope instanceof Element && scope.shadowRoot) scopes.push(scope.shadowRoot);
    for (let i = 0; i < scopes.length && i < 60; i++) {
      const s = scopes[i]!;
      found.push(...Array.from(s.querySelectorAll(sel)));
      for (const e of Array.from(s.querySelectorAll("*"))) if (e.shadowRoot) scopes.push(e.shadowRoot);
    }
    return found;
  };
  const isDone = (el: Element): boolean => {
    for (let x: Element | null = el; x; x = up(x)) if (x.hasAttribute(DONE)) return true;
    return false;
  };
  const kindOf = (el: HTMLElement): ButtonKind | undefined => {
    const texts = [
      el.innerText,
      el.tagName === "INPUT" ? (el as HTMLInputElement).value : "",
      el.getAttribute("aria-label") ?? "",
      el.getAttribute("title") ?? "",
    ].filter((t) => t.trim() !== "");
    const kinds = texts.map((t) => classify(a.rules, t));
    if (kinds.includes("unsafe")) return "unsafe";
    return kinds.find((k) => k !== undefined);
  };
  // Only buttons (or a known CMP's own elements) that neither navigate nor submit a form.
  const clickable = (el: Element, known: boolean): el is HTMLElement => {
    if (!(el instanceof HTMLElement)) return false;
    const tag = el.tagName;
    const isButton =
      tag === "BUTTON" ||
      (tag === "INPUT" && /^(button|submit)$/i.test((el as HTMLInputElement).type)) ||
      el.getAttribute("role") === "button";
    if (!isButton && !known) return false;
    if ((el as HTMLButtonElement).disabled || el.getAttribute("aria-disabled") === "true") return false;
    for (const link of [el.closest("a[href]"), ...Array.from(el.querySelectorAll("a[href]"))]) {
      if (!link) continue;
      const href = (link.getAttribute("href") ?? "").trim();
      if (!(href.startsWith("#") || /^javascript:/i.test(href))) return false;
      const target = link.getAttribute("target");
      if (target && target !== "_self") return false;
    }
    if (tag === "BUTTON" || tag === "INPUT") {
      const b = el as HTMLInputElement;
      if (b.form && (b.type === "submit" || b.type === "image")) {
        const method = (b.getAttribute("formmethod") ?? b.form.getAttribute("method") ?? "").toLowerCase();
        if (method !== "dialog") return false;
      }
    }
    return shown(el);
  };
  const RANK: Record<string, number> = { reject: 0, accept: 1, close: 2 };
  const best = (buttons: Element[], known: boolean): { el: HTMLElement; kind: ButtonKind } | undefined => {
    let pick: { el: HTMLElement; kind: ButtonKind } | undefined;
    for (const b of buttons) {
      if (!clickable(b, known)) continue;
      const kind = kindOf(b);
      if (kind === undefined || kind === "unsafe") continue;
      if (!pick || RANK[kind]! < RANK[pick.kind]!) pick = { el: b, kind };
    }
    return pick;
  };
  const aim = (el: HTMLElement, kind: ButtonKind, container: Element, name: string): PassResult => {
    el.setAttribute(TGT, a.token);
    w[LAST] = el;
    container.setAttribute(DONE, a.token);
    // Until the next pass (or 1.5 s): whatever the click starts, it must not take the page away.
    // Form submissions are stopped at their submit event: cancelling their navigation would leave
    // Playwright waiting for it.
    const nav = (window as unknown as { navigation?: EventTarget }).navigation;
    const onSubmit = (e: Event) => e.preventDefault();
    const onNavigate = (e: Event) => {
      const n = e as Event & { formData?: unknown; sourceElement?: Element | null };
      if (e.cancelable && !n.formData && n.sourceElement?.tagName !== "FORM") e.preventDefault();
    };
    addEventListener("submit", onSubmit, true);
    nav?.addEventListener("navigate", onNavigate);
    const off = () => {
      removeEventListener("submit", onSubmit, true);
      nav?.removeEventListener("navigate", onNavigate);
      clearTimeout(timer);
      if (w[GUARD] === off) w[GUARD] = undefined;
    };
    const timer = setTimeout(off, 1500);
    w[GUARD] = off;
    out.target = { name, kind };
    return out;
  };

  // 1. Known CMPs, by their own markup. Looked up by the id or class of each selector's subject
  // (a long selector list given to querySelectorAll costs milliseconds on a large page).
  const knownRoots = new Map<Element, string>();
  for (const cmp of a.cmps) {
    for (const part of cmp.root.split(",")) {
      const sel = part.trim();
      const subject = /^([#.])([\w-]+)/.exec(sel.split(/[\s>+~]+/).pop() ?? "");
      const pool = !subject
        ? Array.from(doc.querySelectorAll(sel))
        : subject[1] === "#"
          ? [doc.getElementById(subject[2]!)]
          : Array.from(doc.getElementsByClassName(subject[2]!));
      for (const r of pool) {
        if (!r || knownRoots.has(r) || !r.matches(sel) || !shownDeep(r)) continue;
        knownRoots.set(r, cmp.name);
        if (!a.allowClick || isDone(r)) continue;
        const pick =
          best(
            cmp.reject.flatMap((s) => deepAll(r, s)),
            true,
          ) ??
          best(
            cmp.accept.flatMap((s) => deepAll(r, s)),
            true,
          ) ??
          best(deepAll(r, BTN), false);
        if (!pick) continue;
        // A known button's kind comes from its selector; its text only vetoes (unsafe).
        const kind = cmp.reject.some((s) => pick.el.matches(s))
          ? "reject"
          : cmp.accept.some((s) => pick.el.matches(s))
            ? "accept"
            : pick.kind;
        return aim(pick.el, kind, r, cmp.name);
      }
    }
  }

  // In a consent frame the whole document is the dialog.
  if (a.mode === "frame") {
    if (!a.allowClick || isDone(root)) return out;
    const pick = best(deepAll(doc, BTN), false);
    return pick ? aim(pick.el, pick.kind, root, "consent-frame") : out;
  }

  const headerLike = (el: Element): boolean =>
    el.matches("header, nav, [role=banner], [role=navigation]") ||
    !!el.querySelector("nav, [role=navigation]");
  const consentish = (el: Element): boolean => {
    if (knownRoots.has(el) || ownWords.test(attrText(el))) return true;
    if (headerLike(el)) return false;
    if (el.querySelector(strongSel)) return true;
    const text = el.textContent ?? "";
    return text.length < 4000 && textWords.test(text);
  };
  let bodyCount = -1;
  let bodyText = -1;
  // The page's own layout (an SPA root that is fixed and full-size) is never an overlay.
  const appShell = (el: Element): boolean => {
    if (el.querySelector("main, [role=main]")) return true;
    if (bodyCount < 0) {
      bodyCount = body.getElementsByTagName("*").length;
      bodyText = (body.textContent ?? "").length;
    }
    return (
      el.getElementsByTagName("*").length >= 0.5 * bodyCount &&
      (el.textContent ?? "").length >= 0.5 * bodyText
    );
  };
  const hiddenEls: Element[] = [];
  const isHidden = (el: Element): boolean => hiddenEls.some((h) => within(h, el));
  const hide = (el: Element) => {
    el.setAttribute(HID, a.token);
    (el as HTMLElement).style.setProperty("display", "none", "important");
    // A modal dialog keeps the rest of the page inert until it is closed, hidden or not.
    if (el.tagName === "DIALOG" && el.matches(":modal")) (el as HTMLDialogElement).close();
    hiddenEls.push(el);
    out.hidden++;
  };
  const coverage = (r: DOMRect): number => {
    const ix = Math.max(0, Math.min(r.right, vw) - Math.max(r.left, 0));
    const iy = Math.max(0, Math.min(r.bottom, vh) - Math.max(r.top, 0));
    return (ix * iy) / (vw * vh);
  };
  const PROBES = [
    [0.5, 0.5],
    [0.25, 0.25],
    [0.75, 0.75],
    [0.25, 0.75],
    [0.75, 0.25],
  ] as const;
  // Is there page content beneath it? Content beside it (or beside an ancestor) that it is painted
  // over (inert content is not hit-tested, so this looks at boxes), or anything but its ancestors
  // below it at a probe point.
  const coversSomething = (el: Element, r: DOMRect): boolean => {
    let checked = 0;
    for (let x: Element = el; x !== body && x !== root; ) {
      const pn = x.parentNode;
      if (!pn) return false;
      for (const s of Array.from((pn as ParentNode).children)) {
        if (s === x || ++checked > 400) continue;
        if (/^(SCRIPT|STYLE|LINK|META|TEMPLATE|NOSCRIPT)$/.test(s.tagName)) continue;
        const sr = s.getBoundingClientRect();
        const left = Math.max(r.left, sr.left, 0);
        const top = Math.max(r.top, sr.top, 0);
        const ix = Math.min(r.right, sr.right, vw) - left;
        const iy = Math.min(r.bottom, sr.bottom, vh) - top;
        if (ix < 8 || iy < 8 || isHidden(s) || !shown(s)) continue;
        for (const [px, py] of PROBES) {
          const hit = doc.elementFromPoint(left + ix * px, top + iy * py);
          if (hit && (hit === el || within(el, hit) || (hit.shadowRoot && within(hit, el)))) return true;
        }
      }
      x = pn instanceof ShadowRoot ? pn.host : (pn as Element);
    }
    const left = Math.max(r.left, 0);
    const top = Math.max(r.top, 0);
    const ix = Math.min(r.right, vw) - left;
    const iy = Math.min(r.bottom, vh) - top;
    for (const [px, py] of PROBES) {
      const stack = doc.elementsFromPoint(left + ix * px, top + iy * py);
      const i = stack.findIndex((e) => e === el || within(el, e));
      if (i < 0) continue;
      if (stack.slice(i + 1).some((e) => e !== root && e !== body && !within(e, el) && !within(el, e)))
        return true;
    }
    return false;
  };
  const depth = (el: Element): number => {
    let d = 0;
    for (let x = up(el); x; x = up(x)) d++;
    return d;
  };
  const dialogSel = "dialog, [role=dialog], [role=alertdialog], [aria-modal='true']";
  const dialogWords = /modal|popup|pop-up|dialog|newsletter|overlay|lightbox|interstitial|paywall|subscribe/i;

  // 2. What sits on top of the page, found again after each round of hiding (what lay beneath
  // comes up): the fixed, sticky, high-z and open-dialog ancestors of what a grid of points hits
  // (into open shadow roots), of open dialogs and of consent frames.
  for (let round = 0; round < 3; round++) {
    const layered = new Set<Element>();
    const walked = new Set<Element>();
    const collect = (start: Element) => {
      for (let x: Element | null = start; x && !walked.has(x); x = up(x)) {
        walked.add(x);
        if (x !== root && x !== body && layerOf(x)) layered.add(x);
      }
    };
    for (const fx of [0.03, 0.2, 0.35, 0.5, 0.65, 0.8, 0.97]) {
      for (const fy of [0.03, 0.1, 0.25, 0.5, 0.75, 0.9, 0.97]) {
        const x = fx * vw;
        const y = fy * vh;
        let hit = doc.elementFromPoint(x, y);
        for (let depthLeft = 4; hit && depthLeft > 0; depthLeft--) {
          collect(hit);
          const inner: Element | null = hit.shadowRoot ? hit.shadowRoot.elementFromPoint(x, y) : null;
          hit = inner && inner !== hit ? inner : null;
        }
      }
    }
    for (const d of Array.from(doc.getElementsByTagName("dialog"))) if (d.open && shown(d)) collect(d);
    const frames: Element[] = [];
    for (const f of Array.from(doc.getElementsByTagName("iframe"))) {
      let where = "";
      try {
        const u = new URL(f.src, location.href);
        where = `${u.hostname}${u.pathname}`;
      } catch {
        where = "";
      }
      if (isHidden(f) || !frameWords.test(`${f.id} ${f.name} ${where}`) || !shown(f)) continue;
      let onTop = false;
      for (let x: Element | null = f; x && !onTop; x = up(x))
        onTop = x !== root && x !== body && !!layerOf(x);
      if (onTop) {
        frames.push(f);
        collect(f);
      }
    }

    // 3. A generic consent banner: fixed or sticky, consent words, a reject/accept/close button.
    if (a.allowClick) {
      for (const el of layered) {
        if (isDone(el) || isHidden(el) || !shown(el) || !consentish(el)) continue;
        const pick = best(deepAll(el, BTN), false);
        if (pick && !appShell(el)) return aim(pick.el, pick.kind, el, "generic-consent");
      }
    }
    if (!a.framesDone && frames.length > 0) {
      out.frames = frames.map((f) => ({
        name: (f as HTMLIFrameElement).name || f.id,
        src: (f as HTMLIFrameElement).src,
      }));
      return out;
    }

    // 4. Hide what still blocks the page, outermost first.
    const before = out.hidden;
    const candidates = Array.from(new Set([...knownRoots.keys(), ...frames, ...layered]))
      .map((el) => ({ el, d: depth(el) }))
      .sort((x, y) => x.d - y.d)
      .map((c) => c.el);
    let backdropHidden = false;
    for (const el of candidates) {
      if (el === root || el === body || el.hasAttribute(HID) || isHidden(el) || !shownDeep(el)) continue;
      const layer = layerOf(el);
      const r = el.getBoundingClientRect();
      let why = "";
      if (knownRoots.has(el) || frames.includes(el)) why = "consent";
      else if (el.tagName === "DIALOG" && el.matches(":modal")) why = "modal";
      else if (layer && consentish(el)) why = "consent";
      else if (layer && layer !== "sticky" && coverage(r) >= 0.5 && coversSomething(el, r)) why = "cover";
      if (!why || appShell(el)) continue;
      hide(el);
      if (why !== "consent") backdropHidden = true;
    }
    // The dialog of a backdrop just hidden, when it is not inside it.
    if (backdropHidden) {
      for (const el of candidates) {
        if (el.hasAttribute(HID) || isHidden(el) || !shown(el) || layerOf(el) === "sticky") continue;
        const r = el.getBoundingClientRect();
        if (r.top <= 1 && r.height < 0.2 * vh) continue;
        if (!(el.matches(dialogSel) || el.querySelector(dialogSel) || dialogWords.test(attrText(el))))
          continue;
        if (!appShell(el)) hide(el);
      }
    }
    if (out.hidden === before) break;
  }

  // 5. A scroll lock left behind (overflow hidden on html/body, a fixed body), and page content a
  // modal made inert or aria-hidden.
  const acted = a.acted || out.hidden > 0;
  const tall = Math.max(root.scrollHeight, body.scrollHeight) > vh + 20;
  for (const el of [root, body]) {
    const s = style(el);
    if ((s.overflowY === "hidden" || s.overflowY === "clip") && (acted || tall)) {
      el.style.setProperty("overflow-y", "auto", "important");
      el.setAttribute(UNL, a.token);
      out.unlocked++;
    }
  }
  const bs = style(body);
  if (bs.position === "fixed" && (acted || body.scrollHeight > vh + 20)) {
    const top = Number.parseFloat(body.style.top || bs.top) || 0;
    body.style.setProperty("position", "static", "important");
    body.style.setProperty("top", "auto", "important");
    body.setAttribute(UNL, a.token);
    out.unlocked++;
    if (top < 0) window.scrollTo(0, -top);
  }
  if (out.hidden > 0) {
    for (const el of Array.from(
      doc.querySelectorAll("body > [inert], body > [aria-hidden='true'], [data-aria-hidden='true']"),
    )) {
      if (isHidden(el)) continue;
      el.removeAttribute("inert");
      el.removeAttribute("aria-hidden");
      el.setAttribute(UNL, a.token);
      out.unlocked++;
    }
  }
  return out;
}

/*
 * How overlayPass reaches the page. Playwright sends a function's source text; under tsx (and any
 * esbuild build with keepNames) that text calls a module-level `__name` helper for every named
 * inner function, which the page lacks. The wrapper defines it, and hands over classifyWith the same
 * way, so both run exactly as written and as tested.
 */
const PASS_SOURCE = `(a) => { const __name = (f) => f; return (${overlayPass.toString()})(a, (${classifyWith.toString()})); }`;
const REMOVE_GUARD = `(() => { const g = window[Symbol.for("browserfleet.overlays.guard")]; if (typeof g === "function") g(); })()`;

export interface ClearOverlaysOptions {
  /** The whole call's bound, clicks and waits included. */
  timeoutMs?: number;
}

export interface ClearOverlaysResult {
  /** Consent dialogs whose button was clicked: "onetrust", "usercentrics", "generic-consent", "sourcepoint", … */
  dismissed: string[];
  /** Elements set to display:none (banners that stayed, backdrops, modals, consent iframes). */
  hidden: number;
}

export const DEFAULT_OVERLAY_TIMEOUT_MS = 1_500;
const MAX_CLICKS = 3;
/** A click may take this long (Playwright's actionability checks included); then a DOM click. */
const CLICK_MS = 500;
/** After a click, how long to wait for its banner to go. */
const SETTLE_MS = 300;
/** Kept back from clicking for the final pass that hides. */
const RESERVE_MS = 150;

/** Resolves to undefined when `ms` pass first or the promise rejects; never rejects. */
async function bounded<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p.catch(() => undefined),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), Math.max(0, ms));
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function frameLabel(f: PassFrame): string {
  let where = f.name;
  try {
    const u = new URL(f.src);
    where += ` ${u.hostname}${u.pathname}`;
  } catch {
    // no usable src
  }
  if (/sp_message|privacy-mgmt|sourcepoint/i.test(where)) return "sourcepoint";
  if (/truste|trustarc/i.test(where)) return "trustarc";
  return "consent-frame";
}

/**
 * Clear consent dialogs and modal overlays before a capture: click a consent dialog's reject
 * (else accept, else close) button, then hide what still covers the page and restore its scrolling.
 * Bounded by `timeoutMs`; never throws. A page without overlays costs one evaluate.
 */
export async function clearOverlays(
  page: Page,
  opts: ClearOverlaysOptions = {},
): Promise<ClearOverlaysResult> {
  const deadline = performance.now() + (opts.timeoutMs ?? DEFAULT_OVERLAY_TIMEOUT_MS);
  const left = () => deadline - performance.now();
  const result: ClearOverlaysResult = { dismissed: [], hidden: 0 };
  const token = Math.random().toString(36).slice(2, 10);
  const base = {
    rules: BUTTON_RULES,
    cmps: KNOWN_CMPS,
    consentAttr: CONSENT_ATTR,
    consentText: CONSENT_TEXT,
    consentFrame: CONSENT_FRAME,
    token,
  };
  const pass = (frame: Frame, args: Omit<PassArgs, keyof typeof base | "deadline">) =>
    bounded(
      frame.evaluate(
        `(${PASS_SOURCE})(${JSON.stringify({ ...base, ...args, deadline: Date.now() + left() })})`,
      ) as Promise<PassResult>,
      left(),
    );
  const click = async (frame: Frame): Promise<boolean> => {
    const target = frame.locator(`[data-bf-overlay-target="${token}"]`);
    try {
      let clicked = false;
      const ms = Math.min(CLICK_MS, left() - RESERVE_MS);
      if (ms > 50)
        clicked = await target.click({ timeout: ms }).then(
          () => true,
          () => false,
        );
      // A click that landed though its wait ran out (a loaded machine): the button is gone with its banner.
      // One still there is covered by another overlay, or never stable: its own click handler, directly.
      const present =
        clicked || left() < RESERVE_MS + 50 ? undefined : await bounded(target.count(), left() - RESERVE_MS);
      if (present === 0) clicked = true;
      const direct = Math.min(CLICK_MS, left() - RESERVE_MS);
      if (!clicked && present !== undefined && direct > 50)
        clicked =
          (await bounded(
            target.evaluate(
              (el) => {
                (el as HTMLElement).click();
                return true;
              },
              undefined,
              { timeout: direct },
            ),
            direct,
          )) === true;
      const wait = Math.min(SETTLE_MS, left() - RESERVE_MS);
      if (clicked && wait > 10) await target.waitFor({ state: "hidden", timeout: wait }).catch(() => {});
      return clicked;
    } catch {
      return false;
    } finally {
      // Sent now, so it runs before anything the caller does next; the next pass would do it too.
      frame.evaluate(REMOVE_GUARD).catch(() => {});
    }
  };

  try {
    const main = page.mainFrame();
    let clicks = 0;
    let acted = false;
    let framesDone = false;
    for (let round = 0; round < 2 * MAX_CLICKS + 2 && left() > 0; round++) {
      const allowClick = clicks < MAX_CLICKS && left() > CLICK_MS / 2 + RESERVE_MS;
      const r = await pass(main, { mode: "main", allowClick, framesDone, acted });
      if (!r) break;
      result.hidden += r.hidden;
      if (r.target) {
        clicks++;
        if (await click(main)) {
          result.dismissed.push(r.target.name);
          acted = true;
        }
        continue;
      }
      if (r.frames && !framesDone) {
        framesDone = true;
        for (const ref of r.frames) {
          if (clicks >= MAX_CLICKS || left() < CLICK_MS / 2 + RESERVE_MS) break;
          const frame = main
            .childFrames()
            .find((f) => !f.isDetached() && ((ref.name && f.name() === ref.name) || f.url() === ref.src));
          if (!frame) continue;
          const fr = await pass(frame, { mode: "frame", allowClick: true, framesDone: true, acted });
          if (!fr?.target) continue;
          clicks++;
          if (await click(frame)) {
            result.dismissed.push(frameLabel(ref));
            acted = true;
          }
        }
        continue;
      }
      break;
    }
  } catch {
    // A page that closed or navigated: report what was done.
  }
  return result;
}
