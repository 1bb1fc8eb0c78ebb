import type { PaymentSetup } from "@browserfleet/contracts";
import type { RequestHandler, Router } from "express";
import type { ApiContext } from "../context.ts";
import { cachedJson, describeRoute } from "../describe.ts";
import { PRICED_OPERATIONS } from "../operations/index.ts";
import { expressPath, pathParams } from "../operations/operation.ts";

/**
 * GET on every priced operation's path: its free, cacheable self-description. A path with a parameter
 * (search's `{provider}`) is described per value, with what the operation adds for it (or its 404).
 */
export function mountDescriptions(router: Router, ctx: ApiContext, setup: PaymentSetup): void {
  for (const op of PRICED_OPERATIONS) {
    const names = pathParams(op.path);
    if (names.length === 0) {
      router.get(op.path, cachedJson(describeRoute(op, setup)));
      continue;
    }
    const described = new Map<string, RequestHandler>();
    router.get(expressPath(op.path), (req, res, next) => {
      const params = Object.fromEntries(names.map((n) => [n, String(req.params[n])]));
      const path = names.reduce((p, n) => p.replace(`{${n}}`, params[n]!), op.path);
      let handler = described.get(path);
      if (!handler) {
        const { describePath } = op.priced;
        // describePath throws for a value this deployment does not have (an unknown provider: 404), so
        // only the values it knows are kept.
        handler = cachedJson({ ...describeRoute(op, setup, path), ...describePath?.(ctx, params) });
        if (describePath) described.set(path, handler);
      }
      handler(req, res, next);
    });
  }
}
