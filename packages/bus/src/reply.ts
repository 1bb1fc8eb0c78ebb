import type { NatsConnection } from "@nats-io/transport-node";

/** How long one delivery waits for the acknowledgement; the whole delivery is bounded by `until`. */
const ACK_WAIT_MS = 2_000;

/**
 * Send a task's reply so that it survives a NATS reconnect: as a request, which the waiting side
 * acknowledges (queueTask), sent again until it is or `until` passes. A plain publish made while the
 * caller's inbox subscription is being made again after a reconnect is dropped by the server, and the
 * caller would wait for it until its timeout. Resolves whether it was acknowledged.
 */
export async function deliverReply(
  nc: NatsConnection,
  subject: string,
  payload: Uint8Array,
  until: number,
): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    try {
      await nc.request(subject, payload, { timeout: ACK_WAIT_MS });
      return true;
    } catch {
      // No responders (the inbox is not subscribed yet, or any more), a timeout, or a connection down.
      const pause = Math.min(2_000, 100 * 2 ** attempt);
      if (nc.isClosed() || Date.now() + pause >= until) return false;
      await new Promise((r) => setTimeout(r, pause));
    }
  }
}
