import type { Router } from "express";
import { restCaller } from "../billing/payment.ts";
import type { ApiContext } from "../context.ts";
import { cachedJson } from "../describe.ts";
import { OPERATIONS } from "../operations/index.ts";
import { expressPath } from "../operations/operation.ts";
import { ParsedBodies } from "../validate.ts";

const METHOD = { GET: "get", POST: "post", DELETE: "delete" } as const;

/** Every operation on its REST route: the input from the body (or the path and query), then its handler. */
export function mountOperations(router: Router, ctx: ApiContext): void {
  for (const op of OPERATIONS) {
    const { request, fromHttp } = op;
    if (!fromHttp && !request) throw new Error(`operation ${op.name} reads neither a body nor the path`);
    const bodies = request ? new ParsedBodies(request) : undefined;
    router[METHOD[op.method]](expressPath(op.path), async (req, res, next) => {
      const input = fromHttp ? fromHttp(req, ctx) : bodies!.parse(req.body, req.rawBody);
      const result = await op.run(ctx, input, { caller: restCaller(ctx, req, res), http: req });
      if (op.free?.cacheable) cachedJson(result)(req, res, next);
      else res.json(result);
    });
  }
}
