import { jetstreamManager } from "@nats-io/jetstream";
import { type KV, Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { decodeJson, encodeJson } from "./codec.ts";
import { WORKERS_BUCKET } from "./subjects.ts";

/** What a browser worker publishes about itself; the operator and /metrics read it. */
export interface WorkerState {
  workerId: string;
  slots: number;
  busy: number;
  sessions: number;
  draining: boolean;
  updatedAt: number;
}

export const WORKER_TTL_MS = 15_000;

export async function openWorkersBucket(nc: NatsConnection): Promise<KV> {
  return new Kvm(nc).create(WORKERS_BUCKET, { ttl: WORKER_TTL_MS, history: 1 });
}

export async function putWorkerState(kv: KV, state: WorkerState): Promise<void> {
  await kv.put(state.workerId, encodeJson(state));
}

/**
 * The live workers. Keys come from the bucket's stream info (a plain request) rather than `kv.keys()`,
 * whose push consumer can outlive a closed connection and keep its process from exiting.
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
    const state = decodeJson<WorkerState>(entry.value);
    if (now - state.updatedAt < WORKER_TTL_MS) out.push(state);
  }
  return out;
}
