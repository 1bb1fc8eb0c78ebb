import { countTokens, countValueTokens, countWithin, textOf } from "./count.ts";
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

/**
 * A long text's cut points and the running token count at each block cut, worked out once: a render
 * read on in many parts would otherwise find its cut points and count its whole rest again for every
 * part (about 150 ms a part on a 1.5 MB page). Remembered by content, least recently used out first.
 */
interface Plan {
  format: string;
  levels: Cuts;
  /** Block cuts with 0 first and the text's length last. */
  at: number[];
  /** Tokens of text.slice(0, at[k]), as the sum of its blocks' counts. */
  sum: number[];
  /** The whole text's count, once asked for. */
  total?: number;
  /** What it holds, its text included, in bytes (roughly: 2 a character, 8 a number). */
  bytes: number;
}

const PLAN_MIN_CHARS = 20_000;
/** A rest up to this long is counted exactly for remainingTokens; a longer one is estimated from its plan. */
const EXACT_REST_CHARS = 100_000;
/** All plans together, texts included; a text whose plan alone is larger is planned again each part. */
const PLANS_MAX_BYTES = 48 * 1024 * 1024;
/** By text, least recently used first; a text read as another format is planned again. */
const plans = new Map<string, Plan>();
let planBytes = 0;

function planOf(format: string, text: string): Plan {
  const known = plans.get(text);
  if (known !== undefined && known.format === format) {
    plans.delete(text);
    plans.set(text, known);
    return known;
  }
  const levels = (CUTS[format] ?? lineCuts)(text);
  const at = [0, ...levels[0], text.length];
  const sum = [0];
  for (let k = 1; k < at.length; k++) sum.push(sum[k - 1]! + countTokens(text.slice(at[k - 1], at[k])));
  const numbers = levels[0].length + levels[1].length + levels[2].length + at.length + sum.length;
  const plan: Plan = { format, levels, at, sum, bytes: 2 * text.length + 8 * numbers };
  if (known !== undefined) {
    plans.delete(text);
    planBytes -= known.bytes;
  }
  if (plan.bytes <= PLANS_MAX_BYTES) {
    plans.set(text, plan);
    planBytes += plan.bytes;
    for (const [k, old] of plans) {
      if (planBytes <= PLANS_MAX_BYTES) break;
      plans.delete(k);
      planBytes -= old.bytes;
    }
  }
  return plan;
}

/** The whole text's exact count, counted once per plan. */
function totalOf(plan: Plan, text: string): number {
  plan.total ??= countTokens(text);
  return plan.total;
}

/** The first index of sorted `cuts` whose value is greater than `after`. */
function firstAfter(cuts: readonly number[], after: number): number {
  let lo = 0;
  let hi = cuts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cuts[mid]! > after) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Tokens of text.slice(0, offset) as a long text's plan counts them (blocks summed). */
function tokensBefore(plan: Plan, text: string, offset: number): number {
  const k = firstAfter(plan.at, offset) - 1;
  return plan.sum[k]! + countTokens(text.slice(plan.at[k], offset));
}

/** The longest prefix of `text` from `start` that fits in `left` tokens, as an end offset (`start`: none). */
function stringPrefix(format: string, text: string, start: number, left: number, fresh: boolean): number {
  const plan = text.length < PLAN_MIN_CHARS ? undefined : planOf(format, text);
  const levels = plan?.levels ?? (CUTS[format] ?? lineCuts)(text);
  // Segment by segment from start; between two block cuts a long text's plan has the count already.
  const fit = (cuts: readonly number[], counted: Plan | undefined): number => {
    let used = 0;
    let from = start;
    let end = start;
    for (let i = firstAfter(cuts, start); ; i++) {
      const c = i < cuts.length ? cuts[i]! : text.length;
      const known = counted !== undefined && from === (i === 0 ? 0 : cuts[i - 1]);
      used += known ? counted.sum[i + 1]! - counted.sum[i]! : countTokens(text.slice(from, c));
      if (used > left) break;
      end = from = c;
      if (c === text.length) break;
    }
    // Segment counts can add up to a little less than the prefix's own count: step back until it fits.
    while (end > start && countTokens(text.slice(start, end)) > left) {
      const i = firstAfter(cuts, end - 1) - 1;
      end = i >= 0 && cuts[i]! > start ? cuts[i]! : start;
    }
    return end;
  };
  const blocks = fit(levels[0], plan);
  if (blocks - start > 0 && countTokens(text.slice(start, blocks)) >= FILL * left) return blocks;
  const lines = fit(levels[1], undefined);
  if (lines > start) return Math.max(lines, blocks);
  // Nothing whole fits. Inside a code block or a paragraph only when it could never fit in a part.
  if (!fresh) return start;
  const words = fit(levels[2], undefined);
  return words > start ? words : (levels[2][firstAfter(levels[2], start)] ?? text.length);
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
    const n = countWithin(textOf(rest), left);
    if (n !== undefined) {
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
      tokens += countValueTokens(value);
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
  for (let i = next.format; i < formats.length; i++) {
    const f = formats[i]!;
    const value = data[f];
    const offset = i === next.format ? next.offset : 0;
    if (offset === 0) n += countValueTokens(value);
    else if (typeof value === "string" && value.length - offset > EXACT_REST_CHARS) {
      // Blocks counted apart add up to more than the whole (html's `><` is one token, split it is two):
      // the rest's share of the blocks, scaled to the whole's exact count.
      const plan = planOf(f, value);
      const blocks = plan.sum[plan.sum.length - 1]!;
      const share = blocks > 0 ? (blocks - tokensBefore(plan, value, offset)) / blocks : 0;
      n += Math.max(0, Math.round(share * totalOf(plan, value)));
    } else n += countTokens(textOf(restOf(value, offset)));
  }
  return n;
}
