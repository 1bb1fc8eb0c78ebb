/*
 * Where a text may be cut into parts, coarsest first. Each function returns, per level, the offsets
 * (ascending, each > 0 and < text.length) at which a part may end:
 *   level 0  between blocks: a blank line in markdown, between elements in html, between lines elsewhere
 *   level 1  between lines (markdown: a table is cut between its rows, never inside one)
 *   level 2  between words, only for a unit larger than a whole part (a code block, a huge paragraph)
 * Never inside a word, a link, an inline code span, a table row or an html tag, at any level; inside a
 * fenced code block only at level 2, between its lines.
 */

export type Cuts = [blocks: number[], lines: number[], words: number[]];

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const TABLE_ROW = /^\s*\|/;
/**
 * Links and images (one level of brackets in the text, one of parentheses in the URL), inline code,
 * autolinks: each on one line and bounded, and no pattern can try more than a few ways at one place, so a
 * page written to be hard (thousands of `[a](` or backticks) costs linear time, not quadratic.
 */
const SPANS = [
  /!?\[[^[\]\n]{0,1000}(?:\[[^[\]\n]{0,1000}\][^[\]\n]{0,1000}){0,8}\]\((?:[^()\s[\]]|\([^()\s[\]]{0,500}\)){0,4000}(?:[ \t]+"[^"\n]{0,500}")?\)/g,
  /``[^`\n]{1,1000}``|`[^`\n]{1,1000}`/g,
  /<[a-z][a-z0-9+.-]{0,30}:[^\s<>]{0,4000}>/gi,
];

/** 1 where a cut may not fall (after that character): inside a link, an inline code span or an autolink. */
function protectedMask(text: string): Uint8Array {
  const mask = new Uint8Array(text.length + 1);
  for (const re of SPANS) for (const m of text.matchAll(re)) mask.fill(1, m.index, m.index + m[0].length - 1);
  return mask;
}

const isSpace = (c: number) => c === 32 || c === 9;

export function markdownCuts(text: string): Cuts {
  const blocks: number[] = [];
  const lines: number[] = [];
  const words: number[] = [];
  const mask = protectedMask(text);
  let fence: string | undefined;
  let lineStart = 0;
  while (lineStart < text.length) {
    const nl = text.indexOf("\n", lineStart);
    const end = nl === -1 ? text.length : nl + 1;
    const line = text.slice(lineStart, nl === -1 ? text.length : nl);
    const marker = FENCE.exec(line)?.[1];
    const wasInFence = fence !== undefined;
    if (marker && !fence) fence = marker;
    else if (
      marker &&
      fence &&
      marker[0] === fence[0] &&
      marker.length >= fence.length &&
      !line.slice(line.indexOf(marker) + marker.length).trim()
    )
      fence = undefined;
    const inFence = wasInFence || fence !== undefined;
    if (!inFence && !TABLE_ROW.test(line)) {
      for (let i = lineStart + 1; i < end - 1; i++)
        if (isSpace(text.charCodeAt(i - 1)) && !isSpace(text.charCodeAt(i)) && !mask[i - 1]) words.push(i);
    }
    if (end < text.length && !mask[end - 1]) {
      const closesFence = wasInFence && fence === undefined;
      if (fence !== undefined) words.push(end);
      else {
        lines.push(end);
        // After a blank line, or right after a closing fence: the next block starts here.
        const nextLineBlank = /^[ \t]*\n/.test(text.slice(end, end + 200));
        if ((line.trim() === "" || closesFence) && !nextLineBlank) blocks.push(end);
      }
    }
    lineStart = end;
  }
  return [blocks, lines, merge(lines, words)];
}

/** HTML elements that are never cut inside: a link, a table row, preformatted text, script and style. */
const WHOLE = new Set(["a", "tr", "pre", "code", "script", "style", "textarea", "svg", "math"]);
const VOID = new Set([
  "br",
  "hr",
  "img",
  "input",
  "meta",
  "link",
  "source",
  "wbr",
  "area",
  "base",
  "col",
  "embed",
  "track",
]);

export function htmlCuts(text: string): Cuts {
  const elements: number[] = [];
  const words: number[] = [];
  const open: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text.startsWith("<!--", i)) {
      // A comment is one unit, whatever it holds (an apostrophe, a tag).
      const end = text.indexOf("-->", i + 4);
      i = end === -1 ? text.length : end + 3;
      if (open.length === 0 && i < text.length) elements.push(i);
      continue;
    }
    if (text[i] === "<" && /[a-zA-Z/!]/.test(text[i + 1] ?? "")) {
      let j = i + 1;
      let quote: string | undefined;
      for (; j < text.length; j++) {
        const c = text[j];
        if (quote) {
          if (c === quote) quote = undefined;
        } else if ((c === '"' || c === "'") && text[j - 1] === "=") quote = c;
        else if (c === ">") break;
      }
      const tag = /^<\/?([a-zA-Z][\w-]*)/.exec(text.slice(i, i + 40))?.[1]?.toLowerCase();
      if (tag && WHOLE.has(tag) && !VOID.has(tag) && text[j - 1] !== "/") {
        if (text[i + 1] === "/") {
          const at = open.lastIndexOf(tag);
          if (at !== -1) open.length = at;
        } else open.push(tag);
      }
      i = j + 1;
      if (open.length === 0 && i < text.length) elements.push(i);
      continue;
    }
    if (open.length === 0 && i > 0 && /\s/.test(text[i - 1]!) && !/\s/.test(text[i]!) && text[i] !== "<")
      words.push(i);
    i++;
  }
  return [elements, elements, merge(elements, words)];
}

/** Plain text (the accessibility tree, anything else): between lines, then between words. */
export function lineCuts(text: string): Cuts {
  const lines: number[] = [];
  const words: number[] = [];
  for (let i = 1; i < text.length; i++) {
    if (text.charCodeAt(i - 1) === 10) lines.push(i);
    else if (/\s/.test(text[i - 1]!) && !/\s/.test(text[i]!)) words.push(i);
  }
  return [lines, lines, merge(lines, words)];
}

function merge(a: number[], b: number[]): number[] {
  return [...new Set([...a, ...b])].sort((x, y) => x - y);
}
