import type { WorkerState } from "@browserfleet/bus";
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  type Informer,
  type KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  makeInformer,
  type ObjectCache,
  PatchStrategy,
  setHeaderOptions,
  type V1Deployment,
  type V1Pod,
} from "@kubernetes/client-node";
import { errorText } from "./kube.ts";
import type { FleetLoad, LoadSignals } from "./load.ts";
import type { OperatorMetrics } from "./metrics.ts";
import {
  browserDeployment,
  browserPdb,
  browserService,
  DELETION_COST_ANNOTATION,
  deploymentName,
  FIELD_MANAGER,
  HASH_ANNOTATION,
  POOL_LABEL,
  selectorString,
} from "./resources.ts";
import {
  decideReplicas,
  deletionCost,
  type PodView,
  planScaleDown,
  type Recommendation,
  type ScaleReason,
} from "./sizing.ts";
import {
  type BrowserPool,
  type BrowserPoolSpec,
  type BrowserPoolStatus,
  type Condition,
  GROUP,
  PLURAL,
  parseSpec,
  VERSION,
} from "./spec.ts";

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
/** A drained pod that stays idle this long without being removed is replaced. */
const STALE_DRAIN_MS = 30_000;

interface PoolMemory {
  history: Recommendation[];
  lastScale?: { at: string; reason: ScaleReason; message: string; direction: "up" | "down" };
  lastScaleLabels?: { namespace: string; pool: string; direction: string; reason: string; replicas: string };
  /** The size last written and the Deployment generation it produced (the cache may lag behind). */
  written?: { generation: number; replicas: number };
}

type Cached<T extends KubernetesObject> = Informer<T> & ObjectCache<T>;

/**
 * Reconciles every BrowserPool into a Deployment (+ Service + PodDisruptionBudget) of browser pods,
 * sized from the load. Informers keep a cache of pools, their Deployments and pods; a pool is reconciled
 * when any of them changes, when NATS shows new tasks or worker states, and every `periodMs`.
 * Reconciles run one at a time; each one is idempotent (it writes only what differs).
 */
export class PoolController {
  private readonly core: CoreV1Api;
  private readonly custom: CustomObjectsApi;
  private readonly objects: KubernetesObjectApi;
  private readonly pools: Cached<BrowserPool & KubernetesObject>;
  private readonly deployments: Cached<V1Deployment>;
  private readonly pods: Cached<V1Pod>;
  private readonly memory = new Map<string, PoolMemory>();
  private readonly drainingSince = new Map<string, number>();
  private readonly dirty = new Set<string>();
  private pumpTimer?: NodeJS.Timeout;
  private periodTimer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = true;

  constructor(
    kc: KubeConfig,
    private readonly load: LoadSignals,
    private readonly metrics: OperatorMetrics,
    private readonly o: ControllerOptions,
  ) {
    this.core = kc.makeApiClient(CoreV1Api);
    this.custom = kc.makeApiClient(CustomObjectsApi);
    this.objects = KubernetesObjectApi.makeApiClient(kc);
    const apps = kc.makeApiClient(AppsV1Api);
    const ns = o.namespace;
    const managed = `app.kubernetes.io/managed-by=${FIELD_MANAGER}`;
    this.pools = makeInformer(
      kc,
      ns ? `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${PLURAL}` : `/apis/${GROUP}/${VERSION}/${PLURAL}`,
      () =>
        ns
          ? this.custom.listNamespacedCustomObject({
              group: GROUP,
              version: VERSION,
              namespace: ns,
              plural: PLURAL,
            })
          : this.custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL }),
    );
    this.deployments = makeInformer(
      kc,
      ns ? `/apis/apps/v1/namespaces/${ns}/deployments` : "/apis/apps/v1/deployments",
      () =>
        ns
          ? apps.listNamespacedDeployment({ namespace: ns, labelSelector: managed })
          : apps.listDeploymentForAllNamespaces({ labelSelector: managed }),
      managed,
    );
    this.pods = makeInformer(
      kc,
      ns ? `/api/v1/namespaces/${ns}/pods` : "/api/v1/pods",
      () =>
        ns
          ? this.core.listNamespacedPod({ namespace: ns, labelSelector: POOL_LABEL })
          : this.core.listPodForAllNamespaces({ labelSelector: POOL_LABEL }),
      POOL_LABEL,
    );
  }

  async start(): Promise<void> {
    this.stopped = false;
    const keyOf = (o: KubernetesObject) => `${o.metadata?.namespace}/${o.metadata?.name}`;
    const poolOf = (o: KubernetesObject) =>
      o.metadata?.labels?.[POOL_LABEL]
        ? `${o.metadata?.namespace}/${o.metadata.labels[POOL_LABEL]}`
        : undefined;
    for (const verb of ["add", "update", "delete"] as const) {
      this.pools.on(verb, (p) => {
        if (verb === "delete") this.forget(p);
        else this.enqueue(keyOf(p));
      });
      this.deployments.on(verb, (d) => {
        const k = poolOf(d);
        if (k) this.enqueue(k, 50);
      });
      this.pods.on(verb, (p) => {
        const k = poolOf(p);
        if (k) this.enqueue(k, 200);
      });
    }
    const informers: [string, Informer<KubernetesObject>][] = [
      ["browserpools", this.pools],
      ["deployments", this.deployments],
      ["pods", this.pods],
    ];
    for (const [name, inf] of informers) {
      // A watch that fails (API server restart, network) starts again, from its last resourceVersion or
      // with a new list; while the API server is away, with a growing pause (1 s .. 30 s).
      const restart = (delay: number) =>
        setTimeout(() => {
          if (this.stopped) return;
          inf.start().catch((e: unknown) => {
            this.o.log(`restarting the watch of ${name}: ${errorText(e)}`);
            restart(Math.min(delay * 2, 30_000));
          });
        }, delay).unref();
      inf.on("error", (err: unknown) => {
        if (this.stopped) return;
        this.o.log(`watch of ${name} ended (${errorText(err)}); restarting it`);
        restart(1000);
      });
    }
    await Promise.all(informers.map(([, inf]) => inf.start()));
    this.periodTimer = setInterval(() => this.enqueueAll(), this.o.periodMs);
    this.enqueueAll();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.periodTimer);
    clearTimeout(this.pumpTimer);
    await this.running;
    await Promise.allSettled([this.pools.stop(), this.deployments.stop(), this.pods.stop()]);
  }

  /** Load moved (a task was published, a worker state changed): look at every pool soon. */
  onSignal(): void {
    this.enqueueAll(this.o.debounceMs ?? 100);
  }

  private enqueueAll(delay = 0): void {
    for (const p of this.pools.list()) this.enqueue(`${p.metadata.namespace}/${p.metadata.name}`, delay);
  }

  private enqueue(key: string, delay = 0): void {
    if (this.stopped) return;
    this.dirty.add(key);
    if (this.pumpTimer || this.running) return;
    this.pumpTimer = setTimeout(() => void this.pump(), delay);
  }

  private async pump(): Promise<void> {
    this.pumpTimer = undefined;
    if (this.running || this.stopped) return;
    let done!: () => void;
    this.running = new Promise<void>((r) => {
      done = r;
    });
    try {
      let fleet: FleetLoad | undefined;
      let loadError: string | undefined;
      while (this.dirty.size > 0 && !this.stopped) {
        const batch = [...this.dirty];
        this.dirty.clear();
        try {
          fleet = await this.load.read();
          loadError = undefined;
        } catch (err) {
          fleet = undefined;
          loadError = (err as Error).message;
        }
        for (const key of batch) {
          const [ns, name] = key.split("/") as [string, string];
          const pool = this.pools.get(name, ns);
          if (!pool) continue;
          const end = this.metrics.reconcileDuration.startTimer();
          try {
            const result = await this.reconcile(pool, fleet, loadError);
            this.metrics.reconciles.inc({ result });
          } catch (err) {
            this.metrics.reconciles.inc({ result: "error" });
            this.o.log(`reconcile ${key}: ${errorText(err)}`);
            // Try again soon; the periodic pass would anyway.
            setTimeout(() => this.enqueue(key), 2000).unref();
          } finally {
            end();
          }
        }
      }
    } finally {
      this.running = undefined;
      done();
      // More work arrived meanwhile: go again, but not more often than the debounce allows.
      if (this.dirty.size > 0 && !this.stopped)
        this.pumpTimer = setTimeout(() => void this.pump(), this.o.debounceMs ?? 100);
    }
  }

  private forget(p: BrowserPool): void {
    this.memory.delete(p.metadata.uid);
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

  /** One pass over one pool. Returns the metric result label. */
  async reconcile(
    pool: BrowserPool,
    fleet: FleetLoad | undefined,
    loadError: string | undefined,
  ): Promise<"success" | "invalid_spec"> {
    if (pool.metadata.deletionTimestamp) return "success"; // the garbage collector removes what it owned
    const { name, namespace } = pool.metadata;
    const now = Date.now();
    const parsed = parseSpec(pool.spec);
    if (!parsed.ok) {
      await this.writeStatus(pool, {
        ...pool.status,
        observedGeneration: pool.metadata.generation,
        conditions: this.conditions(pool, [
          { type: "Ready", status: "False", reason: "InvalidSpec", message: parsed.message },
        ]),
      });
      return "invalid_spec";
    }
    const spec = parsed.spec;
    const deployment = this.deployments.get(deploymentName(name), namespace);
    const podsOfPool = this.pods
      .list(namespace)
      .filter((p) => p.metadata?.labels?.[POOL_LABEL] === name && ownedBySameDeployment(p, deployment));
    const known = this.memory.get(pool.metadata.uid);
    const cachedGeneration = deployment?.metadata?.generation ?? 0;
    const current =
      known?.written && deployment && cachedGeneration < known.written.generation
        ? known.written.replicas
        : (deployment?.spec?.replicas ?? spec.minReplicas);
    const memory: PoolMemory = known ?? {
      // After a restart, start the window with the size found, so a restart never shrinks the pool early.
      history: deployment ? [{ at: now, replicas: current }] : [],
    };
    this.memory.set(pool.metadata.uid, memory);

    const byPod = new Map<string, WorkerState>();
    for (const w of fleet?.workers ?? []) byPod.set(w.workerId, w);
    const views: PodView[] = podsOfPool.map((p) => ({
      name: p.metadata!.name!,
      worker: byPod.get(p.metadata!.name!),
      ready: !!p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
      terminating: !!p.metadata?.deletionTimestamp,
    }));
    const workers = views.filter((v) => v.worker && !v.terminating).map((v) => v.worker!);

    // Size.
    let desired = current;
    let scaleMessage: string | undefined;
    let reason: ScaleReason = "steady";
    let heldBack = 0;
    let wanted = 0;
    let victims: string[] = [];
    if (fleet) {
      const decision = decideReplicas({
        now,
        current,
        policy: spec,
        load: { pending: fleet.pending, ackPending: fleet.ackPending, workers },
        history: memory.history,
      });
      memory.history = decision.history;
      wanted = decision.wanted;
      desired = decision.desired;
      reason = decision.reason;
      scaleMessage = decision.message;
      if (desired < current && deployment) {
        const plan = planScaleDown(views, current, desired);
        victims = plan.victims;
        heldBack = plan.heldBack;
        desired = plan.desired;
        if (heldBack > 0) {
          reason = "sessions_held";
          scaleMessage = `${decision.message}; ${heldBack} pod(s) kept because they hold live sessions`;
        }
      }
    } else {
      // Without load signals only the bounds are enforced.
      desired = Math.min(Math.max(current, spec.minReplicas), Math.max(spec.minReplicas, spec.maxReplicas));
      if (desired !== current) {
        reason = desired > current ? "min_replicas" : "max_replicas";
        scaleMessage = `load unknown (${loadError}); keeping within min/max`;
      }
    }

    // Before shrinking: victims first in the ReplicaSet's order, then told to stop taking tasks.
    await this.markDeletionCosts(namespace, podsOfPool, views, new Set(victims));
    for (const v of victims) {
      const view = views.find((x) => x.name === v);
      if (!view?.worker || view.worker.draining) continue;
      const acked = await this.load.drain(v);
      this.metrics.drains.inc({ outcome: acked ? "acked" : "no_answer" });
    }

    // Write the Deployment, Service and PDB (only what differs from the cache).
    let applyError: string | undefined;
    try {
      const written = await this.apply(pool, spec, deployment, desired);
      if (written) memory.written = written;
    } catch (err) {
      applyError = errorText(err);
    }
    if (!applyError && desired !== current) {
      const direction = desired > current ? "up" : "down";
      memory.lastScale = {
        at: new Date(now).toISOString(),
        reason,
        message: `${current} -> ${desired}: ${scaleMessage ?? reason}`,
        direction,
      };
      this.metrics.scaleDecisions.inc({ namespace, pool: name, direction, reason });
      if (memory.lastScaleLabels) this.metrics.lastScale.remove(memory.lastScaleLabels);
      memory.lastScaleLabels = { namespace, pool: name, direction, reason, replicas: String(desired) };
      this.metrics.lastScale.set(memory.lastScaleLabels, 1);
      this.metrics.lastScaleTime.set({ namespace, pool: name }, now / 1000);
      this.o.log(
        `${namespace}/${name}: scaled ${direction} ${current} -> ${desired} (${reason}): ${scaleMessage}`,
      );
    }

    // Drained pods that stayed (their scale-down did not happen) are replaced once idle.
    await this.replaceStaleDrained(namespace, views, new Set(victims), desired < current);

    // Status.
    const busy = workers.reduce((s, w) => s + w.busy, 0);
    const slots = workers.reduce((s, w) => s + w.slots, 0);
    const sessions = workers.reduce((s, w) => s + w.sessions, 0);
    const backlog = fleet ? fleet.pending + fleet.ackPending : pool.status?.backlog;
    const replicas = deployment?.status?.replicas ?? 0;
    const ready = deployment?.status?.readyReplicas ?? 0;
    const labels = { namespace, pool: name };
    this.metrics.desired.set(labels, desired);
    this.metrics.actual.set(labels, replicas);
    this.metrics.ready.set(labels, ready);
    this.metrics.busySlots.set(labels, busy);
    this.metrics.slots.set(labels, slots);
    this.metrics.sessions.set(labels, sessions);
    if (backlog !== undefined) this.metrics.backlog.set(labels, backlog);

    const conds: Omit<Condition, "lastTransitionTime">[] = [];
    if (applyError)
      conds.push({
        type: "Ready",
        status: "False",
        reason: "ApplyFailed",
        message: `writing the Deployment failed: ${applyError}`,
      });
    else if (!deployment)
      conds.push({
        type: "Ready",
        status: "False",
        reason: "Creating",
        message: `Deployment ${deploymentName(name)} created, waiting for its pods`,
      });
    else if (ready >= Math.max(1, Math.min(desired, spec.minReplicas)) || (desired === 0 && replicas === 0))
      conds.push({
        type: "Ready",
        status: "True",
        reason: "PodsReady",
        message: `${ready} of ${desired} browser pods ready`,
      });
    else
      conds.push({
        type: "Ready",
        status: "False",
        reason: "PodsNotReady",
        message: `${ready} of ${desired} browser pods ready; waiting for pods to start`,
      });
    conds.push(
      fleet
        ? {
            type: "LoadSignals",
            status: "True",
            reason: "Reading",
            message: `backlog ${backlog}, ${workers.length} workers reporting from NATS`,
          }
        : {
            type: "LoadSignals",
            status: "False",
            reason: "NatsUnavailable",
            message: `cannot read the load from NATS: ${loadError}; the pool keeps its size`,
          },
    );
    if (heldBack > 0)
      conds.push({
        type: "ScalingLimited",
        status: "True",
        reason: "SessionsHeld",
        message: scaleMessage ?? "",
      });
    else if (wanted > spec.maxReplicas)
      conds.push({
        type: "ScalingLimited",
        status: "True",
        reason: "AtMaxReplicas",
        message: `the load asks for ${wanted} pods; maxReplicas is ${spec.maxReplicas}`,
      });
    else if (reason === "stabilizing" || reason === "step_limited")
      conds.push({
        type: "ScalingLimited",
        status: "True",
        reason: reason === "stabilizing" ? "Stabilizing" : "StepLimited",
        message: scaleMessage ?? "",
      });
    else
      conds.push({
        type: "ScalingLimited",
        status: "False",
        reason: "WithinLimits",
        message: "the size follows the load",
      });

    await this.writeStatus(pool, {
      observedGeneration: pool.metadata.generation,
      replicas,
      readyReplicas: ready,
      desiredReplicas: desired,
      slots,
      busySlots: busy,
      backlog,
      sessions,
      lastScaleTime: memory.lastScale?.at ?? pool.status?.lastScaleTime,
      lastScaleReason: memory.lastScale?.message ?? pool.status?.lastScaleReason,
      selector: selectorString(name),
      conditions: this.conditions(pool, conds),
    });
    return "success";
  }

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
    const svc = browserService(pool, spec);
    const pdb = browserPdb(pool);
    if (!existing || !(await this.exists("v1", "Service", namespace, name))) await this.ssa(svc);
    if (!existing || !(await this.exists("policy/v1", "PodDisruptionBudget", namespace, name)))
      await this.ssa(pdb);
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

  private async markDeletionCosts(
    namespace: string,
    pods: V1Pod[],
    views: PodView[],
    victims: Set<string>,
  ): Promise<void> {
    for (const view of views) {
      if (view.terminating) continue;
      const pod = pods.find((p) => p.metadata?.name === view.name);
      const want = deletionCost(view, victims.has(view.name));
      const have = pod?.metadata?.annotations?.[DELETION_COST_ANNOTATION];
      if ((have ?? "0") === String(want)) continue;
      await this.core
        .patchNamespacedPod(
          {
            name: view.name,
            namespace,
            body: {
              metadata: { annotations: { [DELETION_COST_ANNOTATION]: want === 0 ? null : String(want) } },
            },
          },
          MERGE_PATCH,
        )
        .catch((err: unknown) => this.o.log(`annotating pod ${namespace}/${view.name}: ${errorText(err)}`));
    }
  }

  private async replaceStaleDrained(
    namespace: string,
    views: PodView[],
    victims: Set<string>,
    shrinking: boolean,
  ): Promise<void> {
    const now = Date.now();
    for (const v of views) {
      const key = `${namespace}/${v.name}`;
      if (!v.worker?.draining || v.terminating || victims.has(v.name)) {
        this.drainingSince.delete(key);
        continue;
      }
      const since = this.drainingSince.get(key) ?? now;
      this.drainingSince.set(key, since);
      if (shrinking || v.worker.busy > 0 || v.worker.sessions > 0 || now - since < STALE_DRAIN_MS) continue;
      this.o.log(`${key}: drained and idle but kept; replacing it`);
      this.drainingSince.delete(key);
      await this.core.deleteNamespacedPod({ name: v.name, namespace }).catch(() => {});
    }
  }

  /** Conditions with lastTransitionTime kept from the current status when their status did not change. */
  private conditions(pool: BrowserPool, next: Omit<Condition, "lastTransitionTime">[]): Condition[] {
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
    return next.map((c) => {
      const prev = pool.status?.conditions?.find((p) => p.type === c.type);
      return {
        ...c,
        observedGeneration: pool.metadata.generation,
        lastTransitionTime: prev && prev.status === c.status ? prev.lastTransitionTime : now,
      };
    });
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
