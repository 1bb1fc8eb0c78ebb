import type { Router } from "express";
import type { z } from "zod";
import { ApiError } from "../errors.ts";
import { parseBody } from "../validate.ts";

/**
 * Routes of the interface whose work is not built yet. They validate their input with the
 * real contracts (so callers get the same 400s they will get later) and then answer 501.
 */
const POSTS: Array<[string, z.ZodType]> = [];

const notYet = (method: string, path: string) =>
  new ApiError(
    "not_implemented",
    `${method} ${path} is part of the interface but not available on this deployment yet`,
  );

export function mountPending(router: Router): void {
  for (const [path, schema] of POSTS) {
    router.post(path, (req) => {
      parseBody(schema, req.body);
      throw notYet("POST", path);
    });
  }
}
