/**
 * One page of the benchmark in detail: what onlyMainContent kept that the ground truth lacks (false
 * positives) and what it missed (false negatives), as runs of tokens.
 *
 *   npx tsx bench/markdown-quality/inspect.ts <id prefix> [--dataset DIR] [--whole] [--markdown]
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { gunzipSync } from "node:zlib";
import { htmlToMarkdown } from "@browserfleet/markdown";
import { markdownToText, scoreText, tokens } from "./score.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    dataset: { type: "string" },
    whole: { type: "boolean", default: false },
    markdown: { type: "boolean", default: false },
  },
});
const dataset = resolve(
  values.dataset ??
    process.env.MARKDOWN_BENCH_DATASET ??
    join(import.meta.dirname, "..", "..", "..", "shared", "datasets", "article-extraction-benchmark"),
);
const prefix = positionals[0] ?? "";
const file = readdirSync(join(dataset, "html")).find((f) => f.startsWith(prefix));
if (!prefix || !file) throw new Error(`no page starts with ${JSON.stringify(prefix)}`);
const id = file.replace(/\.html\.gz$/, "");
const truth = (
  JSON.parse(readFileSync(join(dataset, "ground-truth.json"), "utf8")) as Record<
    string,
    { articleBody: string; url: string }
  >
)[id];
if (!truth) throw new Error(`no ground truth for ${id}`);
const html = gunzipSync(readFileSync(join(dataset, "html", file))).toString("utf8");
const result = htmlToMarkdown(html, { baseUrl: truth.url, onlyMainContent: !values.whole });
const text = markdownToText(result.markdown);
const s = scoreText(text, truth.articleBody);
console.log(
  `${id}\n${truth.url}\nmainContent=${result.mainContent} P=${s.precision.toFixed(3)} R=${s.recall.toFixed(3)}`,
);
if (values.markdown) console.log(`\n${result.markdown}`);

/** Runs of `words` whose 4-token shingles are absent from `other`. */
function runsMissingFrom(words: string[], other: string[]): string[] {
  const have = new Set<string>();
  for (let i = 0; i + 4 <= other.length; i++) have.add(other.slice(i, i + 4).join(" "));
  const runs: string[] = [];
  let run: string[] = [];
  for (let i = 0; i + 4 <= words.length; i++) {
    if (!have.has(words.slice(i, i + 4).join(" "))) run.push(words[i] as string);
    else if (run.length) {
      runs.push(run.join(" "));
      run = [];
    }
  }
  if (run.length) runs.push(run.join(" "));
  return runs;
}
const got = tokens(text);
const want = tokens(truth.articleBody);
console.log("\n--- kept but not in the ground truth:");
for (const r of runsMissingFrom(got, want)) console.log(`  ${r.slice(0, 300)}`);
console.log("\n--- in the ground truth but missed:");
for (const r of runsMissingFrom(want, got)) console.log(`  ${r.slice(0, 300)}`);
