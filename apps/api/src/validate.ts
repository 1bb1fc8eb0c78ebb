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
