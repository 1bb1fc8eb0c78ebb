import {
  AckPolicy,
  type ConsumerConfig,
  DiscardPolicy,
  type JetStreamManager,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
} from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import {
  JOBS_CONSUMER,
  RESULTS_STREAM,
  RESULTS_SUBJECT,
  TASK_STREAM,
  TASK_SUBJECT,
  WORKER_CONSUMER,
} from "./subjects.ts";

export interface BusOptions {
  servers: string;
  name: string;
}

export async function connectBus(opts: BusOptions): Promise<NatsConnection> {
  return connect({
    servers: opts.servers.split(","),
    name: opts.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    // No Error (with its stack) made ahead of every request and publish in case it fails: a failure is
    // told by its message (no responders, timeout), never by where the request was made.
    noAsyncTraces: true,
  });
}

export interface QueueOptions {
  /** Tasks the queue holds before new ones are refused (the api answers 429). */
  maxPending: number;
  /** How long a worker may hold a task without acking before it is redelivered. */
  ackWaitMs: number;
  /** Servers of a NATS cluster that keep a copy of the stream (NATS_STREAM_REPLICAS; 1 on one server). */
  replicas?: number;
}

/** How long the task stream keeps a task before dropping it unrun. */
export const TASK_MAX_AGE_MS = 10 * 60_000;
/**
 * How long a task's id (its Nats-Msg-Id) is remembered: a second publish with the same id in this window
 * is dropped, whether the first is still queued or already done. As long as a task can live, so a task
 * sent again after a crash (the jobs program resends what it claimed) never runs twice.
 */
export const TASK_DUPLICATE_WINDOW_MS = TASK_MAX_AGE_MS;

/** Create or update the task stream and the shared worker consumer; safe to call from every process. */
export async function ensureTaskQueue(nc: NatsConnection, opts: QueueOptions): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const config = {
    name: TASK_STREAM,
    subjects: [TASK_SUBJECT],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    discard: DiscardPolicy.New,
    max_msgs: opts.maxPending,
    num_replicas: opts.replicas ?? 1,
    max_age: TASK_MAX_AGE_MS * 1e6,
    duplicate_window: TASK_DUPLICATE_WINDOW_MS * 1e6,
  };
  await ensureStream(jsm, config);
  await ensureConsumer(jsm, TASK_STREAM, {
    durable_name: WORKER_CONSUMER,
    ack_policy: AckPolicy.Explicit,
    ack_wait: opts.ackWaitMs * 1e6,
    max_deliver: 3,
    max_ack_pending: -1,
  });
}

/**
 * Create or update the stream that carries job page results, and the jobs program's durable consumer.
 * Results are kept on disk until the jobs program has recorded them (work-queue retention).
 */
export async function ensureResultsStream(
  nc: NatsConnection,
  opts: { ackWaitMs: number; replicas?: number },
): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const config = {
    name: RESULTS_STREAM,
    subjects: [RESULTS_SUBJECT],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    num_replicas: opts.replicas ?? 1,
    max_age: 24 * 3600 * 1e9,
    duplicate_window: 120 * 1e9,
  };
  await ensureStream(jsm, config);
  await ensureConsumer(jsm, RESULTS_STREAM, {
    durable_name: JOBS_CONSUMER,
    ack_policy: AckPolicy.Explicit,
    ack_wait: opts.ackWaitMs * 1e6,
    max_deliver: -1,
    max_ack_pending: 1000,
  });
}

/** The stream as `config` says, made or brought up to date; safe to call from every process at once. */
export async function ensureStream(
  jsm: JetStreamManager,
  config: Partial<StreamConfig> & { name: string },
): Promise<void> {
  try {
    await jsm.streams.info(config.name);
    await jsm.streams.update(config.name, config);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await jsm.streams.add(config);
  }
}

/** The durable consumer as `config` says, made or brought up to date. */
export async function ensureConsumer(
  jsm: JetStreamManager,
  stream: string,
  config: Partial<ConsumerConfig> & { durable_name: string },
): Promise<void> {
  try {
    await jsm.consumers.info(stream, config.durable_name);
    await jsm.consumers.update(stream, config.durable_name, config);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await jsm.consumers.add(stream, config);
  }
}

function isNotFound(err: unknown): boolean {
  const e = err as { code?: unknown; message?: string; api_error?: { err_code?: number } };
  return (
    e?.api_error?.err_code === 10059 ||
    e?.api_error?.err_code === 10014 ||
    /not found/i.test(String(e?.message ?? ""))
  );
}

/** Backlog of browser work: tasks waiting plus tasks held by workers. */
export async function taskBacklog(nc: NatsConnection): Promise<{ pending: number; ackPending: number }> {
  const jsm = await jetstreamManager(nc);
  const info = await jsm.consumers.info(TASK_STREAM, WORKER_CONSUMER);
  return { pending: info.num_pending, ackPending: info.num_ack_pending };
}
