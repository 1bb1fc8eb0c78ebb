import { countTokens as count } from "gpt-tokenizer/encoding/o200k_base";

/**
 * The encoding every count is made in: OpenAI's o200k_base (GPT-4o, GPT-4.1, o-series), from
 * gpt-tokenizer, whose tables ship inside the package (nothing is downloaded at run time). Other
 * models' tokenizers (Claude, Gemini, Llama) differ by a few percent on the same text.
 */
export const TOKEN_ENCODING = "o200k_base";

/** Text that spells a special token (`<|endoftext|>` on a page about tokenizers) is counted as plain text. */
const PLAIN = { disallowedSpecial: new Set<string>() };

export function countTokens(text: string): number {
  return text.length === 0 ? 0 : count(text, PLAIN);
}

/** A format's value as a model reads it: a string as it is, anything else as its JSON. */
export function textOf(value: unknown): string {
  return typeof value === "string" ? value : (JSON.stringify(value) ?? "");
}
