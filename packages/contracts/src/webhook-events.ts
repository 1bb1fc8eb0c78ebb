import { z } from "zod";
import { jobPageResult, jobStatus } from "./jobs.ts";
import { WEBHOOK_VERSION, type WebhookEventType } from "./webhook-spec.ts";

/* What a delivery carries: Standard Webhooks' body (type, timestamp, data), typed per event. */

const money = z.object({ usd: z.string(), micros: z.int() });

/** What every job event says of its job. */
export const jobEventData = z.object({
  jobId: z.string(),
  kind: z.enum(["crawl", "batch"]),
  status: jobStatus,
  total: z.int(),
  completed: z.int(),
  failed: z.int(),
  charged: money,
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  metadata: z.record(z.string(), z.string()).optional().describe("The webhook's metadata, as given"),
});
export type JobEventData = z.infer<typeof jobEventData>;

export const jobPageEventData = jobEventData.extend({
  page: jobPageResult.extend({
    resultUrl: z
      .string()
      .optional()
      .describe(
        "Set instead of data, errors and metadata when the page's result is larger than a delivery carries (WEBHOOK_PAGE_MAX_BYTES): where the job's status serves it (with the caller's key)",
      ),
  }),
});
export type JobPageEventData = z.infer<typeof jobPageEventData>;

/** A session ended: why, and what it did. */
export const sessionClosedEventData = z.object({
  sessionId: z.string(),
  status: z
    .enum(["closed", "expired", "lost"])
    .describe(
      "closed by the caller; expired (idle timeout or maximum lifetime); lost (its browser or worker went away)",
    ),
  reason: z.string().describe("In words: closed by the caller, idle timeout, maximum lifetime reached, …"),
  openedAt: z.string(),
  closedAt: z.string(),
  actions: z.int().describe("Act calls it served"),
  metadata: z.record(z.string(), z.string()).optional().describe("The webhook's metadata, as given"),
});
export type SessionClosedEventData = z.infer<typeof sessionClosedEventData>;

/** The body of one event type's deliveries: Standard Webhooks' shape (type, timestamp, data), and its version. */
export const webhookPayloadOf = (type: WebhookEventType) =>
  z.object({
    type: z.literal(type),
    version: z.literal(WEBHOOK_VERSION),
    timestamp: z
      .string()
      .describe("When the event happened (ISO 8601); the webhook-timestamp header says when it was signed"),
    data:
      type === "session.closed"
        ? sessionClosedEventData
        : type === "job.page"
          ? jobPageEventData
          : jobEventData,
  });
export type WebhookPayload = z.infer<ReturnType<typeof webhookPayloadOf>>;
