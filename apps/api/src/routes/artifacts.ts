import { verifySignedName } from "@browserfleet/artifacts";
import type { Router } from "express";
import type { ApiContext } from "../context.ts";
import { ApiError } from "../errors.ts";
import { ARTIFACTS_ROUTE } from "../operations/artifacts.ts";

/**
 * GET <ARTIFACTS_ROUTE>?e=<expiry>&s=<signature>: a file given out with binaryAs "url",
 * without a key. A link that was changed, has expired or names no file gets the same 404, which says
 * nothing of which it was.
 */
export function mountArtifacts(router: Router, ctx: ApiContext): void {
  router.get(ARTIFACTS_ROUTE, async (req, res, next) => {
    try {
      const key = `${req.params.hour}/${req.params.file}`;
      const gone = () =>
        new ApiError(
          "not_found",
          "no file at this link: it expired, or the link is not one this api gave out",
        );
      const secret = await ctx.artifacts.secret();
      if (!verifySignedName(secret, { key, expires: req.query.e, signature: req.query.s })) throw gone();
      let file: Awaited<ReturnType<ReturnType<typeof ctx.artifacts.store>["get"]>>;
      try {
        file = await ctx.artifacts.store().get(key);
      } catch (err) {
        console.error(`artifact store read failed: ${(err as Error).message}`);
        throw new ApiError("unavailable", "the file store did not answer: try again shortly");
      }
      if (!file) throw gone();
      const left = Math.max(0, Number(req.query.e) - Math.floor(Date.now() / 1000));
      res.setHeader("Content-Type", file.contentType);
      res.setHeader("Content-Length", String(file.body.length));
      res.setHeader("Cache-Control", `private, max-age=${left}, immutable`);
      res.setHeader("X-Content-Type-Options", "nosniff");
      res.setHeader("Content-Disposition", "inline");
      res.end(file.body);
    } catch (err) {
      next(err);
    }
  });
}
