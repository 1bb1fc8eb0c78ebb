import { randomUUID } from "node:crypto";
import { newId, placeHold, settleHold } from "@browserfleet/billing";
import {
  type Format,
  type SessionOpenTask,
  type SessionRequest,
  type SessionResponse,
  sessionRequest,
  sessionResponse,
} from "@browserfleet/contracts";
import {
  definePrice,
  formatPrice,
  line,
  POOL_WORDS,
  type PoolPrice,
  PRICES,
  poolLines,
  sessionMinuteMicros,
  sessionTailMinutes,
  total,
  usd,
} from "@browserfleet/pricing";
import { budgetDeps, fitAnswer } from "@browserfleet/render-cache";
import { ever } from "../allowance/index.ts";
import { filesByUrl, publicBase } from "../answers/artifacts.ts";
import { renderOwnerOf } from "../answers/render-owner.ts";
import { type Caller, type Payer, payFor } from "../billing/payment.ts";
import type { ApiContext } from "../context.ts";
import { egressPoolFor } from "../egress/egress.ts";
import { ApiError } from "../errors.ts";
import { liveViewUrl } from "../live/links.ts";
import { profileFor, profileKeyOnly } from "../profiles/profiles.ts";
import { recordingExpiry, recordingUrl } from "../recordings/links.ts";
import { insertSession } from "../sessions/store.ts";
import { closeOnWorker, noCapacity, ownerOf } from "./live-sessions.ts";
import { defineOperation, STARTS } from "./operation.ts";
import { precheckUrl, sendBrowserTask, taskFailed } from "./shared.ts";

/** Time the worker gets beyond the page's own wait budget to open the page and render its formats. */
const RENDER_ALLOWANCE_MS = 30_000;

export const sessionPrice = definePrice<{
  formats: readonly Format[];
  pool?: PoolPrice | undefined;
  record?: boolean;
}>({
  brief: `${usd(PRICES.sessionOpen)} including the first minute`,
  words: `${usd(PRICES.sessionOpen)} to open, including the first minute and the first format; each further format ${usd(PRICES.format)}. Minutes past the first are billed with the next act, and those after the last act when the session ends (closed or expired; a lost session's minutes end with its last act). With a key, opening also holds what that idle tail can cost (${usd(PRICES.sessionMinute)} per minute of the idle timeout plus an act's run) and gives back what was not used; a wallet-opened session pays its minutes with its acts only, never an idle tail. A recorded session (record) adds ${usd(PRICES.recordingMinute)} for each of its minutes, the first included, billed with them; its recording is kept for the deployment's RECORDING_TTL_MS at no further cost. A wallet paying with x402 exact pays an open's whole quote once it opened; with upto, the formats that came out. Closing is free. ${POOL_WORDS}`,
  quote: ({ formats: [first, ...rest], pool, record }) =>
    total([
      ...poolLines(pool, 1),
      line("session open (first minute, first format)", 1, PRICES.sessionOpen),
      line("recording (first minute)", record ? 1 : 0, PRICES.recordingMinute),
      ...(first === "json" ? [line("format json (model call)", 1, PRICES.jsonFormat - PRICES.format)] : []),
      ...rest.map((f) => line(`format ${f}`, 1, formatPrice(f))),
    ]),
});
const allowance = ever("session", 1, { what: "a session", formats: ["controls"] });

export const session = defineOperation({
  name: "session",
  method: "POST",
  path: "/web/v1/session",
  summary:
    "Open a live browser session on a page; returns sessionId and the page's controls map for /web/v1/act.",
  request: sessionRequest,
  response: sessionResponse,
  priced: {
    price: sessionPrice,
    allowance,
    payment: "any",
    jsonFormat: true,
    example: { url: "https://example.com/login" },
    // A profile this account does not have.
    errors: [403, 404],
  },
  tool: {
    name: "web_session_open",
    title: "Open a live browser session",
    annotations: STARTS,
    description: `Open a live browser session on a page and keep it open for web_act. Returns sessionId, expiresAt and the page's formats (default: controls, the list of what can be clicked or typed into, each with a ref). ${sessionPrice.brief}; close it with web_session_close when done. Keyless callers get ${allowance.limit} free session, without screenshot, pdf or json.`,
  },
  run: (ctx, req, call) => paidSessionOpen(ctx, req, call.caller),
});

const WEBHOOK_NEEDS_KEY = "a webhook needs an API key: its events are signed with the account's secret";

/** Open a live session for any caller, REST or MCP. */
async function paidSessionOpen(
  ctx: ApiContext,
  req: SessionRequest,
  caller: Caller,
): Promise<SessionResponse> {
  const started = performance.now();
  await precheckUrl(ctx, req.url);
  if (req.webhook) {
    // Its events are signed with an account's secret: a keyless MCP caller is told so (over REST, the 402 says it).
    if (!caller.auth && caller.allowanceClient !== undefined)
      throw new ApiError("key_required", WEBHOOK_NEEDS_KEY, [
        { field: "webhook", message: "needs an API key" },
      ]);
    await precheckUrl(ctx, req.webhook.url, "webhook.url");
  }
  const pool = await egressPoolFor(ctx, req);
  if (!(await ctx.workers.anyAlive()))
    throw new ApiError("unavailable", "no browser worker is running; try again shortly", undefined, {
      "Retry-After": "5",
    });
  if ((await ctx.workers.freeSlots()) === 0) throw noCapacity();
  // Without save, a profile must exist; with it, a new one starts empty and is made when the session saves.
  const profile = await profileFor(ctx, caller, req.profile, req.profile?.save === true);
  const cfg = ctx.config;
  const quote = sessionPrice.quote({ formats: req.formats, pool, record: req.record });
  const { webhook: _webhook, ...withoutWebhook } = req;
  let opened: { id: string } | undefined;
  try {
    const result = await payFor(ctx, caller, {
      allowance,
      request: req,
      quote,
      description: `open a browser session on ${req.url ?? "raw html"}`,
      keyOnly: req.formats.includes("json")
        ? "the json format needs an API key"
        : req.webhook
          ? WEBHOOK_NEEDS_KEY
          : profileKeyOnly(req.profile),
      holdMs: cfg.SCRAPE_TIMEOUT_MS + cfg.SESSION_START_WITHIN_MS + 60_000,
      work: async (payer) => {
        const sessionId = newId("ses");
        const tail =
          payer.kind === "account"
            ? await holdTail(ctx, payer.accountId, caller.requestId, quote.micros, req.record)
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
      // The webhook (its headers may hold the receiver's credentials) stays with the api.
      request: withoutWebhook,
      idleMs: cfg.SESSION_IDLE_TIMEOUT_MS,
      maxMs: cfg.SESSION_MAX_LIFETIME_MS,
      ...(profile?.state ? { profileState: profile.state } : {}),
    };
    const reply = await sendBrowserTask(ctx, task, startWithin + budget, "session open", {
      startWithinMs: startWithin,
      busy: noCapacity,
      timeoutMs: budget,
      // It may have opened all the same: do not leave it holding a slot until its idle timeout.
      onMalformed: () => void closeOnWorker(ctx, sessionId).catch(() => {}),
    });
    if (!reply.ok) throw taskFailed(reply.error);
    opened = { id: sessionId };
    const out = reply.result;
    if (req.binaryAs === "url") await filesByUrl(ctx.artifacts, out, publicBase(cfg, caller.baseUrl));
    const openedAt = new Date(Date.now() - out.metadata.ms);
    const cameOut = req.formats.filter((f) => f in out.data);
    const charge = sessionPrice.quote({
      formats: cameOut.length > 0 ? cameOut : req.formats.slice(0, 1),
      pool,
      record: req.record,
    }).micros;
    const recordingExpiresAt = req.record ? recordingExpiry(ctx, openedAt) : undefined;
    await insertSession(ctx.db.db, {
      id: sessionId,
      owner: ownerOf(payer),
      workerId: reply.workerId,
      url: req.url ?? null,
      openedAt,
      expiresAt: new Date(out.metadata.expiresAt),
      chargedMicros: charge,
      tailHoldId,
      ...(req.profile && profile
        ? { profile: { name: req.profile.name, save: req.profile.save, version: profile.version } }
        : {}),
      ...(req.webhook && payer.kind === "account" ? { webhook: req.webhook } : {}),
      ...(req.liveView !== "off" ? { liveView: req.liveView } : {}),
      ...(recordingExpiresAt ? { recordingExpiresAt } : {}),
    });
    if (recordingExpiresAt)
      out.recordingUrl = await recordingUrl(ctx, publicBase(cfg, caller.baseUrl), {
        id: sessionId,
        recordingExpiresAt,
      });
    if (req.liveView !== "off")
      out.liveViewUrl = await liveViewUrl(ctx, publicBase(cfg, caller.baseUrl), {
        id: sessionId,
        mode: req.liveView,
        openedAt,
      });
    if (req.profile && profile)
      out.profile = {
        name: req.profile.name,
        loaded: profile.state !== undefined,
        ...(profile.version !== null ? { version: profile.version } : {}),
        save: req.profile.save,
      };
    const fitted = await fitAnswer(budgetDeps(ctx), out, req.maxTokens, renderOwnerOf(payer));
    return { result: fitted, chargeMicros: charge };
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
  recorded: boolean,
): Promise<string> {
  const cfg = ctx.config;
  const micros =
    sessionTailMinutes({
      idleMs: cfg.SESSION_IDLE_TIMEOUT_MS,
      actBudgetMs: cfg.ACT_TIMEOUT_MS,
      maxLifetimeMs: cfg.SESSION_MAX_LIFETIME_MS,
    }) * sessionMinuteMicros(recorded);
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
