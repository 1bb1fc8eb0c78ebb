import { accountBalance, accountSessions, getAccount, transactions, usageByDay } from "@browserfleet/billing";
import { pageQuery, usageQuery } from "@browserfleet/contracts";
import { usd } from "@browserfleet/pricing";
import type { Request, Router } from "express";
import type { ApiContext } from "../context.ts";
import { ApiError } from "../errors.ts";
import { parseQuery } from "../validate.ts";

const money = (micros: number) => ({ usd: usd(micros), micros });

function requireKey(req: Request): { keyId: string; accountId: string } {
  if (!req.auth)
    throw new ApiError("key_required", "account views need an API key: send Authorization: Bearer <API key>");
  return req.auth;
}

function cursorNumber(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  if (!/^\d{1,15}$/.test(cursor))
    throw new ApiError("invalid_request", "cursor is not one this api gave out", [
      { field: "cursor", message: "use the `next` value of the previous page" },
    ]);
  return Number(cursor);
}

/** A sessions cursor is `<openedAt ISO>~<sessionId>`. */
function sessionCursor(cursor: string | undefined): { openedAt: Date; id: string } | undefined {
  if (cursor === undefined) return undefined;
  const [at, id] = cursor.split("~");
  const openedAt = new Date(at ?? "");
  if (!id || Number.isNaN(openedAt.getTime()))
    throw new ApiError("invalid_request", "cursor is not one this api gave out", [
      { field: "cursor", message: "use the `next` value of the previous page" },
    ]);
  return { openedAt, id };
}

/** The four account views. Each reads only the caller's own account, found from the key. */
export function mountAccount(router: Router, ctx: ApiContext): void {
  const db = () => ctx.db.db;

  router.get("/web/v1/account", async (req, res) => {
    const auth = requireKey(req);
    await ctx.leases.flush(auth.accountId);
    const account = await getAccount(db(), auth.accountId);
    const funds = await accountBalance(db(), auth.accountId);
    if (!account || !funds) throw new ApiError("invalid_key", "this key's account no longer exists");
    const prefix = (await db().query.apiKeys.findFirst({ where: (k, { eq }) => eq(k.id, auth.keyId) }))
      ?.prefix;
    res.json({
      account: { id: account.id, name: account.name, createdAt: account.createdAt.toISOString() },
      balance: money(funds.balanceMicros),
      held: money(funds.heldMicros),
      key: { id: auth.keyId, prefix: prefix ?? "" },
    });
  });

  router.get("/web/v1/account/usage", async (req, res) => {
    const auth = requireKey(req);
    const { days } = parseQuery(usageQuery, req.query);
    await ctx.usage.flush();
    const rows = await usageByDay(db(), auth.accountId, days);
    const spent = rows.reduce((s, r) => s + r.spentMicros, 0);
    res.json({
      days,
      usage: rows.map((r) => ({
        day: r.day,
        route: r.route,
        calls: r.calls,
        failed: r.failed,
        spent: money(r.spentMicros),
      })),
      total: { calls: rows.reduce((s, r) => s + r.calls, 0), spent: money(spent) },
    });
  });

  router.get("/web/v1/account/transactions", async (req, res) => {
    const auth = requireKey(req);
    const q = parseQuery(pageQuery, req.query);
    const page = await transactions(db(), auth.accountId, { limit: q.limit, before: cursorNumber(q.cursor) });
    res.json({
      transactions: page.entries.map((e) => ({
        id: String(e.id),
        kind: e.kind,
        amount: money(e.amountMicros),
        held: money(e.heldMicros),
        balanceAfter: e.balanceAfterMicros === null ? null : money(e.balanceAfterMicros),
        route: e.route,
        requestId: e.requestId,
        holdId: e.holdId,
        note: e.note,
        at: e.createdAt.toISOString(),
      })),
      next: page.next === undefined ? null : String(page.next),
    });
  });

  router.get("/web/v1/account/sessions", async (req, res) => {
    const auth = requireKey(req);
    const q = parseQuery(pageQuery, req.query);
    const page = await accountSessions(db(), auth.accountId, {
      limit: q.limit,
      before: sessionCursor(q.cursor),
    });
    res.json({
      sessions: page.sessions.map((s) => ({
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
      })),
      next: page.next ? `${page.next.openedAt.toISOString()}~${page.next.id}` : null,
    });
  });
}
