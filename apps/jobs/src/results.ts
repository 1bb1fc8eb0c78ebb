import { decodeJson, JOBS_CONSUMER, RESULTS_STREAM } from "@browserfleet/bus";
import type { PageResult } from "@browserfleet/contracts";
import { type JsMsg, jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";

/**
 * Pull page results from the durable results consumer and hand each to `handle`; ack only after it
 * returns, so a jobs process that dies mid-way leaves the result to be redelivered (recording is
 * idempotent). Survives NATS restarts by retrying the pull.
 */
export function consumeResults(
  nc: NatsConnection,
  handle: (r: PageResult) => Promise<void>,
  log: (msg: string) => void,
): { stop(): Promise<void> } {
  let stopping = false;
  const js = jetstream(nc);
  const loop = (async () => {
    while (!stopping) {
      try {
        const consumer = await js.consumers.get(RESULTS_STREAM, JOBS_CONSUMER);
        while (!stopping) {
          const batch = await consumer.fetch({ max_messages: 64, expires: 1000 });
          for await (const msg of batch) await one(msg);
        }
      } catch (err) {
        if (stopping) break;
        log(`results consumer: ${(err as Error).message}; retrying`);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  })();

  async function one(msg: JsMsg): Promise<void> {
    let result: PageResult;
    try {
      result = decodeJson<PageResult>(msg.data);
    } catch {
      msg.term();
      return;
    }
    try {
      await handle(result);
      msg.ack();
    } catch (err) {
      log(`page ${result.pageId} of ${result.jobId}: ${(err as Error).message}; will retry`);
      msg.nak(1000);
    }
  }

  return {
    async stop() {
      stopping = true;
      await loop;
    },
  };
}
