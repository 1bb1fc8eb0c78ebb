/**
 * Scoring as the article-extraction-benchmark README describes it: the markdown becomes plain text
 * (links to their anchor text, images to their alt text, markup characters to spaces, whitespace
 * collapsed), is split into word tokens, and case-sensitive 4-token shingles are compared with the
 * ground truth's as multisets. Precision and recall are per page; the run averages them.
 */

const TOKEN = /[\p{L}\p{N}_]+/gu;
const SHINGLE = 4;

/** Markdown (or any text) as the plain text the scorer compares. */
export function markdownToText(markdown: string): string {
  return (
    markdown
      // Fenced code keeps its body; the fence lines go.
      .replace(/^\s*(?:`{3,}|~{3,}).*$/gm, " ")
      // Images to their alt text, links to their anchor text (twice: an image inside a link).
      .replace(/!\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)/g, "$1")
      .replace(/\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)/g, "$1")
      .replace(/\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)/g, "$1")
      .replace(/<br\s*\/?>/gi, " ")
      // Backslash escapes: the escaped character is text.
      .replace(/\\([\\`*_{}[\]()#+\-.!|>~<])/g, "$1")
      // Emphasis underscores at word edges (snake_case stays one token).
      .replace(/(^|[^\p{L}\p{N}])_+|_+(?=[^\p{L}\p{N}]|$)/gu, "$1 ")
      .replace(/[#*>|`~[\]]/g, " ")
      .replace(/\s+/g, " ")
      .trim()
  );
}

export function tokens(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

function shingles(words: string[]): Map<string, number> {
  const out = new Map<string, number>();
  // Texts shorter than one shingle count as a single shingle of what there is.
  const n = words.length < SHINGLE ? (words.length > 0 ? 1 : 0) : words.length - SHINGLE + 1;
  for (let i = 0; i < n; i++) {
    const key = words.slice(i, i + SHINGLE).join(" ");
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

export interface PageScore {
  precision: number;
  recall: number;
  tp: number;
  fp: number;
  fn: number;
}

/** Counts of each item of `items`. */
export function multiset(items: Iterable<string>): Map<string, number> {
  const out = new Map<string, number>();
  for (const item of items) out.set(item, (out.get(item) ?? 0) + 1);
  return out;
}

/** How many items two multisets share, and the size of each. */
export function overlap(
  got: Map<string, number>,
  want: Map<string, number>,
): { tp: number; gotTotal: number; wantTotal: number } {
  let tp = 0;
  let gotTotal = 0;
  let wantTotal = 0;
  for (const n of want.values()) wantTotal += n;
  for (const [key, n] of got) {
    gotTotal += n;
    tp += Math.min(n, want.get(key) ?? 0);
  }
  return { tp, gotTotal, wantTotal };
}

/** Multiset shingle overlap of `extracted` (plain text) against `truth` (plain text). */
export function scoreText(extracted: string, truth: string): PageScore {
  const { tp, gotTotal, wantTotal } = overlap(shingles(tokens(extracted)), shingles(tokens(truth)));
  const fp = gotTotal - tp;
  const fn = wantTotal - tp;
  // An empty output is precise by convention only when there was nothing to find.
  const precision = gotTotal === 0 ? (wantTotal === 0 ? 1 : 0) : tp / gotTotal;
  const recall = wantTotal === 0 ? 1 : tp / wantTotal;
  return { precision, recall, tp, fp, fn };
}
