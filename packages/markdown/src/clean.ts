import { walkElements } from "./dom.ts";
import { collapseSpaces } from "./parse.ts";

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

const BUTTON_INPUTS = new Set(["submit", "button", "reset"]);

type Verdict = "keep" | "remove" | "label";

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

function verdict(el: Element): Verdict {
  const tag = el.nodeName.toUpperCase();
  if (NEVER_CONTENT.has(tag)) return "remove";
  const hidden = el.getAttribute("hidden");
  // hidden="until-found" is collapsed-but-searchable content (accordions), i.e. real text.
  if (hidden !== null && hidden.toLowerCase() !== "until-found") return "remove";
  if (el.getAttribute("aria-hidden")?.trim().toLowerCase() === "true") return "remove";
  const style = el.getAttribute("style");
  if (style && HIDDEN_STYLE.test(style)) return "remove";
  if (tag === "IMG") return isTrackingPixel(el) ? "remove" : "keep";
  if (tag === "INPUT") return inputVerdict(el);
  if (tag === "DIALOG" && !el.hasAttribute("open")) return "remove";
  return "keep";
}

/** What the removed <head> (or stray elements) said about the page. */
export interface PageMeta {
  /** First non-empty <title> outside inline SVG, whitespace collapsed. */
  title?: string;
  /** href of the first <base href>, as written. */
  baseHref?: string;
}

/**
 * Strips elements that never carry readable content, plus anything marked
 * hidden, and picks up the title and <base> on the way (they go too).
 */
export function removeNonContent(root: Element): PageMeta {
  const meta: PageMeta = {};
  const removed: Element[] = [];
  const labelled: Element[] = [];
  walkElements(root, (el) => {
    // SVG subtrees are never entered, so an icon's <title> cannot win.
    if (el.nodeName === "TITLE" && meta.title === undefined) {
      meta.title = collapseSpaces(el.textContent ?? "") || undefined;
    } else if (el.nodeName === "BASE" && meta.baseHref === undefined) {
      meta.baseHref = el.getAttribute("href")?.trim() || undefined;
    }
    const v = verdict(el);
    if (v === "remove") removed.push(el);
    else if (v === "label") labelled.push(el);
    return v !== "remove" || el.nodeName === "HEAD";
  });
  for (const el of removed) el.remove();
  for (const input of labelled) {
    input.replaceWith(root.ownerDocument.createTextNode(input.getAttribute("value")?.trim() ?? ""));
  }
  return meta;
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
