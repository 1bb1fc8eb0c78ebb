import { hourAfter } from "@browserfleet/artifacts";
import { encodeJson, RECORDING_SAVE_SUBJECT, SESSION_ID_PATTERN } from "@browserfleet/bus";
import { RECORDING_HEADERS, type RecordingPartSaved } from "@browserfleet/contracts";
import type { Msg, Subscription } from "@nats-io/transport-node";
import type { ApiContext } from "../context.ts";
import { findSession } from "../sessions/store.ts";
import { notePart } from "./store.ts";

/**
 * Store the parts of recordings as workers send them: each goes to the artifacts store, in the hour folder
 * after its recording expires, and is noted under its session. A part is taken only for a session opened
 * with record (its row says so, never the message) while its recording lasts. One api replica takes each.
 */
export function serveRecordingParts(ctx: ApiContext): Subscription {
  return ctx.nc.subscribe(RECORDING_SAVE_SUBJECT, {
    queue: "api",
    callback: (err, msg) => {
      if (err) return;
      void answer(ctx, msg).then((reply) => {
        ctx.metrics.recordingParts.inc({ outcome: reply.ok ? "stored" : outcomeOf(reply) });
        msg.respond(encodeJson(reply));
      });
    },
  });
}

const outcomeOf = (r: Extract<RecordingPartSaved, { ok: false }>) =>
  r.message.startsWith("full") ? "full" : r.stop ? "refused" : "failed";

async function answer(ctx: ApiContext, msg: Msg): Promise<RecordingPartSaved> {
  const h = (name: string) => msg.headers?.get(name) ?? "";
  const sessionId = h(RECORDING_HEADERS.session);
  const numbers = [
    RECORDING_HEADERS.seq,
    RECORDING_HEADERS.events,
    RECORDING_HEADERS.from,
    RECORDING_HEADERS.to,
  ].map((n) => Number(h(n) || Number.NaN));
  const [seq, events, from, to] = numbers as [number, number, number, number];
  if (!SESSION_ID_PATTERN.test(sessionId) || numbers.some((n) => !Number.isSafeInteger(n) || n < 0)) {
    ctx.metrics.malformedMessages.inc({ kind: "recording_part" });
    return { ok: false, stop: true, message: "a recording part without its session, number or times" };
  }
  try {
    const row = await findSession(ctx.db.db, sessionId);
    // Not there yet: its open's answer is still on its way to the api that writes the row. Sent again.
    if (!row) return { ok: false, stop: false, message: "no such session yet" };
    const expiresAt = row.recordingExpiresAt;
    if (!expiresAt || expiresAt.getTime() <= Date.now())
      return { ok: false, stop: true, message: "this session is not recorded" };
    const key = `${hourAfter(expiresAt.getTime())}/${sessionId}-${seq}.rrweb`;
    const body = Buffer.from(msg.data);
    const noted = await notePart(
      ctx.db.db,
      {
        sessionId,
        seq,
        key,
        bytes: body.byteLength,
        events,
        fromAt: new Date(from),
        toAt: new Date(to),
        final: h(RECORDING_HEADERS.final) === "1",
      },
      ctx.config.RECORDING_MAX_BYTES,
    );
    if (noted === "full")
      return {
        ok: false,
        stop: true,
        message: `full: the recording reached RECORDING_MAX_BYTES (${ctx.config.RECORDING_MAX_BYTES})`,
      };
    // Noted first, stored second: a row whose file is missing reads as a gap in the replay, and the
    // worker sends the part again when the store failed (its row is kept once).
    await ctx.artifacts.store().put(key, body, "application/gzip");
    return { ok: true };
  } catch (err) {
    console.error(`recording part ${seq} of ${sessionId} not stored: ${(err as Error).message}`);
    return { ok: false, stop: false, message: "the part could not be stored; send it again" };
  }
}
