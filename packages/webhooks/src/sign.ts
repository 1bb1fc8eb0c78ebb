import { Webhook } from "standardwebhooks";

/**
 * The Standard Webhooks headers of one delivery: its id, the time of signing, and a signature by every
 * secret that signs now (space-separated, as the standard has it, so a receiver holding either verifies).
 */
export function signedHeaders(
  secrets: readonly string[],
  msgId: string,
  at: Date,
  body: string,
): Record<string, string> {
  const signatures = secrets.map((s) => new Webhook(s).sign(msgId, at, body));
  return {
    "webhook-id": msgId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signatures.join(" "),
  };
}
