/**
 * The cheap conversion used when the real one runs out of time: visible text only, paragraphs kept
 * apart, no DOM. One linear scan over the HTML with indexOf, so its cost is bounded by the input's size
 * whatever the markup looks like.
 */

/** Elements whose whole content is skipped (up to their end tag). */
const SKIPPED = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "math",
  "head",
  "title",
  "iframe",
  "object",
  "textarea",
  "select",
]);
/** Tags that end a line or a paragraph. */
const BREAKS = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "br",
  "dd",
  "details",
  "div",
  "dl",
  "dt",
  "figcaption",
  "figure",
  "footer",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hr",
  "li",
  "main",
  "nav",
  "ol",
  "p",
  "pre",
  "section",
  "summary",
  "table",
  "td",
  "th",
  "tr",
  "ul",
]);

const NAMED_ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  ndash: "–",
  mdash: "—",
  hellip: "…",
  laquo: "«",
  raquo: "»",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  copy: "©",
  reg: "®",
  trade: "™",
  euro: "€",
  pound: "£",
  middot: "·",
  bull: "•",
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z][a-z0-9]{1,31});/gi, (whole, ref: string) => {
    if (ref[0] === "#") {
      const code =
        ref[1] === "x" || ref[1] === "X" ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

const closers = new Map<string, RegExp>();
function closingTag(name: string): RegExp {
  let re = closers.get(name);
  if (!re) {
    re = new RegExp(`</${name}`, "gi");
    closers.set(name, re);
  }
  return re;
}

const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13) || c === 160;

/**
 * Runs of whitespace to one space. A loop rather than a regex: on megabytes of text with a space every
 * few characters, a global regex replace costs a match object per space.
 */
function collapseWhitespace(text: string): string {
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!isSpace(c)) continue;
    let j = i + 1;
    while (j < text.length && isSpace(text.charCodeAt(j))) j++;
    if (j - i > 1 || c !== 32) {
      parts.push(text.slice(start, i), " ");
      start = j;
    }
    i = j - 1;
  }
  parts.push(text.slice(start));
  return parts.join("");
}

/** Marks a block boundary in the collected text; never in HTML text (the parser would drop it). */
const BREAK = "\u0000";

const isNameChar = (c: number) =>
  (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 45;

/** The lower-cased tag name starting at `from`, or "" when none does (no regex: it runs per tag). */
function tagName(html: string, from: number, end: number): string {
  const first = html.charCodeAt(from);
  if (!((first >= 97 && first <= 122) || (first >= 65 && first <= 90))) return "";
  let to = from + 1;
  while (to < end && to - from < 32 && isNameChar(html.charCodeAt(to))) to++;
  return html.slice(from, to).toLowerCase();
}

interface Scan {
  i: number;
  out: string[];
}

/** Scans `html` from `state.i` up to about `until`, collecting text and BREAK marks into `state.out`. */
function scan(html: string, state: Scan, until: number): void {
  const n = html.length;
  const { out } = state;
  let i = state.i;
  while (i < n && i < until) {
    const lt = html.indexOf("<", i);
    const textEnd = lt === -1 ? n : lt;
    if (textEnd > i) {
      let text = html.slice(i, textEnd);
      if (text.includes("&")) text = decodeEntities(text);
      // A NUL of the page's own would read as a break.
      out.push(collapseWhitespace(text.includes(BREAK) ? text.replaceAll(BREAK, "") : text));
    }
    if (lt === -1) {
      i = n;
      break;
    }
    if (html.startsWith("<!--", lt)) {
      const end = html.indexOf("-->", lt + 4);
      i = end === -1 ? n : end + 3;
      continue;
    }
    const gt = html.indexOf(">", lt + 1);
    if (gt === -1) {
      i = n;
      break;
    }
    i = gt + 1;
    const closing = html.charCodeAt(lt + 1) === 47; // "/"
    const name = tagName(html, closing ? lt + 2 : lt + 1, gt);
    if (!name) continue;
    if (!closing && SKIPPED.has(name) && html.charCodeAt(gt - 1) !== 47) {
      const close = closingTag(name);
      close.lastIndex = i;
      const end = close.exec(html);
      i = end ? end.index : n;
      continue;
    }
    if (BREAKS.has(name)) out.push(BREAK);
  }
  state.i = i;
}

function finish(out: string[]): string {
  const paragraphs = out
    .join("")
    .split(BREAK)
    .map((line) => collapseWhitespace(line).trim())
    .filter(Boolean);
  return paragraphs.length > 0 ? `${paragraphs.join("\n\n")}\n` : "";
}

/** The visible text of `html`, one paragraph per block, blank lines between them. */
export function htmlToText(html: string): string {
  const state: Scan = { i: 0, out: [] };
  scan(html, state, html.length);
  return finish(state.out);
}

/** Characters of HTML scanned between two yields to the event loop. */
const SLICE = 128 * 1024;

/** htmlToText in slices, yielding to the event loop between them: a large page never blocks it. */
export async function htmlToTextAsync(html: string): Promise<string> {
  const state: Scan = { i: 0, out: [] };
  while (state.i < html.length) {
    scan(html, state, state.i + SLICE);
    if (state.i < html.length) await new Promise((resolve) => setImmediate(resolve));
  }
  return finish(state.out);
}
