import { decodeJson, SESSION_ENDED_SUBJECT } from "@browserfleet/bus";
import type { SessionEnded } from "@browserfleet/contracts";
import type { Subscription } from "@nats-io/transport-node";
import type { ApiContext } from "../context.ts";
import { endSession } from "./store.ts";

/**
 * Record sessions that end on their worker (idle timeout, maximum lifetime, browser lost, closed).
 * One api replica takes each event (queue group); one that is missed is caught by the overdue sweep.
 */
export function recordEndedSessions(ctx: ApiContext): Subscription {
  return ctx.nc.subscribe(SESSION_ENDED_SUBJECT, {
    queue: "api",
    callback: (err, msg) => {
      if (err) return;
      const e = decodeJson<SessionEnded>(msg.data);
      endSession(ctx.db.db, e.sessionId, e.reason, new Date(e.at))
        .then((done) => {
          if (done?.changed) ctx.metrics.sessionsEnded.inc({ status: done.row.status });
        })
        .catch((error) =>
          console.error(`session ${e.sessionId} end not recorded: ${(error as Error).message}`),
        );
    },
  });
}
