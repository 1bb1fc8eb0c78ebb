import { type BrowserTask, checkReply, type ReplyOf, type TaskKind } from "@browserfleet/contracts";
import { createInbox, headers, type NatsConnection } from "@nats-io/transport-node";
import { decodeJson, encodeJson } from "./codec.ts";
import { publishDurable } from "./publish.ts";
import { REPLY_HEADER, START_NOTICE_HEADER, TASK_SUBJECT } from "./subjects.ts";

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

/** No worker started the task within `startWithinMs`: every slot is busy. */
export class TaskNotStartedError extends Error {
  constructor(ms: number) {
    super(`no worker started the task within ${ms} ms`);
  }
}

/** The worker's reply is not what the task table declares for its kind (e.g. a worker of another version). */
export class MalformedReplyError extends Error {
  constructor(
    readonly kind: TaskKind,
    problem: string,
  ) {
    super(problem);
  }
}

export interface RunTaskOptions {
  /** Fail with TaskNotStartedError unless a worker starts the task within this many ms. */
  startWithinMs?: number;
}

/**
 * Queue one browser task and wait for its reply, checked against the task table: the reply type follows
 * from the task's kind, and a reply that does not match it rejects with MalformedReplyError.
 */
export function runTask<T extends BrowserTask>(
  nc: NatsConnection,
  task: T,
  timeoutMs: number,
  opts: RunTaskOptions = {},
): Promise<ReplyOf<T["kind"]>> {
  const kind: T["kind"] = task.kind;
  return queueTask(nc, task, timeoutMs, opts, (data) => {
    let value: unknown;
    try {
      value = decodeJson<unknown>(data);
    } catch (err) {
      throw new MalformedReplyError(kind, `malformed ${kind} reply: not JSON (${(err as Error).message})`);
    }
    const checked = checkReply(kind, value);
    if (!checked.ok) throw new MalformedReplyError(kind, checked.problem);
    return checked.value;
  });
}

/**
 * Queue one task on the work-queue stream and wait for its reply on a private inbox; `read` turns the
 * bytes received into the reply or throws. The inbox subscription exists before the publish, so a fast
 * worker cannot answer into the void.
 */
export async function queueTask<R>(
  nc: NatsConnection,
  task: { taskId: string },
  timeoutMs: number,
  opts: RunTaskOptions,
  read: (data: Uint8Array) => R,
): Promise<R> {
  const inbox = createInbox();
  let settle!: { resolve: (r: R) => void; reject: (e: Error) => void };
  const result = new Promise<R>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const done = () => {
    clearTimeout(timer);
    clearTimeout(startTimer);
    sub.unsubscribe();
  };
  const sub = nc.subscribe(inbox, {
    callback: (err, msg) => {
      // The worker sends its reply until it is acknowledged (deliverReply).
      if (!err && msg.reply) msg.respond();
      if (!err && msg.headers?.get(START_NOTICE_HEADER)) {
        clearTimeout(startTimer);
        return;
      }
      done();
      if (err) settle.reject(err);
      else {
        try {
          settle.resolve(read(msg.data));
        } catch (e) {
          settle.reject(e as Error);
        }
      }
    },
  });
  const timer = setTimeout(() => {
    done();
    settle.reject(new TaskTimeoutError(timeoutMs));
  }, timeoutMs);
  const startWithin = opts.startWithinMs;
  const startTimer =
    startWithin === undefined
      ? undefined
      : setTimeout(() => {
          done();
          settle.reject(new TaskNotStartedError(startWithin));
        }, startWithin);
  const h = headers();
  h.set(REPLY_HEADER, inbox);
  if (startWithin !== undefined) h.set(START_NOTICE_HEADER, "1");
  let settled = false;
  result.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  try {
    await publishDurable(nc, TASK_SUBJECT, encodeJson(task), {
      headers: h,
      msgID: task.taskId,
      giveUp: () => settled,
    });
  } catch (err) {
    done();
    if (/maximum messages/i.test(String((err as Error).message))) throw new QueueFullError();
    throw err;
  }
  return result;
}
