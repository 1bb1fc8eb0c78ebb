import { OPERATION_ROUTES, type PaymentSetup } from "@browserfleet/contracts";
import type { Router } from "express";
import { cachedJson, describeRoute } from "../describe.ts";

/** GET on every operation route: its free, cacheable self-description. */
export function mountDescriptions(router: Router, setup: PaymentSetup): void {
  for (const route of OPERATION_ROUTES) {
    if (route.path.includes("{provider}")) {
      router.get("/web/v1/search/:provider", (req, res, next) =>
        cachedJson(describeRoute(route, setup, `/web/v1/search/${req.params.provider}`))(req, res, next),
      );
    } else {
      router.get(route.path, cachedJson(describeRoute(route, setup)));
    }
  }
}
