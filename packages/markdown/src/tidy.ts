// Fence lines may sit behind blockquote markers or start a list item ("- ```ts").
const FENCE_LINE = /^\s*(?:>\s?)*(?:(?:[-*+]|\d{1,9}[.)])\s+)?(`{3,}|~{3,})(.*)$/;

/**
 * Final clean-up of turndown output: trailing whitespace removed, at most one
 * blank line in a row (except inside fenced code, which is kept verbatim),
 * a single trailing newline, nothing at all for an empty page.
 */
export function tidyMarkdown(markdown: string): string {
  const out: string[] = [];
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
    // An info string containing a backtick means inline code, not a fence.
    if (run && !(run[0] === "`" && match?.[2]?.includes("`"))) fence = run;
    if (line === "") {
      if (++blankRun > 1) continue;
    } else blankRun = 0;
    out.push(line);
  }
  while (out.length > 0 && out[0] === "") out.shift();
  while (out.length > 0 && out[out.length - 1] === "") out.pop();
  return out.length > 0 ? `${out.join("\n")}\n` : "";
}
