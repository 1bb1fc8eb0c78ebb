// Fence lines may sit behind blockquote markers or start a list item ("- ```ts").
const FENCE_LINE = /^\s*(?:>\s?)*(?:(?:[-*+]|\d{1,9}[.)])\s+)?(`{3,}|~{3,})(.*)$/;

/**
 * A paragraph or heading of at least this many characters of text is a copy when the page says it
 * exactly twice, word for word: the back of a card that repeats its front on hover, a section printed
 * once for phones and once for desktops. Shorter ones ("Add to cart") repeat on purpose, and a text
 * said three times or more is each item's own line from one template.
 */
const MIN_REPEATED_CHARS = 60;
/** What is left of markdown to read: link and image targets and markup characters go. */
const plain = (text: string) =>
  text
    .replace(/\]\([^)]*\)/g, "]")
    .replace(/[!*_#[\]`>\\]/g, "")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
/** Lines of a list, a table or an indented block: items alike on purpose. */
const STRUCTURED_LINE = /^(?:\s|[-*+] |\d{1,9}[.)] |\|)/;

/** A run of lines between blank lines; `prose` when it holds no code fence and no structured line. */
interface Paragraph {
  start: number;
  end: number;
  prose: boolean;
}

/** The second copy of each prose paragraph said exactly twice goes, with the blank line before it. */
function dropSecondCopies(lines: string[], paragraphs: Paragraph[]): string[] {
  const keys = paragraphs.map((p) => (p.prose ? plain(lines.slice(p.start, p.end).join(" ")) : ""));
  const count = new Map<string, number>();
  for (const key of keys) if (key.length >= MIN_REPEATED_CHARS) count.set(key, (count.get(key) ?? 0) + 1);
  const seen = new Set<string>();
  const doomed = new Set<number>();
  paragraphs.forEach((p, i) => {
    const key = keys[i] as string;
    if (count.get(key) !== 2) return;
    if (!seen.has(key)) {
      seen.add(key);
      return;
    }
    for (let n = Math.max(0, p.start - 1); n < p.end; n++) doomed.add(n);
  });
  return doomed.size === 0 ? lines : lines.filter((_, n) => !doomed.has(n));
}

/**
 * Final clean-up of turndown output: trailing whitespace removed, at most one
 * blank line in a row (except inside fenced code, which is kept verbatim),
 * a single trailing newline, nothing at all for an empty page. With `dropRepeats`,
 * the second copy of a paragraph said exactly twice goes (see MIN_REPEATED_CHARS).
 */
export function tidyMarkdown(markdown: string, dropRepeats = false): string {
  let out: string[] = [];
  const paragraphs: Paragraph[] = [];
  let open: Paragraph | undefined;
  let fence: string | undefined;
  let blankRun = 0;
  for (const raw of markdown.replace(/\u00a0/g, " ").split(/\r?\n/)) {
    const line = raw.replace(/\s+$/, "");
    const match = FENCE_LINE.exec(line);
    const run = match?.[1];
    if (fence) {
      // A closing fence: same character, at least as long, nothing after it.
      if (run && run[0] === fence[0] && run.length >= fence.length && !match?.[2]?.trim()) fence = undefined;
      out.push(line);
      continue;
    }
    if (line === "") {
      if (open) open.end = out.length;
      open = undefined;
      if (++blankRun > 1) continue;
    } else {
      blankRun = 0;
      if (!open) {
        open = { start: out.length, end: out.length, prose: true };
        paragraphs.push(open);
      }
      // An info string containing a backtick means inline code, not a fence.
      if (run && !(run[0] === "`" && match?.[2]?.includes("`"))) {
        fence = run;
        open.prose = false;
      } else if (STRUCTURED_LINE.test(line)) open.prose = false;
    }
    out.push(line);
  }
  if (open) open.end = out.length;
  if (dropRepeats) out = dropSecondCopies(out, paragraphs);
  while (out.length > 0 && out[0] === "") out.shift();
  while (out.length > 0 && out[out.length - 1] === "") out.pop();
  return out.length > 0 ? `${out.join("\n")}\n` : "";
}
