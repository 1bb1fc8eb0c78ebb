import { decodeJson, SESSION_ENDED_SUBJECT } from "@browserfleet/bus";
import { checkReceived, sessionEnded } from "@browserfleet/contracts";
import type { Subscription } from "@nats-io/transport-node";
import type { ApiContext } from "../context.ts";
import { endSession } from "./store.ts";

/**
 * Record sessions that end on their worker (idle timeout, maximum lifetime, browser lost, closed).
 * One api replica takes each event (queue group); one that is missed is caught by the overdue sweep, and
 * so is one that does not match the contract (counted and logged, not recorded).
 */
export function recordEndedSessions(ctx: ApiContext): Subscription {
  return ctx.nc.subscribe(SESSION_ENDED_SUBJECT, {
    queue: "api",
    callback: (err, msg) => {
      if (err) return;
      let value: unknown;
      try {
        value = decodeJson<unknown>(msg.data);
      } catch {
        value = undefined;
      }
      const checked = checkReceived(sessionEnded, "session ended event", value);
      if (!checked.ok) {
        ctx.metrics.malformedMessages.inc({ kind: "session_ended" });
        console.error(checked.problem);
        return;
      }
      const e = checked.value;
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
