import { randomUUID } from "node:crypto";
import { decodeJson, encodeJson, sessionSubject } from "@browserfleet/bus";
import { LIVE_WATCH_EVERY_MS, type LiveInputReply, liveInput } from "@browserfleet/contracts";
import type { NextFunction, Request, Response, Router } from "express";
import type { ApiContext } from "../context.ts";
import { ApiError } from "../errors.ts";
import { ended, isNoResponders } from "../operations/live-sessions.ts";
import { findSession } from "../sessions/store.ts";
import { parseBody } from "../validate.ts";
import { pageHtml, sendPage } from "../web-ui/serve.ts";
import { LIVE_ROUTE } from "./links.ts";
import { type LiveGrant, readLiveToken } from "./token.ts";

/** A viewer whose connection takes frames slower than they come skips frames past this much unsent. */
const MAX_UNSENT_BYTES = 1024 * 1024;
/** Inputs of one live view per second (a person types and clicks far slower; a script would not). */
const INPUTS_PER_SECOND = 30;

const refused = () =>
  new ApiError("not_found", "no live view at this link: it expired, or it is not one this api gave out");

/** The grant of a token whose session is still open; throws 404 (bad or expired link) or 410 (ended). */
async function grantOf(ctx: ApiContext, token: string): Promise<LiveGrant> {
  const grant = readLiveToken(await ctx.artifacts.secret(), token);
  if (!grant) throw refused();
  const row = await findSession(ctx.db.db, grant.sessionId);
  if (!row) throw refused();
  if (row.status !== "open") throw ended(row);
  return grant;
}

/** Inputs per live view, counted per second on this replica. */
class InputBudget {
  readonly #used = new Map<string, { second: number; n: number }>();
  take(sessionId: string): boolean {
    const second = Math.floor(Date.now() / 1000);
    const u = this.#used.get(sessionId);
    if (!u || u.second !== second) {
      if (this.#used.size > 10_000) this.#used.clear();
      this.#used.set(sessionId, { second, n: 1 });
      return true;
    }
    return ++u.n <= INPUTS_PER_SECOND;
  }
}

/**
 * A session's live view, for whoever holds its URL (a capability, no key):
 * - GET /live/<token>: the viewer page;
 * - GET /live/<token>/events: server-sent events relayed from the worker holding the session (frames,
 *   the page's URL and title, actions, the end), through the bus, so any api replica serves any session;
 * - POST /live/<token>/input: in interactive mode, a click, text, a key or a scroll for the page.
 * Server-sent events and plain POSTs, not a WebSocket: they pass every HTTP proxy and ingress as they are,
 * a browser reconnects an event stream by itself, and a person's input is a few requests a second.
 */
export function mountLiveView(router: Router, ctx: ApiContext): void {
  const budget = new InputBudget();
  const pageRefused = (res: Response, err: unknown, next: NextFunction) => {
    if (!(err instanceof ApiError) || (err.status !== 404 && err.status !== 410)) return next(err);
    sendPage(
      res,
      err.status,
      pageHtml("viewer", "Live view", { refused: err.status === 410 ? "ended" : "invalid" }),
    );
  };

  router.get(`${LIVE_ROUTE}/:token`, async (req, res, next) => {
    try {
      const grant = await grantOf(ctx, String(req.params.token));
      sendPage(res, 200, pageHtml("viewer", "Live view", { mode: grant.mode }));
    } catch (err) {
      pageRefused(res, err, next);
    }
  });

  router.get(`${LIVE_ROUTE}/:token/events`, async (req, res, next) => {
    let grant: LiveGrant;
    try {
      grant = await grantOf(ctx, String(req.params.token));
    } catch (err) {
      return next(err);
    }
    relayEvents(ctx, grant, req, res);
  });

  router.post(`${LIVE_ROUTE}/:token/input`, async (req, res, next) => {
    try {
      const grant = await grantOf(ctx, String(req.params.token));
      if (grant.mode !== "interactive")
        throw new ApiError(
          "live_view_only",
          'this live view only watches: open the session with liveView "interactive" to control it from here',
        );
      const input = parseBody(liveInput, req.body);
      if (!budget.take(grant.sessionId))
        throw new ApiError("rate_limited", `at most ${INPUTS_PER_SECOND} inputs a second`, undefined, {
          "Retry-After": "1",
        });
      let reply: LiveInputReply;
      try {
        const msg = await ctx.nc.request(
          sessionSubject(grant.sessionId, "live"),
          encodeJson({ kind: "input", input }),
          { timeout: 10_000 },
        );
        reply = decodeJson(msg.data) as LiveInputReply;
      } catch (err) {
        if (!isNoResponders(err)) throw err;
        const row = await findSession(ctx.db.db, grant.sessionId);
        throw row ? ended({ ...row, status: row.status === "open" ? "closed" : row.status }) : refused();
      }
      if (!reply.ok)
        throw new ApiError("invalid_request", `the page did not take this input: ${reply.message}`, [
          { field: input.type === "press" ? "key" : "", message: reply.message },
        ]);
      res.json({ success: true });
    } catch (err) {
      next(err);
    }
  });
}

function relayEvents(ctx: ApiContext, grant: LiveGrant, req: Request, res: Response): void {
  const id = grant.sessionId;
  const viewer = randomUUID();
  res.status(200);
  res.setHeader("Content-Type", "text/event-stream");
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("X-Accel-Buffering", "no");
  res.flushHeaders();
  ctx.metrics.liveViewers.inc();
  let done = false;
  let timer: NodeJS.Timeout | undefined;
  const send = (event: string, data: string) => {
    if (done) return;
    // A slow connection skips pictures (the next one shows the page as it is), never the rest.
    if (event === "frame" && res.writableLength > MAX_UNSENT_BYTES) return;
    res.write(`event: ${event}\ndata: ${data}\n\n`);
  };
  const finish = () => {
    if (done) return;
    done = true;
    clearInterval(timer);
    clearTimeout(expiry);
    sub.unsubscribe();
    if (!ctx.nc.isClosed()) ctx.nc.publish(sessionSubject(id, "live"), encodeJson({ kind: "leave", viewer }));
    ctx.metrics.liveViewers.dec();
    res.end();
  };
  // Subscribed before the first watch, so the picture that answers it is not missed.
  const sub = ctx.nc.subscribe(sessionSubject(id, "view"), {
    callback: (_e, m) => {
      const text = new TextDecoder().decode(m.data);
      const kind = /^\{"kind":"(\w+)"/.exec(text)?.[1];
      if (!kind) return;
      send(kind, text);
      if (kind === "ended") finish();
    },
  });
  const watch = async () => {
    try {
      await ctx.nc.request(sessionSubject(id, "live"), encodeJson({ kind: "watch", viewer }), {
        timeout: 5000,
      });
      if (!done) res.write(": watching\n\n");
    } catch (err) {
      if (!isNoResponders(err)) return;
      // Nobody holds the session any more: it ended (its end may not be recorded yet) or was lost.
      const row = await findSession(ctx.db.db, id).catch(() => undefined);
      send("ended", JSON.stringify({ kind: "ended", reason: row?.closeReason ?? "closed" }));
      finish();
    }
  };
  // The link stops at its expiry (the session's longest life) even if the session somehow outlives it.
  const expiry = setTimeout(finish, Math.max(0, grant.expires * 1000 - Date.now()));
  expiry.unref();
  req.on("close", finish);
  void watch();
  timer = setInterval(() => void watch(), LIVE_WATCH_EVERY_MS);
}
