import { isDisclosureBody } from "./disclosure-body.ts";
import { classOf, readableChars, walkElements } from "./dom.ts";
import { collapseSpaces } from "./parse.ts";
import { removeScreenReaderCopies } from "./screen-reader-copies.ts";

const NEVER_CONTENT = new Set([
  "SCRIPT",
  "STYLE",
  "NOSCRIPT",
  "TEMPLATE",
  "IFRAME",
  "FRAME",
  "FRAMESET",
  "OBJECT",
  "EMBED",
  "APPLET",
  "CANVAS",
  "SVG",
  "VIDEO",
  "AUDIO",
  "LINK",
  "META",
  "BASE",
  "HEAD",
  "TITLE",
]);

const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)/i;
const TINY_STYLE = /(?:^|;)\s*(?:width|height)\s*:\s*[01](?:\.0+)?(?:px)?\s*(?:!important\s*)?(?:;|$)/i;

function isTrackingPixel(img: Element): boolean {
  for (const name of ["width", "height"]) {
    const value = img.getAttribute(name);
    if (value !== null && /^\s*[01](?:\.0+)?\s*(?:px)?\s*$/i.test(value)) return true;
  }
  const style = img.getAttribute("style");
  return style !== null && TINY_STYLE.test(style);
}

/**
 * A card's second picture that the page shows only under the pointer ("hover-img", "fabric_hover",
 * "product-tile-image-secondary", alt "... hover image"): at rest a reader sees the first one only.
 */
const HOVER_IMAGE_CLASS =
  /^(?:hover|[\w-]*[-_]hover|hover[-_]?(?:img|image|pic|photo)|secondary[-_]?(?:img|image)|[\w-]*[-_]image[-_]secondary)$/i;
const HOVER_IMAGE_ALT = /\b(?:hover|rollover|roll-over)\s+(?:image|img|photo|picture)\s*$/i;

function isHoverImage(img: Element): boolean {
  if (HOVER_IMAGE_ALT.test(img.getAttribute("alt") ?? "")) return true;
  return classTokens(img).some((t) => HOVER_IMAGE_CLASS.test(t));
}

const BUTTON_INPUTS = new Set(["submit", "button", "reset"]);

type Verdict = "keep" | "remove" | "hidden" | "label";

/**
 * Checkboxes stay for task lists and button-like inputs become their label.
 * Other inputs render nothing, yet would keep the whitespace around them alive.
 */
function inputVerdict(input: Element): Verdict {
  const type = input.getAttribute("type")?.trim().toLowerCase() ?? "text";
  if (type === "checkbox") {
    // linkedom has no `checked` property; the plugin's task-list rule reads it.
    Object.defineProperty(input, "checked", { value: input.hasAttribute("checked") });
    return "keep";
  }
  return BUTTON_INPUTS.has(type) && input.getAttribute("value")?.trim() ? "label" : "remove";
}

/**
 * Utility classes that hide an element at every screen size (Bootstrap's, Tailwind's with or without
 * a prefix like `tw-`, BEM-style states).
 */
const HIDDEN_CLASS = /^(?:[a-z]{2,5}-)?(?:hide|hidden|d-none|is-hidden|u-hidden|display-none|invisible)$/;
/** A class that shows it again from some screen size up ("d-md-block", "md:flex", "visible-lg"). */
const SHOWN_AT_SIZE = /^(?:d-(?:sm|md|lg|xl|xxl)-(?!none)|(?:sm|md|lg|xl|2xl):(?![\w-]*hidden)|visible-)/;
/**
 * Classes that hide an element on a desktop screen, the width a reader and our browser use: the phone
 * layout's copy of the title or price ("md:hidden", "d-lg-none", "hidden-md", "hide-for-large",
 * "mobile-only"), which the page prints again for wide screens.
 */
const HIDDEN_ON_DESKTOP =
  /^(?:(?:md|lg):(?:[a-z]{2,5}-)?hidden|d-(?:md|lg)-none|hidden-(?:md|lg|desktop)|hide-(?:for-(?:medium|large)(?:-up)?|desktop|on-desktop)|desktop-hidden|mobile-only|only-mobile|visible-(?:xs|sm))$/;
/** ...unless another shows it again on desktop ("md:hidden xl:block" is a wide-screen variant). */
const SHOWN_ON_DESKTOP = /^(?:(?:lg|xl):(?![\w-]*hidden)|d-(?:lg|xl)-(?!none)|visible-(?:md|lg))/;

const NO_TOKENS: readonly string[] = [];
/** Most elements have no class: asked of every element in every pass, that case splits nothing. */
const classTokens = (el: Element): readonly string[] => {
  const names = classOf(el);
  return names ? names.trim().split(/\s+/) : NO_TOKENS;
};

/** Every class that HIDDEN_CLASS or HIDDEN_ON_DESKTOP matches holds one of these: most class lists hold none. */
const MAY_HIDE = /hid|none|mobile|visible/;

function hiddenOnDesktop(el: Element): boolean {
  if (!MAY_HIDE.test(classOf(el))) return false;
  const tokens = classTokens(el);
  return tokens.some((t) => HIDDEN_ON_DESKTOP.test(t)) && !tokens.some((t) => SHOWN_ON_DESKTOP.test(t));
}

function hiddenByClass(el: Element): boolean {
  if (!MAY_HIDE.test(classOf(el))) return false;
  const tokens = classTokens(el);
  if (!tokens.some((t) => HIDDEN_CLASS.test(t)) || tokens.some((t) => SHOWN_AT_SIZE.test(t))) return false;
  // One of a set of alternatives where another is shown (the other tabs' lists, the swatches past
  // the first few) is content one click away, like a tab panel.
  const own = tokens.filter((t) => !HIDDEN_CLASS.test(t));
  if (own.length === 0) return true;
  for (const sib of el.parentElement?.children ?? []) {
    if (sib === el) continue;
    const theirs = classTokens(sib);
    if (!theirs.some((t) => HIDDEN_CLASS.test(t)) && own.every((t) => theirs.includes(t))) return false;
  }
  return true;
}

/**
 * A part only phones show goes when the page prints its words again for wide screens (the title and
 * price above the gallery on a phone, beside it on a desktop). One with words of its own stays: it
 * may be the only copy a static page holds.
 */
function removePhoneCopies(parts: Element[], body: Element): void {
  if (parts.length === 0) return;
  const pageText = collapseSpaces(body.textContent ?? "");
  for (const el of parts) {
    if (!body.contains(el)) continue;
    const text = collapseSpaces(el.textContent ?? "");
    const first = pageText.indexOf(text);
    if (text === "" || (first >= 0 && pageText.indexOf(text, first + 1) >= 0)) el.remove();
  }
}

/** A part named to stay in view while the page scrolls: a product's sticky bar, a pinned header. */
const STICKY_NAME = /(?:^|[\s_-])sticky(?:$|[\s_-])/i;
/** A sticky part goes when at least this share of its text is printed elsewhere on the page. */
const STICKY_REPEATED_SHARE = 0.8;

/**
 * A sticky bar that follows the reader repeats what the page shows in place (the product's name, its
 * price, the add-to-cart button): printed once, where the page has it. Sticky parts with words of their
 * own (a pinned table of contents, a sticky column of the article) stay.
 */
function removeStickyCopies(parts: Element[], body: Element): void {
  if (parts.length === 0) return;
  const pageText = collapseSpaces(body.textContent ?? "");
  for (const el of parts) {
    // An in-page menu of the sections below repeats their headings by design: navigation, not a copy.
    if (!body.contains(el) || el.nodeName === "NAV" || /nav/i.test(classOf(el))) continue;
    let all = 0;
    let repeated = 0;
    const walker = el.ownerDocument.createTreeWalker(el, 4 /* NodeFilter.SHOW_TEXT */);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = collapseSpaces((node as Text).data);
      if (text.length < 2) continue;
      all += text.length;
      const first = pageText.indexOf(text);
      if (first >= 0 && pageText.indexOf(text, first + 1) >= 0) repeated += text.length;
    }
    if (all > 0 && repeated >= STICKY_REPEATED_SHARE * all) el.remove();
  }
}

function verdict(el: Element): Verdict {
  const tag = el.nodeName;
  if (NEVER_CONTENT.has(tag)) return "remove";
  // A tab panel not shown yet (the code sample in another language, the other plan) is content one
  // click away, like hidden=until-found.
  if (el.getAttribute("role") === "tabpanel") return "keep";
  const hidden = el.getAttribute("hidden");
  // hidden="until-found" is collapsed-but-searchable content (accordions), i.e. real text.
  if (hidden !== null && hidden.toLowerCase() !== "until-found") return "hidden";
  if (el.getAttribute("aria-hidden")?.trim().toLowerCase() === "true") return "hidden";
  const style = el.getAttribute("style");
  if (style && HIDDEN_STYLE.test(style)) return "hidden";
  if (hiddenByClass(el)) return "hidden";
  if (tag === "IMG") return isTrackingPixel(el) || isHoverImage(el) ? "remove" : "keep";
  if (tag === "INPUT") return inputVerdict(el);
  if (tag === "DIALOG" && !el.hasAttribute("open")) return "remove";
  return "keep";
}

const PANEL_NAME =
  /(?:^|[\s_-])(?:collapse|collapsible|accordion|accordion-?(?:body|content|panel|item-?content)|faq-?answer|answer|expandable|expander-?content|disclosure|acd-a-content|(?:read|show)-?more-?(?:content|text|body))(?:$|[\s_-]|\d)/i;
const SLIDE_NAME =
  /(?:^|[\s_-])(?:carousel-?(?:cell|item|slide)|(?:swiper-|slick-|splide-|glide-)?slide)(?:$|[\s_-]|\d)/i;

/**
 * A panel a click or a swipe shows: named by a disclosure button's aria-controls, or by its name as an
 * accordion's body, an FAQ answer, a collapsible, or a carousel's slide.
 */
function isCollapsedPanel(el: Element, controlled: Set<string>, openers: Map<string, string>): boolean {
  const id = el.getAttribute("id");
  if (id && controlled.has(id)) return true;
  // WAI-ARIA's accordion without aria-expanded: the heading's button controls the panel, and the panel
  // is labelled by that button.
  const by = el.getAttribute("aria-labelledby")?.trim();
  if (id && by && !by.includes(" ") && openers.get(id)?.includes(` ${by} `)) return true;
  // A "read more" expander's rest, waiting for its click (data-expanded="false").
  if (el.getAttribute("data-expanded") === "false") return true;
  const names = classOf(el).replace(/__/g, "-");
  if (names && (PANEL_NAME.test(names) || SLIDE_NAME.test(names))) return true;
  return isDisclosureBody(el);
}

/** What the removed <head> (or stray elements) said about the page. */
export interface PageMeta {
  /** First non-empty <title> outside inline SVG, whitespace collapsed. */
  title?: string;
  /** href of the first <base href>, as written. */
  baseHref?: string;
}

/**
 * A hidden element holding at least this share of the page's text is hidden only until the page's
 * scripts run (a body kept invisible until fonts load, main content under aria-hidden while a modal
 * was open when the page was saved): a person sees it, so it stays.
 */
const HIDDEN_BUT_SHOWN_SHARE = 0.5;
/** When hiding leaves less than this share of the page's text in view, the page is hidden until its scripts run. */
const HIDDEN_PAGE_LEFT = 0.1;
/** Below this many visible characters, a page whose <noscript> says more is read from its <noscript>. */
const NOSCRIPT_FALLBACK_CHARS = 300;

interface Found {
  removed: Element[];
  hidden: Element[];
  labelled: Element[];
  noscripts: Element[];
  /** React streaming: hidden segments (id S:n) and the placeholders they replace (template id B:n or P:n). */
  segments: Element[];
  slots: Map<string, Element>;
  /** The placeholder each segment goes to, as the page's own $RC/$RS calls say. */
  moves: Map<string, string>;
  /** Ids of panels a disclosure button opens (aria-expanded with aria-controls): content one click away. */
  controlled: Set<string>;
  /**
   * Ids of the elements naming each panel in their aria-controls without aria-expanded, space-framed: an
   * accordion's heading button whose panel is labelled by it (see isCollapsedPanel).
   */
  openers: Map<string, string>;
  /** Parts a desktop screen does not show (see HIDDEN_ON_DESKTOP), in document order. */
  phoneOnly: Element[];
  sticky: Element[];
}

function survey(root: Element, meta: PageMeta): Found {
  const found: Found = {
    removed: [],
    hidden: [],
    labelled: [],
    noscripts: [],
    segments: [],
    slots: new Map(),
    moves: new Map(),
    controlled: new Set(),
    openers: new Map(),
    phoneOnly: [],
    sticky: [],
  };
  walkElements(root, (el) => {
    // SVG subtrees are never entered, so an icon's <title> cannot win.
    if (el.nodeName === "TITLE" && meta.title === undefined) {
      meta.title = collapseSpaces(el.textContent ?? "") || undefined;
    } else if (el.nodeName === "BASE" && meta.baseHref === undefined) {
      meta.baseHref = el.getAttribute("href")?.trim() || undefined;
    }
    if (el.nodeName === "NOSCRIPT") {
      found.noscripts.push(el);
      return false;
    }
    if (el.nodeName === "SCRIPT") readStreamingMoves(el.textContent ?? "", found.moves);
    const id = el.getAttribute("id");
    if (id && (id.startsWith("B:") || id.startsWith("P:")) && el.nodeName === "TEMPLATE")
      found.slots.set(id, el);
    if (id?.startsWith("S:") && el.nodeName === "DIV" && el.hasAttribute("hidden")) {
      found.segments.push(el);
      return true;
    }
    const controls = el.getAttribute("aria-controls");
    if (controls) {
      const expands = el.hasAttribute("aria-expanded");
      const id = el.getAttribute("id");
      for (const controlled of controls.split(/\s+/)) {
        if (!controlled) continue;
        if (expands) found.controlled.add(controlled);
        else if (id) found.openers.set(controlled, `${found.openers.get(controlled) ?? ""} ${id} `);
      }
    }
    const v = verdict(el);
    if (v === "remove") found.removed.push(el);
    else if (v === "hidden") found.hidden.push(el);
    else if (hiddenOnDesktop(el)) found.phoneOnly.push(el);
    else if (STICKY_NAME.test(`${el.nodeName} ${classOf(el)}`)) found.sticky.push(el);
    else if (v === "label") found.labelled.push(el);
    // Hidden elements are entered: one that stays needs its own insides cleaned.
    return v !== "remove" || el.nodeName === "HEAD";
  });
  return found;
}

/** React's streaming calls: $RC("B:n","S:m") completes a boundary, $RS("S:m","P:n") fills a placeholder. */
const STREAMING_MOVE = /\$R([CS])\(\s*"([BSP]:[^"]+)"\s*,\s*"([BSP]:[^"]+)"/g;

function readStreamingMoves(script: string, moves: Map<string, string>): void {
  if (!script.includes("$R")) return;
  for (const [, kind, first, second] of script.matchAll(STREAMING_MOVE)) {
    if (kind === "C" && first?.startsWith("B:") && second?.startsWith("S:")) moves.set(second, first);
    if (kind === "S" && first?.startsWith("S:") && second?.startsWith("P:")) moves.set(first, second);
  }
}

/**
 * Streamed server rendering (React 18, so Next.js and most of its peers) sends late parts of the page
 * as hidden <div id="S:n"> after the shell, and a script moves each where its placeholder stands: a
 * <template id="B:n"> of a boundary, whose loading fallback goes ($RC), or a <template id="P:n"> ($RS).
 * Done here, for pages read without running their scripts; without the scripts' calls, S:n goes to B:n.
 */
function placeStreamedSegments(found: Found): void {
  for (const segment of found.segments) {
    segment.removeAttribute("hidden");
    const id = segment.getAttribute("id") ?? "";
    const slot = found.slots.get(found.moves.get(id) ?? `B:${id.slice(2)}`);
    if (!slot?.parentNode) continue;
    // A boundary's fallback runs from the slot to the boundary's closing <!--/$--> comment.
    if (slot.getAttribute("id")?.startsWith("B:"))
      for (let next = slot.nextSibling; next && !(next.nodeType === 8 && (next as Comment).data === "/$"); ) {
        const after: ChildNode | null = next.nextSibling;
        next.remove();
        next = after;
      }
    slot.replaceWith(...Array.from(segment.childNodes));
    segment.remove();
  }
}

/**
 * Strips elements that never carry readable content, plus anything marked
 * hidden, and picks up the title and <base> on the way (they go too).
 */
export function removeNonContent(root: Element): PageMeta {
  const meta: PageMeta = {};
  strip(root, meta, true);
  removeScreenReaderCopies(root);
  return meta;
}

function strip(root: Element, meta: PageMeta, outer: boolean): void {
  const found = survey(root, meta);
  placeStreamedSegments(found);
  for (const el of found.removed) el.remove();
  // Those in <head> went with it.
  found.noscripts = found.noscripts.filter((el) => root.contains(el));
  const body = root.querySelector("body") ?? root;
  const noscriptChars = () => found.noscripts.reduce((n, el) => n + readableChars(el), 0);
  const pageChars = readableChars(body) - noscriptChars();
  // A collapsed panel (an accordion's answer, a carousel's next slide) is content one click away, like
  // hidden=until-found.
  found.hidden = found.hidden.filter((el) => !isCollapsedPanel(el, found.controlled, found.openers));
  // The outermost hidden elements, each with its text measured once.
  const outermost = new Map<Element, number>();
  let last: Element | undefined;
  for (const el of found.hidden) {
    // Document order: an element inside a hidden one comes right after it.
    if (last?.contains(el)) continue;
    outermost.set(el, readableChars(el));
    last = el;
  }
  // A page that hides nearly everything shows it by script: its largest hidden part is what a person sees.
  let shown: Element | undefined;
  let all = 0;
  for (const chars of outermost.values()) all += chars;
  if (pageChars > 0 && pageChars - all < HIDDEN_PAGE_LEFT * pageChars) {
    let most = 0;
    for (const [el, chars] of outermost) if (chars > most) [shown, most] = [el, chars];
  }
  let hiddenChars = 0;
  for (const el of found.hidden) {
    // Gone already with a hidden ancestor.
    if (el === shown || !root.contains(el)) continue;
    const chars = outermost.get(el) ?? readableChars(el);
    if (pageChars > 0 && chars >= HIDDEN_BUT_SHOWN_SHARE * pageChars) continue;
    hiddenChars += chars;
    el.remove();
  }
  removePhoneCopies(
    found.phoneOnly.filter((el) => root.contains(el)),
    body,
  );
  removeStickyCopies(found.sticky, body);
  found.noscripts = found.noscripts.filter((el) => root.contains(el));
  for (const input of found.labelled) {
    input.replaceWith(root.ownerDocument.createTextNode(input.getAttribute("value")?.trim() ?? ""));
  }
  // A page built by script whose <noscript> holds the content (forum engines serve their crawler view
  // there) is what a reader without those scripts sees.
  const inNoscript = noscriptChars();
  const visible = pageChars - hiddenChars;
  const useNoscript = outer && visible < NOSCRIPT_FALLBACK_CHARS && inNoscript > 2 * visible;
  for (const el of found.noscripts) {
    if (!useNoscript) {
      el.remove();
      continue;
    }
    const holder = root.ownerDocument.createElement("div");
    holder.append(...Array.from(el.childNodes));
    el.replaceWith(holder);
    strip(holder, meta, false);
  }
}

/**
 * Merges adjacent text nodes (the parser splits text at entities, and removed
 * elements leave neighbours behind): turndown escapes per text node, so a
 * fragment starting with "-" or ">" would be escaped mid-sentence. Also turns
 * non-breaking spaces into plain ones so whitespace collapsing applies to them.
 */
export function normalizeText(root: Element): void {
  root.normalize();
  const walker = root.ownerDocument.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node as Text;
    if (text.data.includes("\u00a0")) text.data = text.data.replace(/\u00a0/g, " ");
  }
}

/** <br> inside <pre> is a line break of the code, which textContent would otherwise lose. */
export function preLineBreaks(root: Element): void {
  const breaks: Element[] = [];
  walkElements(root, (el) => {
    if (el.nodeName !== "PRE") return true;
    breaks.push(...Array.from(el.querySelectorAll("br")));
    return false;
  });
  for (const br of breaks) br.replaceWith(root.ownerDocument.createTextNode("\n"));
}
