import { checkReceived, type WorkerState, workerState } from "@browserfleet/contracts";
import { jetstreamManager } from "@nats-io/jetstream";
import { type KV, Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { decodeJson, encodeJson } from "./codec.ts";
import { WORKERS_BUCKET } from "./subjects.ts";

export type { WorkerState };

export const WORKER_TTL_MS = 15_000;

/**
 * The workers bucket. The programs that write it (api, worker) name how many servers of a cluster keep
 * it, and an existing bucket is brought to that many; a reader (the operator) leaves it as it is.
 */
export async function openWorkersBucket(nc: NatsConnection, replicas?: number): Promise<KV> {
  const kv = await new Kvm(nc).create(WORKERS_BUCKET, {
    ttl: WORKER_TTL_MS,
    history: 1,
    replicas: replicas ?? 1,
  });
  if (replicas === undefined) return kv;
  const jsm = await jetstreamManager(nc);
  const { config } = await jsm.streams.info(`KV_${WORKERS_BUCKET}`);
  if (config.num_replicas !== replicas)
    await jsm.streams.update(config.name, { ...config, num_replicas: replicas });
  return kv;
}

export async function putWorkerState(kv: KV, state: WorkerState): Promise<void> {
  await kv.put(state.workerId, encodeJson(state));
}

/**
 * The live workers. Keys come from the bucket's stream info (a plain request) rather than `kv.keys()`,
 * whose push consumer can outlive a closed connection and keep its process from exiting. An entry that
 * is not a WorkerState (a worker of another version) is left out, as a worker nobody can count on.
 */
export async function listWorkers(nc: NatsConnection, kv: KV): Promise<WorkerState[]> {
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(`KV_${WORKERS_BUCKET}`, { subjects_filter: ">" });
  const prefix = `$KV.${WORKERS_BUCKET}.`;
  const out: WorkerState[] = [];
  const now = Date.now();
  for (const subject of Object.keys(info.state.subjects ?? {})) {
    if (!subject.startsWith(prefix)) continue;
    const entry = await kv.get(subject.slice(prefix.length));
    if (entry?.operation !== "PUT") continue;
    const state = readWorkerState(entry.value);
    if (state && now - state.updatedAt < WORKER_TTL_MS) out.push(state);
  }
  return out;
}

/** A workers-bucket entry checked against its contract; undefined when it is not one. */
export function readWorkerState(data: Uint8Array): WorkerState | undefined {
  let value: unknown;
  try {
    value = decodeJson<unknown>(data);
  } catch {
    return undefined;
  }
  const checked = checkReceived(workerState, "worker state", value);
  return checked.ok ? checked.value : undefined;
}
