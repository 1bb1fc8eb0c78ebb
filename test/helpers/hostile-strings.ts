/**
 * Hostile-string cases for every string an OpenAPI document lets a caller send: each path and query parameter
 * and each string of a JSON body (object values, array items, record keys and values, every option of a
 * union), found by walking the document, so an operation added later is covered without a word here. Each
 * case is one field set to one hostile value in an otherwise valid call (the operation's example, or the
 * least body its schema takes).
 */

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema and JSON values as the document has them
type Json = any;
type Schema = Record<string, Json>;

/** The hostile values, each made from the value the field had (so a URL stays a URL up to its last character). */
export const HOSTILE: Record<string, (base: string) => string> = {
  nul: (b) => `${b}\u0000`,
  crlf: (b) => `${b}\r\nx-injected: 1`,
  // JSON.stringify writes it as the \ud800 escape: the raw body carries the escape, as a client's would.
  "lone surrogate": (b) => `${b}\ud800`,
  "100,000 characters": (b) => b + "x".repeat(Math.max(0, 100_000 - b.length)),
  "right-to-left": (b) => `${b}\u202e`,
  "zero-width": (b) => `${b}\u200b`,
};

export interface HostileCall {
  operationId: string;
  method: string;
  /** The path with its parameters filled in and encoded, and the query string. */
  url: string;
  body?: string;
  /** Where the hostile value went: `in` body, path or query, and the dotted field (as error details name it). */
  where: { in: "body" | "path" | "query"; field: string; value: string };
  /** The statuses the document lists for the operation. */
  documented: Set<string>;
}

export interface Bases {
  /** A page every URL field points at (a real one, so accepted calls do real work). */
  url: string;
  /** Values for path parameters and body fields by name (e.g. a live sessionId); anything else gets a plain one. */
  named?: Record<string, string>;
}

/**
 * A string the schema takes where no value is given: the URL, its origin (a proxy server is host and port
 * only), a selector that matches every page, or a path.
 */
function plainString(schema: Schema, bases: Bases, name?: string): string {
  if (name && bases.named?.[name] !== undefined) return bases.named[name];
  if (typeof schema.pattern !== "string") return "body, x";
  const pattern = new RegExp(schema.pattern, "u");
  return ["body, x", bases.url, new URL(bases.url).origin, "x", "/"].find((c) => pattern.test(c)) ?? "x";
}

function resolver(doc: Json) {
  return function resolve(schema: Schema | undefined): Schema {
    let s = schema ?? {};
    while (typeof s.$ref === "string" && s.$ref.startsWith("#/components/schemas/"))
      s = doc.components.schemas[s.$ref.slice("#/components/schemas/".length)] ?? {};
    return s;
  };
}

const types = (s: Schema): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);
const options = (s: Schema): Schema[] => [...(s.anyOf ?? []), ...(s.oneOf ?? [])];

/** The least value a schema takes: required members, minimum counts and numbers, first enum values. */
function least(schema: Schema, bases: Bases, resolve: (s: Schema) => Schema, name?: string): Json {
  const s = resolve(schema);
  if ("const" in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  const t = types(s);
  if (t.includes("object") || s.properties) {
    const out: Record<string, Json> = {};
    const required = new Set<string>(s.required ?? []);
    // "give url or html", "prompt or schema": the first alternative's members.
    const firstRequired = options(s).find((o) => Array.isArray(o.required) && !o.properties)?.required ?? [];
    for (const r of firstRequired) required.add(r);
    for (const key of required) out[key] = least(s.properties?.[key] ?? {}, bases, resolve, key);
    return out;
  }
  if (t.includes("array")) {
    return Array.from({ length: s.minItems ?? 0 }, () => least(s.items ?? {}, bases, resolve));
  }
  if (t.includes("string")) return plainString(s, bases, name);
  if (t.includes("integer") || t.includes("number"))
    return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
  if (t.includes("boolean")) return false;
  const first = options(s).find((o) => types(resolve(o)).length || resolve(o).properties);
  return first ? least(first, bases, resolve, name) : {};
}

/** Does `value` look like a member of this object schema (its keys are all the schema's)? */
function fits(value: Json, s: Schema): boolean {
  if (value === null || typeof value !== "object" || Array.isArray(value) || !s.properties) return false;
  return Object.keys(value).every((k) => k in s.properties);
}

interface Slot {
  field: string;
  base: string;
  set: (value: string) => Json;
}

/** Every string slot under `schema`, where `current` is the value there and `put` rebuilds the whole body. */
function slots(
  schema: Schema,
  current: Json,
  put: (v: Json) => Json,
  field: string[],
  bases: Bases,
  resolve: (s: Schema) => Schema,
  depth = 0,
): Slot[] {
  if (depth > 12) return [];
  const s = resolve(schema);
  const name = field[field.length - 1];
  const out: Slot[] = [];
  if (types(s).includes("string")) {
    const base = typeof current === "string" ? current : plainString(s, bases, name);
    out.push({ field: field.join("."), base, set: put });
  }
  const isObject = types(s).includes("object") || s.properties || s.additionalProperties;
  if (isObject) {
    const here = () => (fits(current, s) ? current : least(s, bases, resolve));
    // "Give exactly one of url or html": setting one drops the other.
    const alternatives: string[][] = options(s)
      .filter((o) => Array.isArray(o.required) && !o.properties)
      .map((o) => o.required);
    const without = (key: string) => {
      const value = { ...here() };
      if (alternatives.some((a) => a.includes(key)))
        for (const other of alternatives.flat()) if (other !== key) delete value[other];
      return value;
    };
    for (const [key, child] of Object.entries<Schema>(s.properties ?? {})) {
      out.push(
        ...slots(
          child,
          current?.[key],
          (v) => put({ ...without(key), [key]: v }),
          [...field, key],
          bases,
          resolve,
          depth + 1,
        ),
      );
    }
    const values = s.additionalProperties;
    if (values && typeof values === "object") {
      const key = "x-hostile";
      const value = least(values, bases, resolve);
      out.push(...slots(values, value, (v) => put({ [key]: v }), [...field, key], bases, resolve, depth + 1));
      const names = resolve(s.propertyNames ?? {});
      if (types(names).includes("string"))
        out.push({ field: field.join("."), base: key, set: (k) => put({ [k]: value }) });
    }
  }
  if (types(s).includes("array") && s.items) {
    const list: Json[] = Array.isArray(current) ? current : least(s, bases, resolve);
    const rest = list.length > 0 ? list.slice(1) : [];
    const fill = list.length > 0 ? list : [least(s.items, bases, resolve)];
    out.push(
      ...slots(s.items, fill[0], (v) => put([v, ...rest]), [...field, "0"], bases, resolve, depth + 1),
    );
  }
  for (const option of options(s)) {
    const o = resolve(option);
    if (!types(o).length && !o.properties) continue;
    const mine = types(o).includes("object") ? (fits(current, o) ? current : undefined) : current;
    out.push(...slots(o, mine, put, field, bases, resolve, depth + 1));
  }
  return out;
}

/** Keep one slot per field and base (a union's options may name the same string twice). */
function distinct(list: Slot[]): Slot[] {
  const seen = new Set<string>();
  return list.filter((s) => {
    const key = `${s.field}\u0000${s.base}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Point every URL of an example at the page, and put the named values where their fields are. */
function adapt(value: Json, bases: Bases, key?: string): Json {
  if (typeof value === "string") {
    if (key && bases.named?.[key] !== undefined) return bases.named[key];
    return /^https?:\/\//i.test(value) ? bases.url : value;
  }
  if (Array.isArray(value)) return value.map((v) => adapt(v, bases));
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, adapt(v, bases, k)]));
  return value;
}

/** Percent-encode a path or query value; a lone surrogate (which encodeURIComponent refuses) as its WTF-8 bytes. */
function encode(value: string): string {
  let out = "";
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && (value.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      out += encodeURIComponent(value.slice(i, i + 2));
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff)
      out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join("");
    else out += encodeURIComponent(value[i]!);
  }
  return out;
}

/** Every hostile call the document allows: each string parameter and body field, with each hostile value. */
export function hostileCalls(doc: Json, bases: Bases): HostileCall[] {
  const resolve = resolver(doc);
  const calls: HostileCall[] = [];
  for (const [path, methods] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(methods)) {
      const documented = new Set(Object.keys(op.responses ?? {}));
      const params: Array<{ name: string; in: string; schema: Schema }> = op.parameters ?? [];
      const pathValues = Object.fromEntries(
        params
          .filter((p) => p.in === "path")
          .map((p) => [p.name, plainString(p.schema ?? {}, bases, p.name)]),
      );
      const content = op.requestBody?.content?.["application/json"];
      const body = content
        ? adapt(content.example ?? least(content.schema, bases, resolve), bases)
        : undefined;
      const call = (values: Record<string, string>, query: string, b: Json, where: HostileCall["where"]) => {
        const filled = path.replace(/\{(\w+)\}/g, (_, n) => encode(values[n] ?? "x"));
        calls.push({
          operationId: op.operationId,
          method: method.toUpperCase(),
          url: `${filled}${query}`,
          ...(b !== undefined ? { body: JSON.stringify(b) } : {}),
          where,
          documented,
        });
      };
      for (const p of params) {
        if (!types(resolve(p.schema ?? {})).includes("string")) continue;
        const base = p.in === "path" ? pathValues[p.name]! : plainString(p.schema ?? {}, bases, p.name);
        for (const make of Object.values(HOSTILE)) {
          const value = make(base);
          if (p.in === "path")
            call({ ...pathValues, [p.name]: value }, "", body, { in: "path", field: p.name, value });
          else if (p.in === "query")
            call(pathValues, `?${p.name}=${encode(value)}`, body, { in: "query", field: p.name, value });
        }
      }
      if (!content) continue;
      for (const slot of distinct(slots(content.schema, body, (v) => v, [], bases, resolve))) {
        for (const make of Object.values(HOSTILE)) {
          const value = make(slot.base);
          call(pathValues, "", slot.set(value), { in: "body", field: slot.field, value });
        }
      }
    }
  }
  return calls;
}
