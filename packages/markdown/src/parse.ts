import { parseHTML } from "linkedom";

// linkedom only builds a sane html/head/body tree for complete documents: a
// bare fragment ends up with its first element as documentElement and the
// rest dangling beside it, so anything not starting with <html> is wrapped.
const STARTS_WITH_HTML =
  /^\uFEFF?\s*(?:<!--[\s\S]*?-->\s*)*(?:<!doctype[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*<html[\s>]/i;
const LEADING_DOCTYPE = /^\uFEFF?\s*<!doctype[^>]*>/i;

export function parseDocument(html: string): Document {
  const source = STARTS_WITH_HTML.test(html)
    ? html
    : `<!doctype html><html><head></head><body>${html.replace(LEADING_DOCTYPE, "")}</body></html>`;
  return parseHTML(source).document;
}

export function collapseSpaces(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
