import { z } from "zod";

/*
 * What a caller's string may hold, by where it goes. Every string field of a request follows one of these
 * rules, so a value its destination cannot take (PostgreSQL text and jsonb hold no NUL; an HTTP header no CR,
 * LF or NUL; Chromium's cookie store none of a cookie's forbidden characters) is a 400 naming the field, never
 * a failure further on. A rule is one pattern, checked here and published in the JSON Schema, so the document
 * says exactly what is taken.
 *
 * No field takes a lone surrogate (a JSON "\ud800" escape without its pair): it is not Unicode text, and
 * PostgreSQL and UTF-8 encoders refuse it. JSON Schema cannot say that (its strings are code points), so only
 * the check and the README do.
 */

export interface TextRule {
  /** The published pattern; ECMAScript and Python read it alike. */
  readonly pattern: string;
  readonly regex: RegExp;
  /** Why a value outside the pattern is refused. */
  explain(value: string): string;
}

/** A rule of its own pattern; `explain` says what the pattern asks for. */
export function textRule(pattern: string, explain: (value: string) => string): TextRule {
  return { pattern, regex: new RegExp(pattern), explain };
}

const codePoint = (unit: number) => `U+${unit.toString(16).toUpperCase().padStart(4, "0")}`;

/** A rule that refuses the characters of one class (a regex class body), naming the first one found and where. */
export function refusing(chars: string, why: string): TextRule {
  const found = new RegExp(`[${chars}]`);
  return textRule(`^[^${chars}]*$`, (value) => {
    const at = value.search(found);
    return `${why}; found ${codePoint(value.charCodeAt(at))} at character ${at + 1}`;
  });
}

const CONTROLS = "\\u0000-\\u001f\\u007f";

/** Text for the browser, a language model or a stored request (jsonb): anything but NUL, which PostgreSQL cannot store. */
export const TEXT = refusing("\\u0000", "must not contain NUL (U+0000)");

/** One line: ids, key names, URL patterns, credentials (RFC 7617). No control character, tab included. */
export const LINE = refusing(
  CONTROLS,
  "must be one line without control characters (U+0000 to U+001F, U+007F)",
);

/** An HTTP field value (RFC 9110 section 5.5): no CR, LF, NUL or other control character but tab. */
export const FIELD_VALUE = refusing(
  "\\u0000-\\u0008\\u000a-\\u001f\\u007f",
  "must be a valid HTTP field value (RFC 9110): no CR, LF, NUL or other control character but tab",
);

/** What Chromium's cookie store refuses in a cookie's name, value and path: controls (tab too) and ';'. */
const COOKIE_BANNED = `${CONTROLS};`;

export const COOKIE_NAME = textRule(
  `^[^${COOKIE_BANNED}= ]([^${COOKIE_BANNED}=]*[^${COOKIE_BANNED}= ])?$`,
  () =>
    "a cookie name holds no control character (tab included), ';' or '=', and does not start or end with a space",
);

export const COOKIE_VALUE = textRule(
  `^([^${COOKIE_BANNED} ]([^${COOKIE_BANNED}]*[^${COOKIE_BANNED} ])?)?$`,
  () =>
    "a cookie value holds no control character (tab included) or ';', and does not start or end with a space",
);

export const COOKIE_PATH = textRule(
  `^/([^${COOKIE_BANNED}]*[^${COOKIE_BANNED} ])?$`,
  () => "a cookie path starts with '/', holds no control character or ';', and does not end with a space",
);

const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LONE_ALL = new RegExp(LONE.source, "g");

/** Bytes of `value` in UTF-8 (what Chromium's cookie limits count). */
export function utf8Length(value: string): number {
  let bytes = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && (value.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** Why `value` breaks `rule` (a lone surrogate breaks every rule), or undefined when it is taken. */
export function textProblem(value: string, r: TextRule): string | undefined {
  const lone = value.search(LONE);
  if (lone >= 0)
    return `must be Unicode text: a lone surrogate (a \\ud800-\\udfff escape without its pair) cannot be stored or passed on; found ${codePoint(value.charCodeAt(lone))} at character ${lone + 1}`;
  return r.regex.test(value) ? undefined : r.explain(value);
}

/** A string field under a rule (TEXT when not given): checked, and its pattern published. */
export function text(r: TextRule = TEXT): z.ZodString {
  return z
    .string()
    .check((ctx) => {
      const problem = textProblem(ctx.value, r);
      if (problem) ctx.issues.push({ code: "custom", message: problem, input: ctx.value, continue: true });
    })
    .meta({ pattern: r.pattern });
}

/**
 * What PostgreSQL cannot hold, NUL and lone surrogates, as U+FFFD (the replacement character). For stored
 * free text (a feedback report): refusing a report over a stray byte would lose what the caller meant to tell
 * us, and replacing rather than dropping keeps the length the bounds were checked on and shows the reader where
 * something was lost.
 */
export function cleanStoredText(value: string): string {
  return value.replace(LONE_ALL, "\ufffd").replaceAll("\u0000", "\ufffd");
}

/**
 * Every string of a JSON value, keys too, as PostgreSQL can store it (cleanStoredText): what a page or a
 * document holds (a NUL in its text, a lone surrogate in a title) is written, never refused at the door of a
 * jsonb column, where it would fail the write.
 */
export function cleanStoredJson<T>(value: T): T {
  if (typeof value === "string") return cleanStoredText(value) as T;
  if (Array.isArray(value)) return value.map(cleanStoredJson) as T;
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[cleanStoredText(k)] = cleanStoredJson(v);
    return out as T;
  }
  return value;
}

/** A stored free-text field: taken whatever it holds, cleaned (cleanStoredText) before it is used. */
export const storedText = (): z.ZodString =>
  z
    .string()
    .overwrite(cleanStoredText)
    .describe("Stored as sent, except NUL and lone surrogates, which become U+FFFD");

type Path = (string | number)[];

/** How deep a JSON object passed on may nest: far past any real JSON Schema, well short of a stack's depth. */
export const MAX_JSON_DEPTH = 100;

/**
 * The first string of a JSON value (object keys too, but those of the top object, which its schema checks)
 * that breaks TEXT, or the first value nested too deep: where it is, and why. Walked without recursion, in
 * document order (a key before its value).
 */
function jsonProblem(root: unknown): { path: Path; message: string } | undefined {
  type Item = { value: unknown; path: Path; key?: string };
  const stack: Item[] = [{ value: root, path: [] }];
  while (stack.length > 0) {
    const { value, path, key } = stack.pop()!;
    if (key !== undefined) {
      const problem = textProblem(key, TEXT);
      if (problem) return { path, message: `its key ${problem}` };
      continue;
    }
    if (typeof value === "string") {
      const problem = textProblem(value, TEXT);
      if (problem) return { path, message: problem };
      continue;
    }
    if (value === null || typeof value !== "object") continue;
    if (path.length >= MAX_JSON_DEPTH) return { path, message: `nests deeper than ${MAX_JSON_DEPTH} levels` };
    const entries = Object.entries(value);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, v] = entries[i]!;
      const at = [...path, Array.isArray(value) ? i : k];
      stack.push({ value: v, path: at });
      if (!Array.isArray(value) && path.length > 0) stack.push({ value: undefined, path: at, key: k });
    }
  }
  return undefined;
}

/** A JSON object passed on as it is (the json format's JSON Schema): every string in it, keys too, under TEXT. */
export const jsonObject = () =>
  z.record(text(TEXT), z.unknown()).check((ctx) => {
    const found = jsonProblem(ctx.value);
    if (found)
      ctx.issues.push({
        code: "custom",
        message: found.message,
        path: found.path,
        input: ctx.value,
        continue: true,
      });
  });
