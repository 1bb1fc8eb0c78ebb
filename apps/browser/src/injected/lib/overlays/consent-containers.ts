/*
 * Finding consent dialogs: a known platform's roots by their markup, any other element by the consent
 * words in its id, class, aria-label or text.
 */
import { KNOWN_CMPS, type KnownCmp } from "./consent-platforms.ts";
import { CONSENT_ATTR, CONSENT_TEXT } from "./consent-rules.ts";
import type { PageView } from "./page-view.ts";

/** An element's own id, class and aria-label, the words that name what it is. */
export const attrText = (el: Element): string =>
  `${el.id} ${el.getAttribute("class") ?? ""} ${el.getAttribute("aria-label") ?? ""}`;

/**
 * Each shown root of a known CMP, in KNOWN_CMPS order, added to `known` (root → platform name) as it
 * is found. Looked up by the id or class of each selector's subject (a long selector list given to
 * querySelectorAll costs milliseconds on a large page).
 */
export function* knownConsentRoots(
  view: PageView,
  known: Map<Element, string>,
): Generator<[Element, KnownCmp], void, undefined> {
  const doc = view.doc;
  for (const cmp of KNOWN_CMPS) {
    for (const part of cmp.root.split(",")) {
      const sel = part.trim();
      const subject = /^([#.])([\w-]+)/.exec(sel.split(/[\s>+~]+/).pop() ?? "");
      const pool = !subject
        ? Array.from(doc.querySelectorAll(sel))
        : subject[1] === "#"
          ? [doc.getElementById(subject[2]!)]
          : Array.from(doc.getElementsByClassName(subject[2]!));
      for (const r of pool) {
        if (!r || known.has(r) || !r.matches(sel) || !view.shownDeep(r)) continue;
        known.set(r, cmp.name);
        yield [r, cmp];
      }
    }
  }
}

const OWN_WORDS = new RegExp(CONSENT_ATTR, "i");
const TEXT_WORDS = new RegExp(CONSENT_TEXT, "i");
/** Descendants whose id or class says cookie, consent or gdpr. */
const STRONG = ["cookie", "consent", "gdpr"]
  .flatMap((x) => [`[id*="${x}" i]`, `[class*="${x}" i]`])
  .join(",");

const headerLike = (el: Element): boolean =>
  el.matches("header, nav, [role=banner], [role=navigation]") || !!el.querySelector("nav, [role=navigation]");

/**
 * A test of whether an element is a consent dialog: a known platform's root, consent words in its own
 * attributes, or (unless it is the site's header or navigation) a descendant named cookie, consent or
 * gdpr, or consent words in its text when that is short.
 */
export function consentTest(known: Map<Element, string>): (el: Element) => boolean {
  return (el) => {
    if (known.has(el) || OWN_WORDS.test(attrText(el))) return true;
    if (headerLike(el)) return false;
    if (el.querySelector(STRONG)) return true;
    const text = el.textContent ?? "";
    return text.length < 4000 && TEXT_WORDS.test(text);
  };
}
