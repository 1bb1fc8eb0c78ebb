import { z } from "zod";

const money = z.object({ usd: z.string(), micros: z.int() }).describe("micros = millionths of a dollar");

export const accountView = z.object({
  account: z.object({ id: z.string(), name: z.string().nullable(), createdAt: z.string() }),
  balance: money,
  held: money.describe("Held for calls still running: charged or given back when they end"),
  key: z.object({ id: z.string(), prefix: z.string() }).describe("The key this call was made with"),
});

export const usageQuery = z.strictObject({
  days: z.coerce.number().int().min(1).max(366).default(30).describe("How many days back, UTC"),
});
export const usageView = z.object({
  days: z.int(),
  usage: z.array(
    z.object({ day: z.string(), route: z.string(), calls: z.int(), failed: z.int(), spent: money }),
  ),
  total: z.object({ calls: z.int(), spent: money }),
});

export const pageQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(100).optional().describe("The `next` value of the previous page"),
});
export const transactionsView = z.object({
  transactions: z.array(
    z.object({
      id: z.string(),
      kind: z.enum(["topup", "hold", "capture", "refund", "wallet_payment", "adjustment"]),
      amount: money.describe("Change to the spendable balance"),
      held: money.describe("Change to the money held for calls in flight"),
      balanceAfter: money.nullable(),
      route: z.string().nullable(),
      requestId: z.string().nullable(),
      holdId: z.string().nullable(),
      note: z.string().nullable(),
      at: z.string(),
    }),
  ),
  next: z.string().nullable().describe("Pass as cursor for the next (older) page; null at the end"),
});

export const sessionsView = z.object({
  sessions: z.array(
    z.object({
      sessionId: z.string(),
      status: z.enum(["open", "closed", "expired", "lost"]),
      url: z.string().nullable(),
      openedAt: z.string(),
      lastActiveAt: z.string().nullable(),
      expiresAt: z.string().nullable().describe("While open: when it closes unless used again"),
      closedAt: z.string().nullable(),
      closeReason: z.string().nullable(),
      actions: z.int(),
      minutes: z.int().describe("Started minutes billed so far, the first (in the opening price) included"),
      charged: money.describe(
        "What the session cost: opening, actions and minutes; once ended, also the minutes after its last act",
      ),
      held: money.describe(
        "While open: what is held for the minutes it may stay open after its last act, charged or given back when it ends",
      ),
    }),
  ),
  next: z.string().nullable(),
});
