import type { WorkerState } from "@browserfleet/bus";
import {
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
  type V1Deployment,
  type V1Pod,
} from "@kubernetes/client-node";
import { type PoolInformers, poolInformers, startInformers, stopInformers } from "./informers.ts";
import { errorText } from "./kube.ts";
import type { LoadSignals } from "./load.ts";
import type { OperatorMetrics } from "./metrics.ts";
import {
  type Observed,
  type ObservedPod,
  type Plan,
  type PoolMemory,
  plan,
  type ScaleEvent,
} from "./plan.ts";
import {
  browserDeployment,
  browserPdb,
  browserService,
  DELETION_COST_ANNOTATION,
  deploymentName,
  FIELD_MANAGER,
  HASH_ANNOTATION,
  POOL_LABEL,
} from "./resources.ts";
import {
  type BrowserPool,
  type BrowserPoolSpec,
  type BrowserPoolStatus,
  GROUP,
  PLURAL,
  VERSION,
} from "./spec.ts";
import { WorkQueue } from "./work-queue.ts";

export interface ControllerOptions {
  /** Watch one namespace; undefined: all namespaces. */
  namespace?: string;
  /** Every pool is reconciled at least this often (load changes also wake it at once). */
  periodMs: number;
  /** How long a NATS signal waits for more before the reconcile runs. */
  debounceMs?: number;
  log: (msg: string) => void;
}

const MERGE_PATCH = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
/** The first retry of a failed reconcile; later ones double, up to the period. */
const RETRY_MS = 2000;

type ReconcileResult = "success" | "invalid_spec";

/**
 * Reconciles every BrowserPool into a Deployment (+ Service + PodDisruptionBudget) of browser pods,
 * sized from the load. This is the I/O: informers keep a cache of pools, their Deployments and pods and
 * put a pool's key on the work queue when any of them changes, when NATS shows new tasks or worker
 * states, and every `periodMs`; a reconcile observes, asks `plan` what to do, and does it, writing only
 * what differs. Reconciles run one at a time; a failed one is retried after 2 s, then after pauses that
 * double up to the period.
 */
export class PoolController {
  private readonly core: CoreV1Api;
  private readonly custom: CustomObjectsApi;
  private readonly objects: KubernetesObjectApi;
  private readonly informers: PoolInformers;
  private readonly queue: WorkQueue<string>;
  private readonly memory = new Map<string, PoolMemory>();
  private readonly lastScaleLabels = new Map<string, Record<string, string>>();
  private stopped = true;
  private synced = false;

  constructor(
    kc: KubeConfig,
    private readonly load: LoadSignals,
    private readonly metrics: OperatorMetrics,
    private readonly o: ControllerOptions,
  ) {
    this.core = kc.makeApiClient(CoreV1Api);
    this.custom = kc.makeApiClient(CustomObjectsApi);
    this.objects = KubernetesObjectApi.makeApiClient(kc);
    this.informers = poolInformers(kc, o.namespace);
    this.queue = new WorkQueue({
      process: (key) => this.reconcileKey(key),
      backoff: { baseMs: RETRY_MS, maxMs: Math.max(RETRY_MS, o.periodMs) },
      settleMs: o.debounceMs ?? 100,
      onError: (key, err) => this.o.log(`reconcile ${key}: ${errorText(err)}`),
    });
  }

  async start(): Promise<void> {
    this.stopped = false;
    const keyOf = (o: KubernetesObject) => `${o.metadata?.namespace}/${o.metadata?.name}`;
    const poolOf = (o: KubernetesObject) =>
      o.metadata?.labels?.[POOL_LABEL]
        ? `${o.metadata?.namespace}/${o.metadata.labels[POOL_LABEL]}`
        : undefined;
    const { pools, deployments, pods } = this.informers;
    for (const verb of ["add", "update", "delete"] as const) {
      pools.on(verb, (p) => {
        if (verb === "delete") this.forget(p);
        else this.enqueue(keyOf(p));
      });
      deployments.on(verb, (d) => {
        const k = poolOf(d);
        if (k) this.enqueue(k, 50);
      });
      pods.on(verb, (p) => {
        const k = poolOf(p);
        if (k) this.enqueue(k, 200);
      });
    }
    await startInformers(this.informers, { stopped: () => this.stopped, log: this.o.log });
    this.synced = true;
    this.enqueueAll();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.queue.stop();
    await stopInformers(this.informers);
  }

  /** Load moved (a task was published, a worker state changed): look at every pool soon. */
  onSignal(): void {
    this.enqueueAll(this.o.debounceMs ?? 100);
  }

  private enqueueAll(delay = 0): void {
    for (const p of this.informers.pools.list())
      this.enqueue(`${p.metadata.namespace}/${p.metadata.name}`, delay);
  }

  /**
   * Nothing is reconciled before every cache has its first list: a pool seen before its Deployment would
   * look new, and be written back to minReplicas.
   */
  private enqueue(key: string, delay = 0): void {
    if (this.synced) this.queue.add(key, delay);
  }

  private forget(p: BrowserPool): void {
    this.memory.delete(p.metadata.uid);
    this.lastScaleLabels.delete(p.metadata.uid);
    const labels = { namespace: p.metadata.namespace, pool: p.metadata.name };
    for (const g of [
      this.metrics.desired,
      this.metrics.actual,
      this.metrics.ready,
      this.metrics.backlog,
      this.metrics.busySlots,
      this.metrics.slots,
      this.metrics.sessions,
      this.metrics.lastScaleTime,
    ])
      g.remove(labels);
  }

  private async reconcileKey(key: string): Promise<{ requeueAfterMs: number } | undefined> {
    const [ns, name] = key.split("/") as [string, string];
    const pool = this.informers.pools.get(name, ns);
    if (!pool) return undefined;
    const end = this.metrics.reconcileDuration.startTimer();
    try {
      this.metrics.reconciles.inc({ result: await this.reconcile(pool) });
    } catch (err) {
      this.metrics.reconciles.inc({ result: "error" });
      throw err;
    } finally {
      end();
    }
    return { requeueAfterMs: this.o.periodMs };
  }

  /** One pass over one pool: observe, plan, act. */
  private async reconcile(pool: BrowserPool): Promise<ReconcileResult> {
    const { observed, deployment } = await this.observe(pool);
    const p = plan(observed);
    if (p.action === "none") return "success";
    if (p.action === "report") {
      await this.writeStatus(pool, p.status);
      return "invalid_spec";
    }
    const { namespace } = pool.metadata;
    await this.setDeletionCosts(namespace, p.deletionCosts);
    for (const pod of p.drain) {
      const acked = await this.load.drain(pod);
      this.metrics.drains.inc({ outcome: acked ? "acked" : "no_answer" });
    }
    let done: Extract<Plan, { action: "reconcile" }> = p;
    try {
      const written = await this.apply(pool, p.spec, deployment, p.desired);
      this.memory.set(pool.metadata.uid, { ...p.memory, written: written ?? p.memory.written });
    } catch (err) {
      const failed = plan(observed, { applyError: errorText(err) });
      if (failed.action === "reconcile") done = failed;
      this.memory.set(pool.metadata.uid, done.memory);
    }
    if (done.scale) this.recordScale(pool, done.scale);
    for (const pod of done.replace) {
      this.o.log(`${namespace}/${pod}: drained and idle but kept; replacing it`);
      await this.core.deleteNamespacedPod({ name: pod, namespace }).catch(() => {});
    }
    this.setPoolMetrics(pool, done.status);
    await this.writeStatus(pool, done.status);
    return "success";
  }

  /** The load from NATS, then the pool's Deployment and pods from the caches (fresh after the read). */
  private async observe(pool: BrowserPool): Promise<{ observed: Observed; deployment?: V1Deployment }> {
    let load: Observed["load"];
    try {
      load = { fleet: await this.load.read() };
    } catch (err) {
      load = { error: (err as Error).message };
    }
    const { name, namespace } = pool.metadata;
    const deployment = this.informers.deployments.get(deploymentName(name), namespace);
    const byPod = new Map<string, WorkerState>();
    for (const w of "fleet" in load ? load.fleet.workers : []) byPod.set(w.workerId, w);
    const pods: ObservedPod[] = this.informers.pods
      .list(namespace)
      .filter((p) => p.metadata?.labels?.[POOL_LABEL] === name && ownedBySameDeployment(p, deployment))
      .map((p) => ({
        name: p.metadata!.name!,
        worker: byPod.get(p.metadata!.name!),
        ready: !!p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
        terminating: !!p.metadata?.deletionTimestamp,
        deletionCost: p.metadata?.annotations?.[DELETION_COST_ANNOTATION],
      }));
    const observed: Observed = {
      now: Date.now(),
      pool,
      deployment: deployment && {
        generation: deployment.metadata?.generation ?? 0,
        specReplicas: deployment.spec?.replicas,
        replicas: deployment.status?.replicas ?? 0,
        readyReplicas: deployment.status?.readyReplicas ?? 0,
      },
      pods,
      load,
      memory: this.memory.get(pool.metadata.uid),
    };
    return { observed, deployment };
  }

  private recordScale(pool: BrowserPool, s: ScaleEvent): void {
    const { namespace, name, uid } = pool.metadata;
    this.metrics.scaleDecisions.inc({ namespace, pool: name, direction: s.direction, reason: s.reason });
    const previous = this.lastScaleLabels.get(uid);
    if (previous) this.metrics.lastScale.remove(previous);
    const labels = {
      namespace,
      pool: name,
      direction: s.direction,
      reason: s.reason,
      replicas: String(s.to),
    };
    this.lastScaleLabels.set(uid, labels);
    this.metrics.lastScale.set(labels, 1);
    this.metrics.lastScaleTime.set({ namespace, pool: name }, Date.now() / 1000);
    this.o.log(`${namespace}/${name}: scaled ${s.direction} ${s.from} -> ${s.to} (${s.reason}): ${s.detail}`);
  }

  private setPoolMetrics(pool: BrowserPool, status: BrowserPoolStatus): void {
    const labels = { namespace: pool.metadata.namespace, pool: pool.metadata.name };
    this.metrics.desired.set(labels, status.desiredReplicas ?? 0);
    this.metrics.actual.set(labels, status.replicas ?? 0);
    this.metrics.ready.set(labels, status.readyReplicas ?? 0);
    this.metrics.busySlots.set(labels, status.busySlots ?? 0);
    this.metrics.slots.set(labels, status.slots ?? 0);
    this.metrics.sessions.set(labels, status.sessions ?? 0);
    if (status.backlog !== undefined) this.metrics.backlog.set(labels, status.backlog);
  }

  /** Writes the Deployment (when it differs), and the Service and PDB when missing. */
  private async apply(
    pool: BrowserPool,
    spec: BrowserPoolSpec,
    existing: V1Deployment | undefined,
    replicas: number,
  ): Promise<{ generation: number; replicas: number } | undefined> {
    const dep = browserDeployment(pool, spec, replicas);
    let written: { generation: number; replicas: number } | undefined;
    const same =
      existing &&
      existing.metadata?.annotations?.[HASH_ANNOTATION] === dep.metadata?.annotations?.[HASH_ANNOTATION] &&
      existing.spec?.replicas === replicas &&
      existing.metadata?.ownerReferences?.some((r) => r.uid === pool.metadata.uid);
    if (!same) {
      const out = (await this.ssa(dep)) as V1Deployment;
      written = { generation: out.metadata?.generation ?? 0, replicas };
    }
    const { namespace } = pool.metadata;
    const name = deploymentName(pool.metadata.name);
    // The Service and PDB are created once (and re-created if someone deletes them).
    if (!existing || !(await this.exists("v1", "Service", namespace, name)))
      await this.ssa(browserService(pool, spec));
    if (!existing || !(await this.exists("policy/v1", "PodDisruptionBudget", namespace, name)))
      await this.ssa(browserPdb(pool));
    return written;
  }

  private readonly seen = new Map<string, number>();
  /** Checked at most once a minute per object, to notice a deleted Service or PDB without a watch. */
  private async exists(apiVersion: string, kind: string, namespace: string, name: string): Promise<boolean> {
    const key = `${kind}/${namespace}/${name}`;
    const at = this.seen.get(key);
    if (at && Date.now() - at < 60_000) return true;
    try {
      await this.objects.read({ apiVersion, kind, metadata: { name, namespace } });
      this.seen.set(key, Date.now());
      return true;
    } catch {
      this.seen.delete(key);
      return false;
    }
  }

  private async ssa(obj: KubernetesObject): Promise<KubernetesObject> {
    return this.objects.patch(obj, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply);
  }

  private async setDeletionCosts(
    namespace: string,
    costs: { pod: string; cost: string | null }[],
  ): Promise<void> {
    for (const { pod, cost } of costs)
      await this.core
        .patchNamespacedPod(
          { name: pod, namespace, body: { metadata: { annotations: { [DELETION_COST_ANNOTATION]: cost } } } },
          MERGE_PATCH,
        )
        .catch((err: unknown) => this.o.log(`annotating pod ${namespace}/${pod}: ${errorText(err)}`));
  }

  private async writeStatus(pool: BrowserPool, status: BrowserPoolStatus): Promise<void> {
    const clean = JSON.parse(JSON.stringify(status)) as BrowserPoolStatus;
    if (sameStatus(pool.status, clean)) return;
    await this.custom.patchNamespacedCustomObjectStatus(
      {
        group: GROUP,
        version: VERSION,
        namespace: pool.metadata.namespace,
        plural: PLURAL,
        name: pool.metadata.name,
        body: { status: clean },
      },
      MERGE_PATCH,
    );
  }
}

function ownedBySameDeployment(pod: V1Pod, dep: V1Deployment | undefined): boolean {
  // Pods of an older, deleted pool with the same name are not ours; a pod belongs via its ReplicaSet.
  return !!dep && !!pod.metadata?.ownerReferences?.some((r) => r.kind === "ReplicaSet");
}

/** Equal but for the conditions' transition times (which a pass that changes nothing keeps anyway). */
function sameStatus(a: BrowserPoolStatus | undefined, b: BrowserPoolStatus): boolean {
  if (!a) return false;
  const norm = (s: BrowserPoolStatus) => JSON.stringify(s, Object.keys({ ...s }).sort());
  const strip = (s: BrowserPoolStatus) => ({ ...s, conditions: undefined });
  if (norm(strip(a)) !== norm(strip(b))) return false;
  const ca = a.conditions ?? [];
  const cb = b.conditions ?? [];
  if (ca.length !== cb.length) return false;
  return cb.every((c) => {
    const o = ca.find((x) => x.type === c.type);
    return (
      !!o &&
      o.status === c.status &&
      o.reason === c.reason &&
      o.message === c.message &&
      o.observedGeneration === c.observedGeneration
    );
  });
}
