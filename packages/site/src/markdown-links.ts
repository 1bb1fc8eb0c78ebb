/**
 * Link targets written in a markdown text (a converted document has no DOM to read links from):
 * inline links and images `[text](url "title")`, autolinks `<https://…>`, and bare http(s) URLs.
 * Relative targets resolve against `base`; only http(s) results are kept, each once, in order.
 */
export function linksInMarkdown(markdown: string, base: string, max = Number.POSITIVE_INFINITY): string[] {
  const out = new Set<string>();
  const add = (raw: string) => {
    if (out.size >= max) return;
    try {
      const url = new URL(raw.replace(/[.,;:!?]+$/, ""), base);
      if (url.protocol === "http:" || url.protocol === "https:") out.add(url.href);
    } catch {
      // Not a URL: skip it.
    }
  };
  const patterns = [
    /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g,
    /<(https?:\/\/[^>\s]+)>/g,
    /(?<![(<\w/])(https?:\/\/[^\s<>()"'`\]]+)/g,
  ];
  const found: Array<{ at: number; url: string }> = [];
  for (const re of patterns)
    for (const m of markdown.matchAll(re)) found.push({ at: m.index, url: m[1] as string });
  found.sort((a, b) => a.at - b.at);
  for (const f of found) add(f.url);
  return [...out];
}
