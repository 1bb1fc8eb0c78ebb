/**
 * Cookie-consent notices found by what they say, for the many whose markup is named like anything
 * else (class names are what patterns.ts reads). A notice is short, speaks of cookies (or says that
 * using the site is consenting to its privacy policy) and asks to accept, reject or set preferences;
 * the largest element around such text that stays short goes.
 */

import { classOf, walkElements } from "../dom.ts";

/** A notice is at most this long; an article about cookies is longer and stays. */
const MAX_NOTICE_CHARS = 1_500;
/** A preference center (one toggle per kind of cookie, each explained) is longer, and says so. */
const MAX_CENTER_CHARS = 6_000;
const CENTER = /\bstrictly necessary\b/i;
const COOKIES = /\bcookies?\b/gi;
/** A preference center names cookies again and again, one kind after another. */
const CENTER_MENTIONS = 4;
const COOKIE = /\bcookies?\b/i;
/** A notice that never says "cookie": "By continuing to use this website you consent to our Privacy Policy". */
const CONSENT_STATEMENT =
  /\bby\s+(?:continuing\s+to\s+(?:use|browse)|using|browsing)\b[^.]{0,60}\byou\s+(?:consent|agree|accept)\b/i;
/** Such a notice is a sentence or two and its button: an article's paragraph about terms is longer. */
const MAX_STATEMENT_CHARS = 600;
const ASKS =
  /\b(?:accept(?: all)?|reject(?: all)?|decline|consent|(?:manage|cookie|your) (?:preferences|settings|choices)|cookie (?:policy|notice|statement)|opt[ -]out)\b/i;

export function removeConsentNotices(body: Element): void {
  const walker = body.ownerDocument.createTreeWalker(body, 4 /* NodeFilter.SHOW_TEXT */);
  const doomed = new Set<Element>();
  // Text lengths of the ancestors climbed, each measured once however many mentions sit under it.
  const lengths = new Map<Element, number>();
  const length = (el: Element) => {
    let n = lengths.get(el);
    if (n === undefined) {
      n = (el.textContent ?? "").replace(/\s+/g, " ").trim().length;
      lengths.set(el, n);
    }
    return n;
  };
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = (node as Text).data;
    const cookie = COOKIE.test(text);
    if (!cookie && !CONSENT_STATEMENT.test(text)) continue;
    const center = cookie && CENTER.test(text);
    const limit = center ? MAX_CENTER_CHARS : cookie ? MAX_NOTICE_CHARS : MAX_STATEMENT_CHARS;
    let notice: Element | undefined;
    for (let el = node.parentElement; el && el !== body; el = el.parentElement) {
      if (el.nodeName === "MAIN" || el.nodeName === "ARTICLE" || length(el) > limit) break;
      notice = el;
    }
    if (!notice) continue;
    const said = notice.textContent ?? "";
    if (center ? (said.match(COOKIES)?.length ?? 0) >= CENTER_MENTIONS : ASKS.test(said)) doomed.add(notice);
  }
  for (const el of doomed) el.remove();
  removeConsentManagers(body);
}

/** The names consent-management platforms give their whole apparatus (banner, preference center, vendor list). */
const CONSENT_MANAGER =
  /(?:^|[\s_-])(?:onetrust|ot-sdk|cybot-?cookiebot|cookiebot|usercentrics|didomi|truste|qc-?cmp\d*|cmpbox|cookie-?consent|consent-?(?:banner|manager|sdk|modal|dialog|popup))(?:$|[\s_-])/i;
/** ...and what it says: cookies, again and again. */
const MANAGER_MENTIONS = 3;
/** A wrapper holding more than this share of the page's text is the page (a consent wall), whatever its name. */
const MAX_MANAGER_SHARE = 0.8;

/**
 * A consent platform's preference center, vendor list and banner under the platform's own name go
 * whole, however long their explanations: the text-based rule above stops at a notice's length.
 */
function removeConsentManagers(body: Element): void {
  let pageChars: number | undefined;
  const doomed: Element[] = [];
  walkElements(body, (el) => {
    if (!CONSENT_MANAGER.test(`${el.getAttribute("id") ?? ""} ${classOf(el)}`)) return;
    const text = el.textContent ?? "";
    if ((text.match(COOKIES)?.length ?? 0) < MANAGER_MENTIONS) return;
    pageChars ??= (body.textContent ?? "").replace(/\s+/g, "").length;
    if (text.replace(/\s+/g, "").length > MAX_MANAGER_SHARE * pageChars) return;
    doomed.push(el);
    return false;
  });
  for (const el of doomed) el.remove();
}
