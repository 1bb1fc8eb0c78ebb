import { countTokens, textOf } from "./count.ts";
import { type Cuts, htmlCuts, lineCuts, markdownCuts } from "./cut-points.ts";

/**
 * Reading a render's text formats in parts of at most `maxTokens` tokens. The formats are read in
 * order as one stream; a position is a format's index and an offset in it (characters of a string,
 * items of an array; anything else, json, is one whole). Parts concatenated give every format back
 * exactly: a string is only ever cut, never changed.
 */

export interface Position {
  format: number;
  offset: number;
}

export interface Part {
  /** What this part carries: whole formats, and the cut one's next piece. */
  data: Record<string, unknown>;
  /** Tokens in this part (each format counted on its own). */
  tokens: number;
  /** Present when something is left for a next part. */
  rest?: {
    /** The format cut inside (absent when whole formats were left out and none was cut). */
    format?: string;
    /** Formats left out of this part entirely, in order. */
    omitted: string[];
    /** Tokens left for later parts. */
    remainingTokens: number;
    next: Position;
  };
}

const CUTS: Record<string, (text: string) => Cuts> = { markdown: markdownCuts, html: htmlCuts };

/** A unit larger than this share of what is left is a reason to cut at a finer level. */
const FILL = 0.5;

/** The longest prefix of `text` from `start` that fits in `left` tokens, as an end offset (`start`: none). */
function stringPrefix(format: string, text: string, start: number, left: number, fresh: boolean): number {
  const levels = (CUTS[format] ?? lineCuts)(text).map((cuts) => [
    ...cuts.filter((c) => c > start),
    text.length,
  ]);
  const fit = (cuts: number[]): number => {
    let used = 0;
    let from = start;
    let end = start;
    for (const c of cuts) {
      used += countTokens(text.slice(from, c));
      if (used > left) break;
      end = from = c;
    }
    // Segment counts can add up to a little less than the prefix's own count: step back until it fits.
    while (end > start && countTokens(text.slice(start, end)) > left) {
      const before = cuts.filter((c) => c < end);
      end = before.length ? before[before.length - 1]! : start;
    }
    return end;
  };
  const blocks = fit(levels[0]!);
  if (blocks - start > 0 && countTokens(text.slice(start, blocks)) >= FILL * left) return blocks;
  const lines = fit(levels[1]!);
  if (lines > start) return Math.max(lines, blocks);
  // Nothing whole fits. Inside a code block or a paragraph only when it could never fit in a part.
  if (!fresh) return start;
  const words = fit(levels[2]!);
  return words > start ? words : (levels[2]![0] ?? text.length);
}

function arrayPrefix(items: unknown[], start: number, left: number, fresh: boolean): number {
  let used = 2;
  let end = start;
  for (let i = start; i < items.length; i++) {
    used += countTokens(textOf(items[i])) + 1;
    if (used > left) break;
    end = i + 1;
  }
  return end === start && fresh ? start + 1 : end;
}

const restOf = (value: unknown, offset: number): unknown =>
  offset === 0 ? value : typeof value === "string" ? value.slice(offset) : (value as unknown[]).slice(offset);

/**
 * The part of `formats` (keys of `data`, in order) that starts at `from` and holds at most `maxTokens`
 * tokens. A part always moves forward: a single unit (a word, a link, an array item, a json value)
 * larger than `maxTokens` comes alone in its part.
 */
export function readPart(
  formats: readonly string[],
  data: Readonly<Record<string, unknown>>,
  from: Position,
  maxTokens: number,
): Part {
  const out: Record<string, unknown> = {};
  let left = maxTokens;
  let tokens = 0;
  for (let i = from.format; i < formats.length; i++) {
    const f = formats[i]!;
    const value = data[f];
    const start = i === from.format ? from.offset : 0;
    const rest = restOf(value, start);
    const n = countTokens(textOf(rest));
    if (n <= left) {
      out[f] = rest;
      left -= n;
      tokens += n;
      continue;
    }
    const fresh = tokens === 0;
    let end = start;
    if (typeof value === "string") end = stringPrefix(f, value, start, left, fresh);
    else if (Array.isArray(value)) end = arrayPrefix(value, start, left, fresh);
    else if (fresh) end = 1;
    const whole = !(typeof value === "string" || Array.isArray(value));
    if (end > start && !whole) {
      const piece =
        typeof value === "string" ? value.slice(start, end) : (value as unknown[]).slice(start, end);
      out[f] = piece;
      tokens += countTokens(textOf(piece));
    } else if (whole && end > start) {
      out[f] = value;
      tokens += n;
    }
    const doneWithF = whole
      ? end > start
      : end >= (typeof value === "string" ? value.length : (value as unknown[]).length);
    const next: Position = doneWithF ? { format: i + 1, offset: 0 } : { format: i, offset: end };
    if (next.format >= formats.length) return { data: out, tokens };
    const remainingTokens = remainingFrom(formats, data, next);
    return {
      data: out,
      tokens,
      rest: {
        ...(end > start && !doneWithF ? { format: f } : {}),
        omitted: formats.slice(end > start || doneWithF ? i + 1 : i),
        remainingTokens,
        next,
      },
    };
  }
  return { data: out, tokens };
}

function remainingFrom(
  formats: readonly string[],
  data: Readonly<Record<string, unknown>>,
  next: Position,
): number {
  let n = 0;
  for (let i = next.format; i < formats.length; i++)
    n += countTokens(textOf(restOf(data[formats[i]!], i === next.format ? next.offset : 0)));
  return n;
}
