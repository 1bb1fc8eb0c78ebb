import { jetstream } from "@nats-io/jetstream";
import { createInbox, headers, type NatsConnection } from "@nats-io/transport-node";
import { decodeJson, encodeJson } from "./codec.ts";
import { REPLY_HEADER, TASK_SUBJECT } from "./subjects.ts";

export class QueueFullError extends Error {
  constructor() {
    super("the browser task queue is full");
  }
}

export class TaskTimeoutError extends Error {
  constructor(ms: number) {
    super(`no result within ${ms} ms`);
  }
}

/**
 * Queue one task on the work-queue stream and wait for its reply on a private inbox.
 * The inbox subscription exists before the publish, so a fast worker cannot answer into the void.
 */
export async function runTask<R, T extends { taskId: string } = { taskId: string }>(
  nc: NatsConnection,
  task: T,
  timeoutMs: number,
): Promise<R> {
  const inbox = createInbox();
  let settle!: { resolve: (r: R) => void; reject: (e: Error) => void };
  const result = new Promise<R>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const sub = nc.subscribe(inbox, {
    max: 1,
    callback: (err, msg) => {
      clearTimeout(timer);
      if (err) settle.reject(err);
      else {
        try {
          settle.resolve(decodeJson<R>(msg.data));
        } catch (e) {
          settle.reject(e as Error);
        }
      }
    },
  });
  const timer = setTimeout(() => {
    sub.unsubscribe();
    settle.reject(new TaskTimeoutError(timeoutMs));
  }, timeoutMs);
  const h = headers();
  h.set(REPLY_HEADER, inbox);
  try {
    await jetstream(nc).publish(TASK_SUBJECT, encodeJson(task), { headers: h, msgID: task.taskId });
  } catch (err) {
    clearTimeout(timer);
    sub.unsubscribe();
    if (/maximum messages/i.test(String((err as Error).message))) throw new QueueFullError();
    throw err;
  }
  return result;
}
