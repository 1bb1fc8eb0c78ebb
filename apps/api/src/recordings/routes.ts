import { pipeline } from "node:stream/promises";
import { createGunzip, createGzip } from "node:zlib";
import type { NextFunction, Request, Response, Router } from "express";
import type { ApiContext } from "../context.ts";
import { ApiError } from "../errors.ts";
import { findSession, type SessionRow } from "../sessions/store.ts";
import { pageHtml, REPLAY_CSP, sendPage } from "../web-ui/serve.ts";
import { RECORDINGS_ROUTE } from "./links.ts";
import { partsOf } from "./store.ts";
import { readRecordingToken } from "./token.ts";

const refused = () =>
  new ApiError(
    "not_found",
    "no recording at this link: it expired and was deleted, or it is not one this api gave out",
  );

/** The session of a recording link that is valid and not expired; 404 otherwise. */
async function recordedSession(ctx: ApiContext, token: string): Promise<SessionRow> {
  const grant = readRecordingToken(await ctx.artifacts.secret(), token);
  if (!grant) throw refused();
  const row = await findSession(ctx.db.db, grant.sessionId);
  if (!row?.recordingExpiresAt || row.recordingExpiresAt.getTime() <= Date.now()) throw refused();
  return row;
}

/**
 * A session's recording, for whoever holds its URL (a capability, no key):
 * - GET /recordings/<token>: the replay page (rrweb's replayer, the actions as steps to jump to);
 * - GET /recordings/<token>/events: the recording so far, newline-delimited rrweb events, in order
 *   (gzip when the client takes it: the parts are stored compressed, but as several gzip members, which
 *   browsers do not read past the first, so they are joined into one).
 */
export function mountRecordings(router: Router, ctx: ApiContext): void {
  const pageRefused = (res: Response, err: unknown, next: NextFunction) => {
    if (!(err instanceof ApiError) || err.status !== 404) return next(err);
    sendPage(res, 404, pageHtml("replay", "Session recording", { refused: "invalid" }), REPLAY_CSP);
  };

  router.get(`${RECORDINGS_ROUTE}/:token`, async (req, res, next) => {
    try {
      const row = await recordedSession(ctx, String(req.params.token));
      sendPage(
        res,
        200,
        pageHtml("replay", "Session recording", {
          session: row.id,
          status: row.status === "open" ? "recording" : "ended",
        }),
        REPLAY_CSP,
      );
    } catch (err) {
      pageRefused(res, err, next);
    }
  });

  router.get(`${RECORDINGS_ROUTE}/:token/events`, async (req, res, next) => {
    let row: SessionRow;
    try {
      row = await recordedSession(ctx, String(req.params.token));
    } catch (err) {
      return next(err);
    }
    await sendEvents(ctx, row, req, res).catch((err) => {
      console.error(`recording of ${row.id} not sent: ${(err as Error).message}`);
      if (!res.headersSent) next(err);
      else res.destroy();
    });
  });
}

async function sendEvents(ctx: ApiContext, row: SessionRow, req: Request, res: Response): Promise<void> {
  const parts = await partsOf(ctx.db.db, row.id);
  const store = ctx.artifacts.store();
  const gzip = /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
  res.status(200);
  res.setHeader("Content-Type", "application/x-ndjson; charset=utf-8");
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "no-referrer");
  if (gzip) res.setHeader("Content-Encoding", "gzip");
  res.setHeader("Vary", "Accept-Encoding");
  async function* stored() {
    for (const p of parts) {
      const file = await store.get(p.key);
      // A part noted but not stored (its worker will send it again): the replay goes on without it.
      if (file) yield file.body;
    }
  }
  if (parts.length === 0) {
    res.end();
    return;
  }
  await (gzip
    ? pipeline(stored(), createGunzip(), createGzip(), res)
    : pipeline(stored(), createGunzip(), res));
}
