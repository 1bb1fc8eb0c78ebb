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

export async function listWorkers(kv: KV): Promise<WorkerState[]> {
  const out: WorkerState[] = [];
  const now = Date.now();
  for await (const key of await kv.keys()) {
    const entry = await kv.get(key);
    if (entry?.operation !== "PUT") continue;
    const state = decodeJson<WorkerState>(entry.value);
    if (now - state.updatedAt < WORKER_TTL_MS) out.push(state);
  }
  return out;
}
