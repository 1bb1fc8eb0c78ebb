import { randomUUID } from "node:crypto";
import { newId, placeHold, settleHold } from "@browserfleet/billing";
import {
  encodeJson,
  MalformedReplyError,
  QueueFullError,
  runTask,
  SESSION_ID_PATTERN,
  sessionSubject,
  TaskNotStartedError,
  TaskTimeoutError,
} from "@browserfleet/bus";
import {
  type ActRequest,
  type ActResponse,
  actRequest,
  ERROR_STATUS,
  type ErrorCode,
  type SessionActMessage,
  type SessionCloseReply,
  type SessionOpenReply,
  type SessionOpenTask,
  type SessionRequest,
  type SessionResponse,
  sessionActReply,
  sessionCloseReply,
  type sessionCloseResponse,
  sessionRequest,
  type TaskError,
} from "@browserfleet/contracts";
import { PRICES, priceOf, sessionMinutesDue, sessionTailMinutes, usd } from "@browserfleet/pricing";
import type { Msg } from "@nats-io/transport-node";
import type { Router } from "express";
import type { z } from "zod";
import { type Caller, type Payer, payFor, restCaller } from "../billing/payment.ts";
import { malformedReply, readReply } from "../bus-replies.ts";
import type { ApiContext } from "../context.ts";
import { ApiError } from "../errors.ts";
import {
  claimMinutes,
  endSession,
  findSession,
  insertSession,
  recordAct,
  type SessionOwner,
  type SessionRow,
  unclaimMinutes,
} from "../sessions/store.ts";
import { parseBody } from "../validate.ts";
import { precheckUrl } from "./scrape.ts";

type CloseResponse = z.infer<typeof sessionCloseResponse>;

/** Time the worker gets beyond the page's own wait budget to open the page and render its formats. */
const RENDER_ALLOWANCE_MS = 30_000;

const taskFailed = (e: TaskError) =>
  new ApiError(e.code in ERROR_STATUS ? (e.code as ErrorCode) : "render_failed", e.message);

const notFound = (id: string) =>
  new ApiError(
    "not_found",
    `no session ${id} for this caller (sessions are visible only to whoever opened them)`,
  );

const noCapacity = () =>
  new ApiError(
    "no_capacity",
    "every browser slot is busy (live sessions hold one each); retry in a few seconds or close a session you no longer need",
    undefined,
    { "Retry-After": "5" },
  );

function ownerOf(payer: Payer): SessionOwner {
  if (payer.kind === "account") return { accountId: payer.accountId };
  if (payer.kind === "wallet") return { payer: payer.address };
  return { client: payer.client };
}

/**
 * May this caller use the session? A key sees its account's sessions; a keyless MCP client its own
 * address's. A wallet-opened session has no other identity than its unguessable id until a payment
 * shows the wallet: an act's payment must come from the same wallet (checked once it is verified).
 */
function mayUse(row: SessionRow, caller: Caller): boolean {
  if (row.accountId) return caller.auth?.accountId === row.accountId;
  if (row.client) return !caller.auth && caller.allowanceClient === row.client;
  if (row.payer) return !caller.auth && caller.allowanceClient === undefined;
  return false;
}

async function ownedSession(ctx: ApiContext, id: string, caller: Caller): Promise<SessionRow> {
  const row = SESSION_ID_PATTERN.test(id) ? await findSession(ctx.db.db, id) : undefined;
  if (!row || !mayUse(row, caller)) throw notFound(id);
  return row;
}

function ended(row: SessionRow): ApiError {
  const when = row.closedAt ? ` at ${row.closedAt.toISOString()}` : "";
  if (row.status === "lost")
    return new ApiError(
      "session_lost",
      `session ${row.id} was lost${when} (${row.closeReason}); open a new session`,
    );
  return new ApiError(
    "session_closed",
    `session ${row.id} ended${when} (${row.closeReason ?? row.status}); open a new session`,
  );
}

/**
 * No worker answers for the session: it ended (its end event may not be recorded yet), or the browser
 * holding it is gone. Record which; the row as it stands afterwards.
 */
async function markGone(ctx: ApiContext, row: SessionRow): Promise<SessionRow> {
  const expired = row.expiresAt !== null && row.expiresAt.getTime() <= Date.now();
  const after = await endSession(ctx.db.db, row.id, expired ? "idle" : "browser_lost");
  if (after?.changed) ctx.metrics.sessionsEnded.inc({ status: after.row.status });
  return after?.row ?? { ...row, status: "lost" };
}

const isNoResponders = (err: unknown) => /no responders|503/i.test(String((err as Error)?.message ?? err));

/** Open a live session for any caller, REST or MCP. */
export async function paidSessionOpen(
  ctx: ApiContext,
  req: SessionRequest,
  caller: Caller,
): Promise<SessionResponse> {
  const started = performance.now();
  await precheckUrl(ctx, req.url);
  if (!(await ctx.workers.anyAlive()))
    throw new ApiError("unavailable", "no browser worker is running; try again shortly", undefined, {
      "Retry-After": "5",
    });
  if ((await ctx.workers.freeSlots()) === 0) throw noCapacity();
  const cfg = ctx.config;
  const quote = priceOf({ route: "session", request: req });
  let opened: { id: string } | undefined;
  try {
    const result = await payFor(ctx, caller, {
      route: "session",
      request: req,
      quote,
      description: `open a browser session on ${req.url ?? "raw html"}`,
      keyOnly: req.formats.includes("json") ? "the json format needs an API key" : undefined,
      holdMs: cfg.SCRAPE_TIMEOUT_MS + cfg.SESSION_START_WITHIN_MS + 60_000,
      work: async (payer) => {
        const sessionId = newId("ses");
        const tail =
          payer.kind === "account"
            ? await holdTail(ctx, payer.accountId, caller.requestId, quote.micros)
            : undefined;
        try {
          return await openOnWorker(sessionId, payer, tail);
        } catch (err) {
          if (tail) await settleHold(ctx.db.db, tail, 0, "the session did not open");
          throw err;
        }
      },
    });
    result.metadata.ms = Math.round(performance.now() - started);
    return result;
  } catch (err) {
    // Opened but not paid for after all (settlement failed, or the row could not be written): close it.
    if (opened) await closeOnWorker(ctx, opened.id).catch(() => {});
    throw err;
  }

  async function openOnWorker(sessionId: string, payer: Payer, tailHoldId: string | undefined) {
    const startWithin = cfg.SESSION_START_WITHIN_MS;
    const budget = Math.min(cfg.SCRAPE_TIMEOUT_MS, (req.wait?.timeout ?? 30_000) + RENDER_ALLOWANCE_MS);
    const task: SessionOpenTask = {
      kind: "session_open",
      taskId: randomUUID(),
      requestId: caller.requestId,
      // A little before the api gives up, so a worker never starts a session nobody waits for.
      deadline: Date.now() + Math.max(100, startWithin - 300),
      sessionId,
      request: req,
      idleMs: cfg.SESSION_IDLE_TIMEOUT_MS,
      maxMs: cfg.SESSION_MAX_LIFETIME_MS,
    };
    let reply: SessionOpenReply;
    try {
      reply = await runTask(ctx.nc, task, startWithin + budget, { startWithinMs: startWithin });
    } catch (err) {
      if (err instanceof MalformedReplyError) {
        // It may have opened all the same: do not leave it holding a slot until its idle timeout.
        void closeOnWorker(ctx, sessionId).catch(() => {});
        throw malformedReply(ctx.metrics, err.kind, err.message, "session open");
      }
      if (err instanceof TaskNotStartedError || err instanceof QueueFullError) throw noCapacity();
      if (err instanceof TaskTimeoutError)
        throw new ApiError("timeout", `the session did not open within ${budget} ms`);
      throw new ApiError("unavailable", `the work queue is unreachable: ${(err as Error).message}`);
    }
    if (!reply.ok) throw taskFailed(reply.error);
    opened = { id: sessionId };
    const out = reply.result;
    const cameOut = req.formats.filter((f) => f in out.data);
    const charge = priceOf({
      route: "session",
      request: { formats: cameOut.length > 0 ? cameOut : req.formats.slice(0, 1) },
    }).micros;
    await insertSession(ctx.db.db, {
      id: sessionId,
      owner: ownerOf(payer),
      workerId: reply.workerId,
      url: req.url ?? null,
      openedAt: new Date(Date.now() - out.metadata.ms),
      expiresAt: new Date(out.metadata.expiresAt),
      chargedMicros: charge,
      tailHoldId,
    });
    return { result: out, chargeMicros: charge };
  }
}

/**
 * A key-paid session holds what its idle tail can cost (the minutes after its last act, charged when it
 * ends), so the balance is sure to cover them. 402 when it does not.
 */
async function holdTail(
  ctx: ApiContext,
  accountId: string,
  requestId: string,
  openMicros: number,
): Promise<string> {
  const cfg = ctx.config;
  const micros =
    sessionTailMinutes({
      idleMs: cfg.SESSION_IDLE_TIMEOUT_MS,
      actBudgetMs: cfg.ACT_TIMEOUT_MS,
      maxLifetimeMs: cfg.SESSION_MAX_LIFETIME_MS,
    }) * PRICES.sessionMinute;
  const hold = await placeHold(ctx.db.db, {
    accountId,
    micros,
    route: "session",
    requestId,
    // Outlives the session: it is closed when the session ends; the reaper only steps in if that never happens.
    ttlMs: cfg.SESSION_MAX_LIFETIME_MS + 15 * 60_000,
  });
  if (!hold.ok)
    throw new ApiError(
      "insufficient_balance",
      `opening this session costs ${usd(openMicros)} and also holds ${usd(micros)} for the minutes it may stay open after its last act (what is not used goes back when it ends); the balance is ${usd(hold.balanceMicros + openMicros)}; top up to continue`,
      undefined,
      undefined,
      {
        price: { usd: usd(openMicros + micros), micros: openMicros + micros },
        balance: { usd: usd(hold.balanceMicros + openMicros), micros: hold.balanceMicros + openMicros },
      },
    );
  return hold.holdId;
}

async function closeOnWorker(ctx: ApiContext, id: string): Promise<SessionCloseReply | undefined> {
  try {
    const msg = await ctx.nc.request(sessionSubject(id, "close"), new Uint8Array(), { timeout: 10_000 });
    return readReply(ctx.metrics, sessionCloseReply, "close", "session close", msg.data);
  } catch (err) {
    if (isNoResponders(err)) return undefined;
    throw err;
  }
}

/** Thrown by an act that finds no browser behind its session. */
const SESSION_GONE = new Error("the session's browser is gone");

/** Act on a live session: run the actions on the worker that holds it, charge what ran. */
export async function paidAct(ctx: ApiContext, req: ActRequest, caller: Caller): Promise<ActResponse> {
  const started = performance.now();
  const row = await ownedSession(ctx, req.sessionId, caller);
  if (row.status !== "open") throw ended(row);
  for (const [i, a] of req.actions.entries())
    if ("navigate" in a) await precheckUrl(ctx, a.navigate.url, `actions.${i}.navigate.url`);
  const minutesDue = sessionMinutesDue(row.openedAt, row.billedMinutes, new Date());
  const budget = ctx.config.ACT_TIMEOUT_MS;
  const result = await payFor(ctx, caller, {
    route: "act",
    request: req,
    quote: priceOf({ route: "act", request: req, minutesDue }),
    description: `${req.actions.length} action(s) on session ${row.id}`,
    holdMs: budget + 60_000,
    work: async (payer) => {
      if (payer.kind === "wallet" && row.payer !== payer.address.toLowerCase()) throw notFound(row.id);
      const minutes =
        minutesDue > 0 &&
        (await claimMinutes(ctx.db.db, row.id, row.billedMinutes, row.billedMinutes + minutesDue))
          ? minutesDue
          : 0;
      try {
        return await actOnWorker(minutes);
      } catch (err) {
        // The minutes were not charged: the next act or the session's end bills them (so give them back
        // before a gone session's end is recorded).
        if (minutes > 0)
          await unclaimMinutes(ctx.db.db, row.id, row.billedMinutes, row.billedMinutes + minutes);
        if (err === SESSION_GONE) throw ended(await markGone(ctx, row));
        throw err;
      }
    },
  });
  result.metadata.ms = Math.round(performance.now() - started);
  return result;

  async function actOnWorker(minutes: number) {
    const message: SessionActMessage = {
      requestId: caller.requestId,
      actions: req.actions,
      formats: req.formats,
      budgetMs: budget,
    };
    let received: Msg;
    try {
      received = await ctx.nc.request(sessionSubject(row.id, "act"), encodeJson(message), {
        timeout: budget + 15_000,
      });
    } catch (err) {
      if (isNoResponders(err)) throw SESSION_GONE;
      if (/timeout/i.test(String((err as Error).message)))
        throw new ApiError("timeout", `the session's browser did not answer within ${budget + 15_000} ms`);
      throw new ApiError("unavailable", `the bus is unreachable: ${(err as Error).message}`);
    }
    const reply = readReply(ctx.metrics, sessionActReply, "act", "act", received.data);
    if (!reply.ok) {
      if (reply.error.code === "session_lost") throw SESSION_GONE;
      throw taskFailed(reply.error);
    }
    const ran = reply.result.actions.filter((a) => a.status === "ok").length;
    const charge = ran * PRICES.action + minutes * PRICES.sessionMinute;
    await recordAct(ctx.db.db, row.id, {
      actions: ran,
      chargedMicros: charge,
      expiresAt: new Date(reply.result.metadata.expiresAt),
    });
    return { result: reply.result, chargeMicros: charge, allowanceUnitsUsed: ran };
  }
}

/**
 * Close a session: frees its slot at once. Closing a closed or expired session again answers the same;
 * a session whose browser is gone answers 410 session_lost.
 */
export async function closeSession(ctx: ApiContext, id: string, caller: Caller): Promise<CloseResponse> {
  let row = await ownedSession(ctx, id, caller);
  if (row.status === "open") {
    const reply = await closeOnWorker(ctx, id);
    if (!reply) throw ended(await markGone(ctx, row));
    const done = await endSession(ctx.db.db, id, "closed", new Date(reply.closedAt));
    if (done?.changed) ctx.metrics.sessionsEnded.inc({ status: done.row.status });
    if (done) row = done.row;
  }
  if (row.status === "lost" || row.status === "open") throw ended({ ...row, status: "lost" });
  return {
    success: true,
    sessionId: id,
    status: row.status,
    closedAt: (row.closedAt ?? new Date()).toISOString(),
  };
}

export function mountSessions(router: Router, ctx: ApiContext): void {
  router.post("/web/v1/session", async (httpReq, res) => {
    const req = parseBody(sessionRequest, httpReq.body);
    res.json(await paidSessionOpen(ctx, req, restCaller(ctx, httpReq, res)));
  });
  router.post("/web/v1/act", async (httpReq, res) => {
    const req = parseBody(actRequest, httpReq.body);
    res.json(await paidAct(ctx, req, restCaller(ctx, httpReq, res)));
  });
  router.delete("/web/v1/session/:id", async (httpReq, res) => {
    res.json(await closeSession(ctx, String(httpReq.params.id), restCaller(ctx, httpReq, res)));
  });
}
