import { classOf, readableChars } from "./dom.ts";
import { looksNeverContent } from "./extract/patterns.ts";

/** A toggle's label: a question or a title, not a paragraph. */
const TOGGLE_MAX_CHARS = 200;
/** A panel's prose: an answer says at least a sentence. */
const BODY_MIN_CHARS = 40;
/** A panel mostly of links is a menu's drop-down, not an answer. */
const BODY_MAX_LINK_SHARE = 0.5;
const TOGGLE_NAME = /(?:^|[\s_-])(?:toggle|trigger|question|summary|head(?:er|ing)?|title)(?:$|[\s_-]|\d)/i;
const HEADING = /^H[1-6]$/;
/** Hints and menus that open over the page: a tooltip's "log in to rate" is not an answer. */
const POP_UP = /tool-?tip|popover|pop-?up|drop-?down|flyout|tippy|hover-?card|mega-?menu/i;
/** What an answer is written in; a hidden <textarea> or <template> holds markup for scripts. */
const PANEL_TAGS = new Set(["DIV", "SECTION", "P", "DD", "UL", "OL", "LI", "ARTICLE", "SPAN", "TABLE"]);

function looksLikeToggle(el: Element): boolean {
  const text = (el.textContent ?? "").trim();
  if (!text || text.length > TOGGLE_MAX_CHARS) return false;
  // A link that goes somewhere is a menu entry; a drop-down under it is its submenu.
  if (el.nodeName === "A" && el.hasAttribute("href")) return false;
  if (el.nodeName === "BUTTON" || HEADING.test(el.nodeName)) return true;
  if (el.hasAttribute("aria-expanded") || el.hasAttribute("onclick") || el.getAttribute("role") === "button")
    return true;
  // styled-components print the style props they were given as attributes (cursor="pointer").
  if (el.getAttribute("cursor") === "pointer" || /cursor\s*:\s*pointer/i.test(el.getAttribute("style") ?? ""))
    return true;
  if (TOGGLE_NAME.test(classOf(el).replace(/__/g, "-"))) return true;
  return text.endsWith("?") || el.querySelector("h1,h2,h3,h4,h5,h6,button,[aria-expanded]") !== null;
}

function linkChars(el: Element): number {
  let n = 0;
  for (const a of el.querySelectorAll("a")) n += readableChars(a);
  return n;
}

/**
 * The body of an accordion item without names or aria wiring: a hidden last part right after a short
 * toggle (a question, a title, something clickable), holding prose rather than links or a form. Its
 * text is one click away, like an FAQ's answer.
 */
export function isDisclosureBody(el: Element): boolean {
  const toggle = el.previousElementSibling;
  if (!toggle || el.nextElementSibling || !PANEL_TAGS.has(el.nodeName) || !looksLikeToggle(toggle))
    return false;
  // A modal's template or a pop-up kept for later is no answer, whatever heads it.
  if (looksNeverContent(el) || looksNeverContent(toggle) || POP_UP.test(classOf(el))) return false;
  if (el.querySelector("form,input,select,textarea,nav")) return false;
  const chars = readableChars(el);
  if (chars < BODY_MIN_CHARS || !/[.!?:]/.test(el.textContent ?? "")) return false;
  return linkChars(el) < BODY_MAX_LINK_SHARE * chars;
}
