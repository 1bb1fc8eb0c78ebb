import { decodeJson, JOBS_WAKE_SUBJECT, SESSION_ENDED_SUBJECT } from "@browserfleet/bus";
import { checkReceived, sessionEnded } from "@browserfleet/contracts";
import type { Subscription } from "@nats-io/transport-node";
import type { ApiContext } from "../context.ts";
import { knownSessions } from "./known-sessions.ts";
import { endSession, type SessionRow } from "./store.ts";

/**
 * What follows a session's end, whoever recorded it: counted, and when it has a webhook, the jobs program
 * (which sends the outbox's events) is woken for its session.closed.
 */
export function noteEnded(ctx: ApiContext, done: { row: SessionRow; changed: boolean } | undefined): void {
  // An ended session takes no act again: what this replica's acts remembered of it is dead weight.
  if (done) knownSessions(ctx).forget(done.row.id);
  if (!done?.changed) return;
  ctx.metrics.sessionsEnded.inc({ status: done.row.status });
  if (done.row.webhook) ctx.nc.publish(JOBS_WAKE_SUBJECT);
}

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
        .then((done) => noteEnded(ctx, done))
        .catch((error) =>
          console.error(`session ${e.sessionId} end not recorded: ${(error as Error).message}`),
        );
    },
  });
}
