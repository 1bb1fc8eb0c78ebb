import { newId } from "@browserfleet/billing";
import { type FeedbackRequest, type FeedbackResponse, feedbackRequest } from "@browserfleet/contracts";
import { schema } from "@browserfleet/db";
import type { Request, Router } from "express";
import { clientAddress } from "../allowance/index.ts";
import type { ApiContext } from "../context.ts";
import { parseBody } from "../validate.ts";

/**
 * Free for everyone, keyed or not: what a caller tells us about a result, a price or a bug, kept with
 * the account (or the keyless client's address) so support can find the calls it names.
 */
export async function recordFeedback(
  ctx: ApiContext,
  req: Request,
  body: FeedbackRequest,
): Promise<FeedbackResponse> {
  const id = newId("fb");
  const [row] = await ctx.db.db
    .insert(schema.feedback)
    .values({
      id,
      accountId: req.auth?.accountId ?? null,
      client: req.auth ? null : clientAddress(req, ctx.config.TRUSTED_PROXY_HOPS),
      category: body.category,
      message: body.message,
      url: body.url ?? null,
      requestId: body.requestId ?? req.requestId,
      jobId: body.jobId ?? null,
      sessionId: body.sessionId ?? null,
    })
    .returning({ createdAt: schema.feedback.createdAt });
  ctx.metrics.feedback.inc({ category: body.category });
  return { success: true, feedbackId: id, receivedAt: (row?.createdAt ?? new Date()).toISOString() };
}

export function mountFeedback(router: Router, ctx: ApiContext): void {
  router.post("/web/v1/feedback", async (req, res) => {
    res.json(await recordFeedback(ctx, req, parseBody(feedbackRequest, req.body)));
  });
}
