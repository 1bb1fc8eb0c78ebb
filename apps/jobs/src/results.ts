import { decodeJson, JOBS_CONSUMER, RESULTS_STREAM } from "@browserfleet/bus";
import { checkReceived, type PageResult, pageResult } from "@browserfleet/contracts";
import { type JsMsg, jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";

/**
 * Pull page results from the durable results consumer and hand each to `handle`; ack only after it
 * returns, so a jobs process that dies mid-way leaves the result to be redelivered (recording is
 * idempotent). Survives NATS restarts by retrying the pull. A result that is not a PageResult (a worker
 * of another version) goes to `malformed`, and is recorded as the page's failure when it names its page.
 */
export function consumeResults(
  nc: NatsConnection,
  handle: (r: PageResult) => Promise<void>,
  log: (msg: string) => void,
  malformed: (problem: string) => void = log,
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
    const read = readResult(msg.data);
    if (read.problem !== undefined) malformed(read.problem);
    const result = read.result;
    if (!result) {
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

/**
 * A message of the results stream checked against the contract. A malformed one that still names its
 * job, page and task becomes that page's failure, so the job does not wait for the page's timeout.
 */
export function readResult(data: Uint8Array): { result?: PageResult; problem?: string } {
  let value: unknown;
  try {
    value = decodeJson<unknown>(data);
  } catch (err) {
    return { problem: `a page result that is not JSON: ${(err as Error).message}` };
  }
  const checked = checkReceived(pageResult, "page result", value);
  if (checked.ok) return { result: checked.value };
  const v = (typeof value === "object" && value !== null ? value : {}) as Partial<Record<string, unknown>>;
  if (typeof v.jobId !== "string" || !Number.isInteger(v.pageId) || typeof v.taskId !== "string")
    return { problem: checked.problem };
  const message = `the browser worker's result could not be read (${checked.problem})`;
  return {
    problem: checked.problem,
    result: {
      jobId: v.jobId,
      pageId: v.pageId as number,
      taskId: v.taskId,
      reply: { ok: false, error: { code: "internal", message, status: 500 } },
    },
  };
}
