import { z } from "zod";
import { rowCursor } from "./common.ts";
import { recordingInfo } from "./recordings.ts";

const money = z.object({ usd: z.string(), micros: z.int() }).describe("micros = millionths of a dollar");

export const accountView = z.object({
  account: z.object({ id: z.string(), name: z.string().nullable(), createdAt: z.string() }),
  balance: money,
  held: money.describe("Held for calls still running: charged or given back when they end"),
  key: z.object({ id: z.string(), prefix: z.string() }).describe("The key this call was made with"),
  topUp: z.string().describe("How this account adds money, in the deployment operator's words"),
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

export const pageLimit = z.coerce.number().int().min(1).max(200).default(50);
export const pageQuery = z.strictObject({
  limit: pageLimit,
  cursor: rowCursor.optional().describe("The `next` value of the previous page"),
});
/** A sessions cursor is `<openedAt, ISO 8601 in UTC>~<sessionId>`. */
export const SESSION_CURSOR_PATTERN =
  "^[1-9][0-9]{3}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,3})?Z~[A-Za-z0-9_-]{1,64}$";
export const sessionsPageQuery = z.strictObject({
  limit: pageLimit,
  cursor: z
    .string()
    .regex(
      new RegExp(SESSION_CURSOR_PATTERN),
      "not a cursor this api gave out: use the `next` value of the previous page",
    )
    .optional()
    .describe("The `next` value of the previous page"),
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
      liveViewUrl: z
        .string()
        .optional()
        .describe(
          "While open: its live view (the liveViewUrl session open gave), unless opened with liveView off",
        ),
      recording: recordingInfo.optional().describe("Its recording, when it opened with record"),
    }),
  ),
  next: z.string().nullable(),
});

/** A jobs cursor is `<createdAt, ISO 8601 in UTC>~<jobId>`, as a sessions cursor is. */
export const jobsPageQuery = sessionsPageQuery;
export const jobsView = z.object({
  jobs: z.array(
    z.object({
      jobId: z.string(),
      kind: z.enum(["batch", "crawl"]),
      status: z.enum(["queued", "running", "completed", "failed", "cancelled"]),
      url: z.string().nullable().describe("A crawl's start page, a batch's first URL"),
      urls: z.int().optional().describe("A batch's number of URLs"),
      limit: z.int().describe("The most pages it may take"),
      total: z.int().describe("Pages taken into the job so far"),
      completed: z.int(),
      failed: z.int(),
      charged: money,
      createdAt: z.string(),
      finishedAt: z.string().nullable(),
      statusPath: z.string().describe("Where its status and results are read (GET)"),
    }),
  ),
  next: z.string().nullable().describe("Pass as cursor for the next (older) page; null at the end"),
});
