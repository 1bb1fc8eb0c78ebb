import { newId } from "@browserfleet/billing";
import {
  type FeedbackRequest,
  type FeedbackResponse,
  feedbackRequest,
  feedbackResponse,
} from "@browserfleet/contracts";
import { schema } from "@browserfleet/db";
import type { Request } from "express";
import { clientAddress } from "../allowance/index.ts";
import type { ApiContext } from "../context.ts";
import { defineOperation } from "./operation.ts";

export const feedback = defineOperation({
  name: "feedback",
  method: "POST",
  path: "/web/v1/feedback",
  summary: "Tell the operators about a wrong result, a price, a bug or a wish (free, no key needed)",
  request: feedbackRequest,
  response: feedbackResponse,
  free: {
    tags: ["operations"],
    ok: "Stored (a key, when sent, is recorded with it)",
    errors: [400, 413, 429],
  },
  tool: {
    name: "web_feedback",
    title: "Send feedback to the operators",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    description:
      "Tell the operators about a wrong or poor result, a price that looks wrong, a bug or a wish (free, no key needed). Name the url, requestId, jobId or sessionId it is about so they can find it.",
  },
  run: (ctx, body, call) => recordFeedback(ctx, call.http, body),
});

/**
 * Free for everyone, keyed or not: what a caller tells us about a result, a price or a bug, kept with
 * the account (or the keyless client's address) so support can find the calls it names.
 */
async function recordFeedback(
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
