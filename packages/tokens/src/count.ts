import { countTokens as count, isWithinTokenLimit } from "gpt-tokenizer/encoding/o200k_base";

/**
 * The encoding every count is made in: OpenAI's o200k_base (GPT-4o, GPT-4.1, o-series), from
 * gpt-tokenizer, whose tables ship inside the package (nothing is downloaded at run time). Other
 * models' tokenizers (Claude, Gemini, Llama) differ by a few percent on the same text.
 */
export const TOKEN_ENCODING = "o200k_base";

/** Text that spells a special token (`<|endoftext|>` on a page about tokenizers) is counted as plain text. */
const PLAIN = { disallowedSpecial: new Set<string>() };

export function countTokens(text: string): number {
  if (text.length < LONG_RUN) return text.length === 0 ? 0 : count(text, PLAIN);
  let n = 0;
  for (const piece of pieces(text)) n += count(piece, PLAIN);
  return n;
}

/**
 * A run of this many characters without a space is counted in pieces of this size. The encoder merges
 * within one pre-token in about quadratic time, and some runs are one pre-token however long (200 KB of
 * `[[]` took over a minute); split, a run costs linear time and its count moves by a token or so a piece.
 */
const LONG_RUN = 2_000;

/** The text in the pieces it is counted in: as it is, but each run of LONG_RUN or more cut every LONG_RUN. */
function* pieces(text: string): Generator<string> {
  let from = 0;
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    if (c > 32) continue;
    if (i - start >= LONG_RUN) {
      if (start > from) yield text.slice(from, start);
      for (let j = start; j < i; j += LONG_RUN) yield text.slice(j, Math.min(i, j + LONG_RUN));
      from = i;
    }
    start = i + 1;
  }
  if (from < text.length) yield text.slice(from);
}

/** The tokens of `text` when they are at most `limit`, else undefined: stops counting past the limit. */
export function countWithin(text: string, limit: number): number | undefined {
  if (text.length === 0) return 0;
  let n = 0;
  for (const piece of text.length < LONG_RUN ? [text] : pieces(text)) {
    const k = isWithinTokenLimit(piece, limit - n, PLAIN);
    if (k === false) return undefined;
    n += k;
  }
  return n;
}

/** A format's value as a model reads it: a string as it is, anything else as its JSON. */
export function textOf(value: unknown): string {
  return typeof value === "string" ? value : (JSON.stringify(value) ?? "");
}

/**
 * Counts remembered for the values they were made for, so the same cached answer served again is not
 * counted again: strings by content (V8 keeps a string's hash, so a repeated one is found at once), up
 * to MEMO_CHARS characters in all, least recently used out first; objects and arrays by identity.
 */
const MEMO_CHARS = 16 * 1024 * 1024;
const MEMO_MIN_CHARS = 256;
const byText = new Map<string, number>();
let memoChars = 0;
const byObject = new WeakMap<object, number>();

/** The tokens of a format's value as a model reads it (see textOf), remembered (see above). */
export function countValueTokens(value: unknown): number {
  if (typeof value === "string") {
    if (value.length < MEMO_MIN_CHARS) return countTokens(value);
    const known = byText.get(value);
    if (known !== undefined) {
      byText.delete(value);
      byText.set(value, known);
      return known;
    }
    const n = countTokens(value);
    if (value.length <= MEMO_CHARS / 8) {
      byText.set(value, n);
      memoChars += value.length;
      for (const k of byText.keys()) {
        if (memoChars <= MEMO_CHARS) break;
        byText.delete(k);
        memoChars -= k.length;
      }
    }
    return n;
  }
  if (value !== null && typeof value === "object") {
    const known = byObject.get(value);
    if (known !== undefined) return known;
    const n = countTokens(textOf(value));
    byObject.set(value, n);
    return n;
  }
  return countTokens(textOf(value));
}
