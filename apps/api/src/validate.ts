import type { z } from "zod";
import { ApiError } from "./errors.ts";

export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  if (body === undefined || body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new ApiError("invalid_request", "the body must be a JSON object", [
      { field: "", message: "expected a JSON object" },
    ]);
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw ApiError.invalid(parsed.error);
  return parsed.data;
}

export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.infer<S> {
  const parsed = schema.safeParse(query ?? {});
  if (!parsed.success) throw ApiError.invalid(parsed.error);
  return parsed.data;
}

/** Bodies longer than this are parsed every time (an agent's repeated calls are short). */
const REMEMBER_MAX_BYTES = 4096;

/**
 * One route's valid bodies, parsed once: an agent polling the same cached scrape sends the same bytes
 * again and again, and validating them is a tenth of such a call's CPU. The parsed request is frozen
 * (deeply), the same object for every call with those bytes, so no handler can change what the next
 * call reads; a handler that tried would throw. Bodies that fail validation are not remembered.
 */
export class ParsedBodies<S extends z.ZodType> {
  readonly #known = new Map<string, z.infer<S>>();
  constructor(
    private readonly schema: S,
    private readonly max = 1000,
  ) {}

  parse(body: unknown, raw: Buffer | undefined): z.infer<S> {
    if (raw === undefined || raw.length > REMEMBER_MAX_BYTES) return parseBody(this.schema, body);
    const text = raw.toString("latin1");
    const known = this.#known.get(text);
    if (known !== undefined) {
      // Map order is the eviction order: a body seen again moves to the back.
      this.#known.delete(text);
      this.#known.set(text, known);
      return known;
    }
    const parsed = deepFreeze(parseBody(this.schema, body));
    if (this.#known.size >= this.max) this.#known.delete(this.#known.keys().next().value as string);
    this.#known.set(text, parsed);
    return parsed;
  }
}

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
  return value;
}

declare global {
  namespace Express {
    interface Request {
      /** The body's bytes as received (kept by the JSON parser in app.ts). */
      rawBody?: Buffer;
    }
  }
}
