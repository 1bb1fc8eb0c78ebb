import { accountSessions as sessionsOf } from "@browserfleet/billing";
import { sessionsPageQuery, sessionsView } from "@browserfleet/contracts";
import { publicBase } from "../answers/artifacts.ts";
import { liveViewUrl } from "../live/links.ts";
import { recordingInfoOf } from "../recordings/info.ts";
import { recordingSummaries } from "../recordings/store.ts";
import { parseQuery } from "../validate.ts";
import { account } from "./account.ts";
import { money, requireKey, accountView as view } from "./account-access.ts";
import { defineOperation } from "./operation.ts";
import { timeCursor } from "./shared.ts";

export const accountSessions = defineOperation({
  name: "accountSessions",
  method: "GET",
  path: `${account.path}/sessions`,
  summary: "Open and recent live sessions",
  query: sessionsPageQuery,
  response: sessionsView,
  free: view("Open and recent live sessions", "AccountSessions"),
  fromHttp: (http) => http.query as unknown,
  run: async (ctx, query, { caller }) => {
    const base = publicBase(ctx.config, caller.baseUrl);
    const auth = requireKey(caller);
    const q = parseQuery(sessionsPageQuery, query);
    await ctx.leases.flush(auth.accountId);
    const cursor = timeCursor(q.cursor);
    const page = await sessionsOf(ctx.db.db, auth.accountId, {
      limit: q.limit,
      ...(cursor ? { before: { openedAt: cursor.at, id: cursor.id } } : {}),
    });
    const recorded = await recordingSummaries(
      ctx.db.db,
      page.sessions.filter((s) => s.recordingExpiresAt).map((s) => s.id),
    );
    return {
      sessions: await Promise.all(
        page.sessions.map(async (s) => ({
          sessionId: s.id,
          status: s.status,
          url: s.url,
          openedAt: s.openedAt.toISOString(),
          lastActiveAt: s.lastActiveAt?.toISOString() ?? null,
          expiresAt: s.status === "open" ? (s.expiresAt?.toISOString() ?? null) : null,
          closedAt: s.closedAt?.toISOString() ?? null,
          closeReason: s.closeReason,
          actions: s.actions,
          minutes: s.billedMinutes,
          charged: money(s.chargedMicros),
          held: money(s.heldMicros),
          ...(s.status === "open" && s.liveView
            ? {
                liveViewUrl: await liveViewUrl(ctx, base, {
                  id: s.id,
                  mode: s.liveView,
                  openedAt: s.openedAt,
                }),
              }
            : {}),
          ...(s.recordingExpiresAt
            ? { recording: await recordingInfoOf(ctx, base, s, recorded.get(s.id)) }
            : {}),
        })),
      ),
      next: page.next ? `${page.next.openedAt.toISOString()}~${page.next.id}` : null,
    };
  },
});
