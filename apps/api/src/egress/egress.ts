import type { EgressPool } from "@browserfleet/config";
import type { ScrapeRequest } from "@browserfleet/contracts";
import { chooseEgress, EgressRefused, type EgressSettings, poolOf } from "@browserfleet/egress";
import type { ApiContext } from "../context.ts";
import { ApiError } from "../errors.ts";
import { proxies } from "../operations/proxies.ts";
import { precheckUrl } from "../operations/shared.ts";

export const egressSettings = (ctx: Pick<ApiContext, "config">): EgressSettings => ({
  pools: ctx.config.EGRESS_PROXIES,
  callerProxies: ctx.config.CALLER_PROXIES === "on",
});

/**
 * The pool a render request goes out through (undefined: directly, or the caller's own proxy), checked
 * before any quote: an unknown pool is 400, a caller's own proxy where the operator allows none is 403,
 * and one in private, loopback or cluster space is 400 ssrf_blocked (the worker checks it again).
 */
export async function egressPoolFor(
  ctx: Pick<ApiContext, "config" | "guard">,
  req: Pick<ScrapeRequest, "proxy" | "location">,
): Promise<EgressPool | undefined> {
  let egress: ReturnType<typeof chooseEgress>;
  try {
    egress = chooseEgress(req, egressSettings(ctx));
  } catch (err) {
    if (err instanceof EgressRefused) {
      const message = `${err.message} (GET ${proxies.path} lists the pools)`;
      throw new ApiError(err.code, message, [{ field: "proxy", message: err.message }]);
    }
    throw err;
  }
  if (egress.kind === "own") await precheckUrl(ctx, egress.proxy.server, "proxy.server");
  return poolOf(egress);
}
