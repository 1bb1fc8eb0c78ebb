import { z } from "zod";
import { httpUrl } from "./common.ts";
import { FIELD_VALUE, LINE, text, textRule } from "./text.ts";

/* Events pushed to a caller's receiver, signed the Standard Webhooks way (webhook-id, webhook-timestamp, webhook-signature). */

/** The version of the event payloads below; a change a receiver must know of is a new version. */
export const WEBHOOK_VERSION = 1;

export const WEBHOOK_EVENTS = [
  "job.started",
  "job.page",
  "job.completed",
  "job.failed",
  "job.cancelled",
  "session.closed",
] as const;
export const webhookEventType = z.enum(WEBHOOK_EVENTS);
export type WebhookEventType = z.infer<typeof webhookEventType>;

/** `Ab` → `[Aa][Bb]`: a published pattern cannot carry the i flag. */
const anyCase = (s: string) => s.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`);
const RESERVED = ["webhook-", "content-"].map(anyCase).join("|");
const RESERVED_WHOLE = ["host", "connection", "transfer-encoding", "user-agent", "te", "upgrade", "expect"]
  .map(anyCase)
  .join("|");

/** An HTTP field name (RFC 9110 token), not one the delivery sets itself (webhook-*, content-*, host...). */
export const WEBHOOK_HEADER_NAME = textRule(
  `^(?!(${RESERVED})|(${RESERVED_WHOLE})$)[A-Za-z0-9!#$%&'*+.^_\`|~-]{1,100}$`,
  () =>
    "must be an HTTP header name (letters, digits and !#$%&'*+.^_`|~-), not one the delivery sets itself (webhook-*, content-*, host, connection, transfer-encoding, user-agent, te, upgrade, expect)",
);

/** A record of at most `n` entries, the bound published (maxProperties) as well as checked. */
const atMost = <T extends z.ZodType>(n: number, record: T) =>
  record
    .refine((r) => Object.keys(r as object).length <= n, `at most ${n} entries`)
    .meta({ maxProperties: n });

export const webhookSpec = z
  .strictObject({
    url: httpUrl.describe(
      "Where each event is POSTed as JSON. Checked as a scrape's URL is (no private, loopback, link-local or cluster address) when the job starts and again, after DNS, at every delivery; redirects are not followed",
    ),
    events: z
      .array(webhookEventType)
      .min(1)
      .max(WEBHOOK_EVENTS.length)
      .optional()
      .describe("The events to send; every event of the job when left out"),
    headers: atMost(20, z.record(text(WEBHOOK_HEADER_NAME), text(FIELD_VALUE).max(2000)))
      .optional()
      .describe(
        "Headers sent with every delivery (an Authorization for the receiver, say), at most 20; they are stored with the job",
      ),
    metadata: atMost(20, z.record(text(LINE).min(1).max(100), text(LINE).max(1000)))
      .optional()
      .describe(
        "Echoed in every event's data.metadata, at most 20 entries: what the receiver needs to route it",
      ),
  })
  .meta({
    description:
      "Push the job's events to this URL instead of (or as well as) polling: job.started, one job.page per finished page in the order they finish, then job.completed, job.failed or job.cancelled. Each delivery is signed with the account's webhook secret (GET /web/v1/account/webhook-secret) the Standard Webhooks way, retried with backoff for a day, and delivered at least once: dedupe by the webhook-id header",
  });
export type WebhookSpec = z.infer<typeof webhookSpec>;

/** The state of a job's webhook deliveries, in its status. */
export const webhookDeliveries = z.object({
  url: z.string(),
  events: z.array(webhookEventType),
  delivered: z.int().describe("Events the receiver acknowledged (2xx)"),
  pending: z.int().describe("Events waiting for their turn or a retry"),
  failed: z.int().describe("Events given up on: refused with a 4xx, or still failing after the retry window"),
  stopped: z.int().describe("Events not sent because the receiver answered 410 Gone"),
  lastAttempt: z
    .object({
      at: z.string(),
      event: webhookEventType,
      status: z.int().nullable().describe("The receiver's HTTP status; null when no answer came"),
      error: z.string().nullable(),
    })
    .nullable(),
});
export type WebhookDeliveries = z.infer<typeof webhookDeliveries>;

export const webhookSecretRequest = z.strictObject({});
export const webhookSecretRotateRequest = z.strictObject({
  overlapMinutes: z
    .int()
    .min(0)
    .max(10_080)
    .default(1_440)
    .describe("How long the secret being replaced keeps signing beside the new one, so receivers can switch"),
});

const secretView = z.object({
  secret: z.string().describe("whsec_ and the key, base64: give it to a Standard Webhooks library to verify"),
  createdAt: z.string(),
});
export const webhookSecretResponse = secretView.extend({
  previous: secretView
    .extend({ signsUntil: z.string() })
    .nullable()
    .describe("The secret replaced by the last rotation, while it still signs beside this one"),
});
export type WebhookSecretResponse = z.infer<typeof webhookSecretResponse>;
