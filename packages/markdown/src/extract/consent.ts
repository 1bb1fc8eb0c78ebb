/**
 * Cookie-consent notices found by what they say, for the many whose markup is named like anything
 * else (class names are what patterns.ts reads). A notice is short, speaks of cookies and asks to
 * accept, reject or set preferences; the largest element around such text that stays short goes.
 */

/** A notice is at most this long; an article about cookies is longer and stays. */
const MAX_NOTICE_CHARS = 1_500;
const COOKIE = /\bcookies?\b/i;
const ASKS =
  /\b(?:accept(?: all)?|reject(?: all)?|decline|consent|(?:manage|cookie|your) (?:preferences|settings|choices)|cookie (?:policy|notice|statement)|opt[ -]out)\b/i;

const length = (el: Element) => (el.textContent ?? "").replace(/\s+/g, " ").trim().length;

export function removeConsentNotices(body: Element): void {
  const walker = body.ownerDocument.createTreeWalker(body, 4 /* NodeFilter.SHOW_TEXT */);
  const doomed = new Set<Element>();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!COOKIE.test((node as Text).data)) continue;
    let notice: Element | undefined;
    for (let el = node.parentElement; el && el !== body; el = el.parentElement) {
      if (el.nodeName === "MAIN" || el.nodeName === "ARTICLE" || length(el) > MAX_NOTICE_CHARS) break;
      notice = el;
    }
    if (notice && ASKS.test(notice.textContent ?? "")) doomed.add(notice);
  }
  for (const el of doomed) el.remove();
}
