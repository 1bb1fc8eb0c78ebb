import { type JsMsg, jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { headers } from "@nats-io/transport-node";
import { encodeJson } from "./codec.ts";
import { deliverReply } from "./reply.ts";
import { REPLY_HEADER, START_NOTICE_HEADER, TASK_STREAM, WORKER_CONSUMER } from "./subjects.ts";

/** A message as the worker reads it: a task to run, or the reply that refuses it. */
export type Admitted<T, R> = { task: T } | { refused: R };

export interface SlotLoopOptions<T, R> {
  slots: number;
  ackWaitMs: number;
  /**
   * Read and check a message. A refused one (not JSON, an unknown kind, a malformed task) is answered
   * with `refused` at once and terminated: never run, never retried. Must not throw.
   */
  admit: (data: Uint8Array) => Admitted<T, R> | Promise<Admitted<T, R>>;
  handle: (task: T) => Promise<R>;
  /**
   * Runs after the reply is sent and the task acked; the slot stays busy until it resolves. A live
   * session keeps its slot this way until it ends.
   */
  holdSlot?: (task: T, reply: R) => Promise<void> | undefined;
  /** While true, no slot takes a new task (the worker is near its memory limit); tasks running go on. */
  paused?: () => boolean;
  /** Called with the number of busy slots whenever it changes. */
  onBusy?: (busy: number) => void;
  /** A task whose deadline passed before it started is dropped: nobody waits for it. */
  deadlineOf?: (task: T) => number | undefined;
  onExpired?: (task: T) => void;
  maxPayload: number;
  tooLarge: (task: T, bytes: number) => R;
}

export interface SlotLoops {
  /** Stop pulling, finish held tasks, resolve when all slots are idle. */
  drain(): Promise<void>;
  busy(): number;
}

/** A reply whose task has no deadline is delivered for at most this long. */
const REPLY_FOR_MS = 30_000;

/** Each slot holds at most one pull request, so a worker never takes more work than it has free slots. */
export function startSlotLoops<T, R>(nc: NatsConnection, opts: SlotLoopOptions<T, R>): SlotLoops {
  let stopping = false;
  let busy = 0;
  const js = jetstream(nc);
  // Delivered in the background: the slot takes its next task meanwhile. A waiting side that does not
  // acknowledge (an api of an earlier version) is still sent the reply at once; only the resends wait.
  const sendReply = (to: string, payload: Uint8Array, until: number) => {
    void deliverReply(nc, to, payload, until);
  };

  async function process(msg: JsMsg): Promise<void> {
    const replyTo = msg.headers?.get(REPLY_HEADER);
    const admitted = await opts.admit(msg.data);
    if ("refused" in admitted) {
      if (replyTo) sendReply(replyTo, encodeJson(admitted.refused), Date.now() + REPLY_FOR_MS);
      msg.term();
      return;
    }
    const task = admitted.task;
    const deadline = opts.deadlineOf?.(task);
    if (deadline !== undefined && Date.now() > deadline) {
      opts.onExpired?.(task);
      msg.term();
      return;
    }
    const heartbeat = setInterval(() => msg.working(), Math.max(1000, opts.ackWaitMs / 3));
    let reply: R;
    try {
      if (replyTo && msg.headers?.get(START_NOTICE_HEADER)) {
        const h = headers();
        h.set(START_NOTICE_HEADER, "1");
        nc.publish(replyTo, new Uint8Array(), { headers: h });
      }
      reply = await opts.handle(task);
      if (replyTo) {
        let payload = encodeJson(reply);
        if (payload.byteLength > opts.maxPayload)
          payload = encodeJson(opts.tooLarge(task, payload.byteLength));
        sendReply(replyTo, payload, deadline ?? Date.now() + REPLY_FOR_MS);
      }
      msg.ack();
    } finally {
      clearInterval(heartbeat);
    }
    await opts.holdSlot?.(task, reply);
  }

  async function slot(): Promise<void> {
    const consumer = await js.consumers.get(TASK_STREAM, WORKER_CONSUMER);
    while (!stopping) {
      if (opts.paused?.()) {
        await new Promise((r) => setTimeout(r, 250));
        continue;
      }
      let msg: JsMsg | null = null;
      try {
        msg = await consumer.next({ expires: 2000 });
      } catch {
        if (!stopping) await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      if (!msg) continue;
      if (stopping) {
        msg.nak();
        break;
      }
      // Paused while this pull waited: handed back for a worker with room (or this one, later).
      if (opts.paused?.()) {
        msg.nak(1000);
        continue;
      }
      busy++;
      opts.onBusy?.(busy);
      try {
        await process(msg);
      } catch {
        // The handler turns every task failure into a reply; reaching here means the bus itself failed.
        msg.nak(1000);
      } finally {
        busy--;
        opts.onBusy?.(busy);
      }
    }
  }

  const loops = Array.from({ length: opts.slots }, () => slot());
  return {
    busy: () => busy,
    async drain() {
      stopping = true;
      await Promise.allSettled(loops);
    },
  };
}
