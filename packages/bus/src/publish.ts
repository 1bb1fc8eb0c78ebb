import { jetstream, type PubAck } from "@nats-io/jetstream";
import type { MsgHdrs, NatsConnection } from "@nats-io/transport-node";

/**
 * How long a publish waits for a stream that has no leader: after a server of a NATS cluster dies, its
 * streams elect a new leader in about 4 s, and until then a publish finds nobody to store it (no
 * responders) or its ack times out. A publish waited out there is a task that runs, not a 503.
 */
export const LEADERLESS_WAIT_MS = 10_000;
const RETRY_EVERY_MS = 250;

export interface DurablePublishOptions {
  /** The message's id: a publish retried after a lost ack is stored once (the stream's duplicate window). */
  msgID: string;
  headers?: MsgHdrs;
  /** Stop retrying when this says so (the caller stopped waiting). */
  giveUp?: () => boolean;
  waitMs?: number;
}

/**
 * Publish to a stream, retrying while the stream has no leader (or the ack is lost) for up to `waitMs`;
 * any other failure (a full queue, a stream that does not exist) is thrown at once.
 */
export async function publishDurable(
  nc: NatsConnection,
  subject: string,
  data: Uint8Array,
  opts: DurablePublishOptions,
): Promise<PubAck> {
  const until = Date.now() + (opts.waitMs ?? LEADERLESS_WAIT_MS);
  const js = jetstream(nc);
  for (;;) {
    try {
      return await js.publish(subject, data, {
        msgID: opts.msgID,
        headers: opts.headers,
        timeout: Math.max(1_000, Math.min(5_000, until - Date.now())),
      });
    } catch (err) {
      if (!leaderless(err) || Date.now() + RETRY_EVERY_MS >= until || opts.giveUp?.()) throw err;
      await new Promise((r) => setTimeout(r, RETRY_EVERY_MS));
    }
  }
}

/** No server stored the message: the stream has no leader (no responders), or the ack did not come. */
function leaderless(err: unknown): boolean {
  const name = (err as Error | undefined)?.name;
  return name === "JetStreamNotEnabled" || name === "TimeoutError";
}
