import { encodeJson, sessionSubject } from "@browserfleet/bus";
import {
  type ActRequest,
  type ActResponse,
  actRequest,
  actResponse,
  type SessionActMessage,
  sessionActReply,
} from "@browserfleet/contracts";
import { definePrice, line, PRICES, sessionMinutesDue, total, usd } from "@browserfleet/pricing";
import { budgetDeps, fitAnswer } from "@browserfleet/render-cache";
import type { Msg } from "@nats-io/transport-node";
import { ever } from "../allowance/index.ts";
import { filesByUrl, publicBase } from "../answers/artifacts.ts";
import { renderOwnerOf } from "../answers/render-owner.ts";
import { type Caller, type Payer, payFor } from "../billing/payment.ts";
import { readReply } from "../bus-replies.ts";
import type { ApiContext } from "../context.ts";
import { ApiError } from "../errors.ts";
import { type KnownSession, knownSessions } from "../sessions/known-sessions.ts";
import { actRecord, claimMinutes, findSession, type SessionRow, unclaimMinutes } from "../sessions/store.ts";
import { resolveUploads } from "../sessions/uploads.ts";
import { ended, isNoResponders, markGone, notFound, ownedSession } from "./live-sessions.ts";
import { defineOperation } from "./operation.ts";
import { precheckUrl, taskFailed } from "./shared.ts";

/** An act's price: its actions (those that ran, once it ran) and the session's minutes due. */
export const actPrice = definePrice<{ actions: number; minutesDue: number; recorded?: boolean }>({
  brief: `${usd(PRICES.action)} per action that ran, plus ${usd(PRICES.sessionMinute)} per minute open past the first`,
  words: `${usd(PRICES.action)} per action, plus ${usd(PRICES.sessionMinute)} per minute the session stays open past the first (each started minute is billed once), and ${usd(PRICES.recordingMinute)} more per such minute of a recorded session. A key, or a wallet paying with x402 upto, is charged for the actions that ran and the minutes; a wallet paying with x402 exact pays the whole quote, settled in full once any action ran.`,
  quote: ({ actions, minutesDue, recorded }) =>
    total([
      line("action", actions, PRICES.action),
      line("session minute past the first", minutesDue, PRICES.sessionMinute),
      line("recording minute", recorded ? minutesDue : 0, PRICES.recordingMinute),
    ]),
});
const allowance = ever("act", 10, {
  what: "an act",
  formats: [],
  units: (body) => (Array.isArray(body.actions) ? Math.max(1, body.actions.length) : 1),
});

export const act = defineOperation({
  name: "act",
  method: "POST",
  path: "/web/v1/act",
  summary:
    "Run 1 to 25 actions (type, press, click, select, wait, ...) in an open session and return the page state after them.",
  request: actRequest,
  response: actResponse,
  priced: {
    price: actPrice,
    allowance,
    payment: "any",
    limits: "1 to 25 actions per call.",
    example: { sessionId: "s_...", actions: [{ type: { ref: "e5", text: "alice" } }, { press: "Enter" }] },
    errors: [404, 410],
  },
  tool: {
    name: "web_act",
    title: "Act in a browser session",
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    description: `Run 1 to 25 actions in order in an open session, e.g. {type:{ref,text}}, {press:'Enter'}, {click:{ref}}, {select:{ref,values}}, {wait:{text}}, {scroll:{}}, {navigate:{url}}, {back:{}}, {dialog:{accept,promptText}} (answers the next alert/confirm/prompt), {tab:{id}} (switch to a tab a link or window.open opened; close:true closes it). Refs come from the latest controls map of the active tab; the first failing action stops the run. Returns what ran, the open tabs, the dialogs answered and the page's formats afterwards. ${actPrice.brief}. Keyless callers get ${allowance.limit} free actions in all.`,
  },
  run: (ctx, req, call) => paidAct(ctx, req, call.caller),
});

/** How long the api waits for a worker's answer to an act: its budget, and time to read the page after it. */
export const actWaitMs = (budgetMs: number) => budgetMs + 15_000;

/** Thrown by an act that finds no browser behind its session. */
const SESSION_GONE = new Error("the session's browser is gone");
const BUS_DROPPED = new Error("the bus connection dropped");
/** How long after the api's bus connection came back a worker may still be subscribing again. */
const RESUBSCRIBE_GRACE_MS = 10_000;

/**
 * Act on a live session: run the actions on the worker that holds it, charge what ran.
 *
 * A key's act on a session this api has acted on before goes straight to the worker: its quote comes
 * from what the api knew of the session, and is set aside from the replica's balance lease (no database
 * round trip before or after the work). Whether the session is still open is the worker's to say: a
 * session that ended has no worker answering for it, and only then is its row read, to tell why. The
 * minutes charged are the fewer of those quoted and those still unbilled (any others are billed by the
 * next act or the session's end, as when two acts race for them).
 */
async function paidAct(ctx: ApiContext, req: ActRequest, caller: Caller): Promise<ActResponse> {
  const started = performance.now();
  const known = knownSessions(ctx);
  const seen = caller.auth ? known.get(req.sessionId) : undefined;
  const early =
    seen !== undefined &&
    seen.accountId === caller.auth?.accountId &&
    !req.actions.some((a) => "navigate" in a);
  const checked = async () => {
    const row = await ownedSession(ctx, req.sessionId, caller);
    if (row.status !== "open") {
      known.forget(row.id);
      throw ended(row);
    }
    return row;
  };
  let row: SessionRow | undefined;
  if (!early) {
    row = await checked();
    for (const [i, a] of req.actions.entries())
      if ("navigate" in a) await precheckUrl(ctx, a.navigate.url, `actions.${i}.navigate.url`);
  }
  // File links become their bytes here: a bad one is refused before anything is charged.
  const uploads = await resolveUploads(ctx.artifacts, req.actions);
  const quotedFrom = row ?? (seen as KnownSession);
  const minutesDue = sessionMinutesDue(quotedFrom.openedAt, quotedFrom.billedMinutes, new Date());
  const recorded = quotedFrom.recordingExpiresAt !== null;
  const budget = ctx.config.ACT_TIMEOUT_MS;
  let result: ActResponse;
  try {
    result = await payFor(ctx, caller, {
      allowance,
      request: req,
      quote: actPrice.quote({ actions: req.actions.length, minutesDue, recorded }),
      description: `${req.actions.length} action(s) on session ${req.sessionId}`,
      holdMs: budget + 60_000,
      leased: early,
      work: async (payer) => {
        if (payer.kind === "wallet" && row?.payer !== payer.address.toLowerCase())
          throw notFound(req.sessionId);
        const current = row ?? quotedFrom;
        const { billedMinutes } = current;
        const due = Math.min(minutesDue, sessionMinutesDue(current.openedAt, billedMinutes, new Date()));
        const claimed =
          due > 0 && (await claimMinutes(ctx.db.db, current.id, billedMinutes, billedMinutes + due));
        const minutes = claimed ? due : 0;
        // Another api billed them: learn the session's row again for the next act's quote.
        if (due > 0 && !claimed && !row) void relearn(req.sessionId);
        else known.remember({ ...current, billedMinutes: billedMinutes + minutes });
        try {
          return await actOnWorker(minutes, payer);
        } catch (err) {
          // The minutes were not charged: the next act or the session's end bills them (so give them back
          // before a gone session's end is recorded).
          if (minutes > 0) {
            await unclaimMinutes(ctx.db.db, current.id, billedMinutes, billedMinutes + minutes);
            known.remember(current);
          }
          if (err === SESSION_GONE) {
            known.forget(current.id);
            throw ended(await markGone(ctx, row ?? (await checked())));
          }
          throw err;
        }
      },
    });
  } catch (err) {
    // Refused for the balance before the row was read: an ended session says so instead.
    if (!row && err instanceof ApiError && err.code === "insufficient_balance") await checked();
    throw err;
  }
  result.metadata.ms = Math.round(performance.now() - started);
  return result;

  async function relearn(id: string) {
    const found = await findSession(ctx.db.db, id).catch(() => undefined);
    if (found?.status === "open") known.remember(found);
    else known.forget(id);
  }

  async function actOnWorker(minutes: number, payer: Payer) {
    const message: SessionActMessage = {
      requestId: caller.requestId,
      actions: uploads,
      formats: req.formats,
      changesOnly: req.changesOnly,
      budgetMs: budget,
    };
    let received: Msg;
    // Sent while the connection is down, the act would be lost and waited for its whole budget.
    if (!ctx.busDrops.connected)
      throw new ApiError(
        "unavailable",
        "the connection to the sessions' browsers is being made again: the act was not sent and nothing was charged; act again in a moment",
      );
    const watching = new AbortController();
    try {
      const answer = ctx.nc.request(sessionSubject(req.sessionId, "act"), encodeJson(message), {
        timeout: actWaitMs(budget),
      });
      // A worker that vanished without closing its connection still "takes" the request: without this,
      // the act would wait its whole budget for an answer that cannot come.
      const workerId = quotedFrom.workerId;
      const gone = workerId
        ? ctx.workers.whenGone(workerId, watching.signal).then(() => {
            answer.catch(() => {});
            throw SESSION_GONE;
          })
        : undefined;
      // The bus connection dropped after the act was sent: its message or answer may be lost with the
      // server that held them. Answered at once (nothing charged; the session stays open) rather than
      // after the whole budget.
      const dropped = ctx.busDrops.next(watching.signal).then(() => {
        answer.catch(() => {});
        throw BUS_DROPPED;
      });
      received = await Promise.race(gone ? [answer, gone, dropped] : [answer, dropped]);
    } catch (err) {
      // Just after the bus came back, the session's worker may not have subscribed again yet.
      if (isNoResponders(err) && ctx.busDrops.reconnectedWithin(RESUBSCRIBE_GRACE_MS))
        throw new ApiError(
          "unavailable",
          "the session's browser is connecting to the bus again: nothing was sent or charged; act again in a moment",
        );
      if (err === SESSION_GONE || isNoResponders(err)) throw SESSION_GONE;
      if (err === BUS_DROPPED)
        throw new ApiError(
          "unavailable",
          "the connection to the session's browser dropped while it acted, and its answer may be lost: nothing was charged; the session is still open, so act again (check the page first: the actions may have run)",
        );
      if (/timeout/i.test(String((err as Error).message)))
        throw new ApiError("timeout", `the session's browser did not answer within ${actWaitMs(budget)} ms`);
      throw new ApiError("unavailable", `the bus is unreachable: ${(err as Error).message}`);
    } finally {
      watching.abort();
    }
    const reply = readReply(ctx.metrics, sessionActReply, "act", "act", received.data);
    if (!reply.ok) {
      if (reply.error.code === "session_lost") throw SESSION_GONE;
      throw taskFailed(reply.error);
    }
    if (req.binaryAs === "url")
      await filesByUrl(ctx.artifacts, reply.result, publicBase(ctx.config, caller.baseUrl));
    const ran = reply.result.actions.filter((a) => a.status === "ok").length;
    const charge = actPrice.quote({ actions: ran, minutesDue: minutes, recorded }).micros;
    // Written with the charge (for a key, in the statement that settles its hold), before the reply.
    const alongside = actRecord(ctx.db.db, req.sessionId, {
      actions: ran,
      chargedMicros: charge,
      expiresAt: new Date(reply.result.metadata.expiresAt),
    });
    // The largest format is the one cut (the controls map of a busy page, its text), the rest stay whole.
    const result = await fitAnswer(
      budgetDeps(ctx),
      reply.result,
      req.maxTokens,
      renderOwnerOf(payer),
      "largest-last",
    );
    return { result, chargeMicros: charge, allowanceUnitsUsed: ran, alongside };
  }
}
