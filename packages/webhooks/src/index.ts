export { Deliverer, type DelivererOptions } from "./deliverer.ts";
export {
  claimDue,
  deleteDoneEvents,
  deliveriesOf,
  type EventRow,
  enqueueEvent,
  eventsByStatus,
  nextDue,
  recordAttempt,
  type StoredWebhook,
  stopGoneEvents,
  wants,
} from "./outbox.ts";
export { type PostOptions, postEvent } from "./post.ts";
export {
  type AttemptOutcome,
  DEFAULT_RETRY,
  type NextStep,
  nextStep,
  type RetryPolicy,
  retryAfterMs,
} from "./retry.ts";
export { WebhookSecrets, webhookSecretsFrom } from "./secrets.ts";
export { signedHeaders } from "./sign.ts";
