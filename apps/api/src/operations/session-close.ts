import { sessionCloseResponse, sessionId } from "@browserfleet/contracts";
import { z } from "zod";
import type { Caller } from "../billing/payment.ts";
import type { ApiContext } from "../context.ts";
import { noteEnded } from "../sessions/ended-events.ts";
import { endSession } from "../sessions/store.ts";
import { closeOnWorker, ended, markGone, ownedSession } from "./live-sessions.ts";
import { defineOperation } from "./operation.ts";

type CloseResponse = z.infer<typeof sessionCloseResponse>;

export const sessionClose = defineOperation({
  name: "sessionClose",
  method: "DELETE",
  path: "/web/v1/session/{id}",
  summary: "Close a live session and free its browser slot (free, idempotent)",
  params: { id: "The sessionId" },
  request: z.strictObject({ sessionId: sessionId() }),
  response: sessionCloseResponse,
  free: {
    tags: ["operations"],
    auth: "any",
    ok: "Closed",
    errors: [401, 404, 429, 410],
    responseName: "SessionClose",
  },
  tool: {
    name: "web_session_close",
    title: "Close a browser session",
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    description: "Close a browser session and free its browser at once (free; closing twice is fine).",
  },
  fromHttp: (http) => ({ sessionId: String(http.params.id) }),
  run: (ctx, input, call) => closeSession(ctx, input.sessionId, call.caller),
});

/**
 * Close a session: frees its slot at once. Closing a closed or expired session again answers the same;
 * a session whose browser is gone answers 410 session_lost.
 */
async function closeSession(ctx: ApiContext, id: string, caller: Caller): Promise<CloseResponse> {
  // Acts paid from this api's balance lease write their records in its batches: write them before the end.
  if (caller.auth) await ctx.leases.flush(caller.auth.accountId);
  let row = await ownedSession(ctx, id, caller);
  let profile: CloseResponse["profile"];
  if (row.status === "open") {
    const reply = await closeOnWorker(ctx, id);
    if (!reply) throw ended(await markGone(ctx, row));
    profile = reply.profile;
    const done = await endSession(ctx.db.db, id, "closed", new Date(reply.closedAt));
    noteEnded(ctx, done);
    if (done) row = done.row;
  }
  if (row.status === "lost" || row.status === "open") throw ended({ ...row, status: "lost" });
  return {
    success: true,
    sessionId: id,
    status: row.status,
    closedAt: (row.closedAt ?? new Date()).toISOString(),
    ...(profile ? { profile } : {}),
  };
}
