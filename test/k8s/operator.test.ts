/**
 * The operator against a real API server: etcd, kube-apiserver, kube-controller-manager, kube-scheduler
 * and KWOK run as local processes (built once into .tools/ by scripts/k8s-tools.sh); NATS is a real
 * nats-server with JetStream. The operator runs as its own process, as in a pod.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  connectBus,
  ensureTaskQueue,
  type LocalNats,
  openWorkersBucket,
  startLocalNats,
  TASK_STREAM,
  TASK_SUBJECT,
} from "@browserfleet/bus";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import yaml from "js-yaml";
import {
  applyObject,
  ensureKubeTools,
  type KubeCluster,
  ROOT,
  startKubeCluster,
  waitFor,
} from "../helpers/kube.ts";
import { FakeWorkers, type OperatorProc, startOperatorProcess } from "../helpers/kube-fleet.ts";

const NS = "default";
const POOLS = `/apis/browserfleet.dev/v1alpha1/namespaces/${NS}/browserpools`;
const tools = await ensureKubeTools("cluster");

// biome-ignore lint/suspicious/noExplicitAny: raw API objects
type Obj = any;

describe("operator on a real API server", { skip: tools.skip, timeout: 15 * 60_000 }, () => {
  let cluster: KubeCluster;
  let nats: LocalNats;
  let natsDir: string;
  let nc: NatsConnection;
  let workers: FakeWorkers;
  const operators: OperatorProc[] = [];

  const pool = (name: string, spec: Obj) => ({
    apiVersion: "browserfleet.dev/v1alpha1",
    kind: "BrowserPool",
    metadata: { name, namespace: NS },
    spec: { image: "browserfleet/browser:test", ...spec },
  });
  const get = async (path: string) => (await cluster.api("GET", path)).body;
  const deployment = (name: string) => get(`/apis/apps/v1/namespaces/${NS}/deployments/${name}-browser`);
  const startOperator = async (id: string, env: Record<string, string> = {}) => {
    const op = await startOperatorProcess({
      KUBECONFIG_PATH: cluster.kubeconfigPath,
      NATS_URL: nats.url,
      POD_NAME: id,
      ...env,
    });
    operators.push(op);
    return op;
  };

  before(async () => {
    cluster = await startKubeCluster({ nodes: 1 });
    natsDir = await mkdtemp(join(tmpdir(), "bf-k8s-nats-"));
    nats = await startLocalNats({ dataDir: natsDir });
    nc = await connectBus({ servers: nats.url, name: "k8s-test" });
    await ensureTaskQueue(nc, { maxPending: 1000, ackWaitMs: 60_000 });
    const crd = yaml.load(readFileSync(join(ROOT, "crds/browserpools.browserfleet.dev.yaml"), "utf8"));
    await applyObject(cluster, crd);
    await waitFor("the CRD to be established", async () => {
      const c = await get(
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/browserpools.browserfleet.dev",
      );
      return c.status?.conditions?.some((x: Obj) => x.type === "Established" && x.status === "True");
    });
    await waitFor(
      "the BrowserPool API to be served",
      async () => (await cluster.api("GET", POOLS)).status === 200,
    );
  });

  after(async () => {
    workers?.stop();
    for (const op of operators) await op.kill().catch(() => {});
    await nc?.close().catch(() => {});
    await nats?.stop();
    await cluster?.stop();
    if (natsDir) await rm(natsDir, { recursive: true, force: true });
  });

  it("refuses invalid specs with the CRD schema, and defaults the rest", async () => {
    const bad = [
      [{ minReplicas: 5, maxReplicas: 2 }, /minReplicas must not be greater than maxReplicas/],
      [{ slotsPerPod: 0 }, /slotsPerPod/],
      [{ targetUtilizationPercent: 150 }, /targetUtilizationPercent/],
      [{ scaleDown: { maxStepPods: 0 } }, /maxStepPods/],
    ] as const;
    for (const [spec, message] of bad) {
      const r = await cluster.api("POST", POOLS, pool("bad", spec));
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.match(r.body.message, message);
    }
    const noImage = await cluster.api("POST", POOLS, { ...pool("bad", {}), spec: {} });
    assert.equal(noImage.status, 422);
    assert.match(noImage.body.message, /image/);

    const dry = await cluster.api("POST", `${POOLS}?dryRun=All`, pool("defaults", {}));
    assert.equal(dry.status, 201, JSON.stringify(dry.body));
    assert.equal(dry.body.spec.slotsPerPod, 4);
    assert.equal(dry.body.spec.minReplicas, 1);
    assert.deepEqual(dry.body.spec.scaleDown, { maxStepPods: 2, stabilizationSeconds: 300 });
  });

  it("creates a Deployment at minReplicas, with its Service and PDB, and writes a status", async () => {
    await startOperator("operator-a");
    const created = await cluster.api(
      "POST",
      POOLS,
      pool("web", {
        slotsPerPod: 2,
        minReplicas: 1,
        maxReplicas: 6,
        targetUtilizationPercent: 100,
        scaleUp: { maxStepPods: 10, stabilizationSeconds: 0 },
        scaleDown: { maxStepPods: 10, stabilizationSeconds: 4 },
      }),
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const uid = created.body.metadata.uid;
    const dep = await waitFor("the pool's Deployment", async () => {
      const d = await deployment("web");
      return d.kind === "Deployment" ? d : undefined;
    });
    assert.equal(dep.spec.replicas, 1);
    assert.equal(dep.metadata.ownerReferences[0].uid, uid);
    assert.equal(dep.metadata.ownerReferences[0].controller, true);
    const env = dep.spec.template.spec.containers[0].env;
    assert.deepEqual(env.find((e: Obj) => e.name === "WORKER_ID").valueFrom.fieldRef, {
      apiVersion: "v1",
      fieldPath: "metadata.name",
    });
    assert.equal(env.find((e: Obj) => e.name === "BROWSER_SLOTS").value, "2");
    for (const path of [
      `/api/v1/namespaces/${NS}/services/web-browser`,
      `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets/web-browser`,
    ]) {
      const o = await waitFor(path, async () => {
        const r = await cluster.api("GET", path);
        return r.status === 200 ? r.body : undefined;
      });
      assert.equal(o.metadata.ownerReferences[0].uid, uid);
    }
    workers = new FakeWorkers(cluster, nc, "web", 2);
    await workers.start();
    const status = await waitFor(
      "status Ready=True with the pod running",
      async () => {
        const p = await get(`${POOLS}/web`);
        const ready = p.status?.conditions?.find((c: Obj) => c.type === "Ready");
        return ready?.status === "True" && p.status.readyReplicas === 1 && p.status.slots === 2
          ? p
          : undefined;
      },
      60_000,
    );
    assert.equal(status.status.observedGeneration, status.metadata.generation);
    assert.equal(status.status.desiredReplicas, 1);
    assert.equal(status.status.selector, "app.kubernetes.io/component=browser,browserfleet.dev/pool=web");
    const signals = status.status.conditions.find((c: Obj) => c.type === "LoadSignals");
    assert.equal(signals.status, "True");
    assert.ok(status.status.conditions.every((c: Obj) => c.message.length > 0 && c.lastTransitionTime));
  });

  it("scales up to what a JetStream backlog needs", async () => {
    const js = jetstream(nc);
    // 9 tasks at 2 slots per pod and 100 % target: ceil(9 / 2) = 5 pods.
    for (let i = 0; i < 9; i++)
      await js.publish(TASK_SUBJECT, new TextEncoder().encode(`{"taskId":"k8s-${i}"}`));
    const dep = await waitFor(
      "the Deployment at 5 replicas",
      async () => {
        const d = await deployment("web");
        return d.spec?.replicas === 5 ? d : undefined;
      },
      60_000,
    );
    assert.equal(dep.spec.replicas, 5);
    await waitFor(
      "5 ready pods reporting",
      async () => {
        const p = await get(`${POOLS}/web`);
        return p.status?.readyReplicas === 5 && p.status?.backlog === 9 && p.status?.slots === 10;
      },
      90_000,
    );
    const p = await get(`${POOLS}/web`);
    // The backlog grows one publish at a time, so a reconcile may see part of it first (1 -> 2, then 2 -> 5).
    assert.match(p.status.lastScaleReason, /^[1-4] -> 5: 9 slots in demand/);
    const op = operators[0]!;
    assert.ok((await op.metric("browserfleet_operator_scale_decisions_total", { direction: "up" })) >= 1);
    assert.equal(await op.metric("browserfleet_operator_pool_desired_replicas", { pool: "web" }), 5);
    assert.equal(
      await op.metric("browserfleet_operator_last_scale_decision", {
        pool: "web",
        direction: "up",
        replicas: "5",
      }),
      1,
    );
  });

  it("scales down after the stabilisation window and keeps the pod that holds a session", async () => {
    const pods = await workers.pods();
    assert.equal(pods.length, 5);
    // The session sits on the pod that would go first by name, so only the rule can keep it.
    const keep = pods.map((p) => p.name).sort()[0]!;
    workers.state.get(keep)!.sessions = 1;
    workers.state.get(keep)!.busy = 1;
    const kv = await openWorkersBucket(nc);
    await waitFor(
      `${keep}'s session in the workers bucket`,
      async () => (await kv.get(keep))?.json<{ sessions: number }>().sessions === 1,
      10_000,
      50,
    );
    const jsm = await jetstreamManager(nc);
    await jsm.streams.purge(TASK_STREAM);
    const dep = await waitFor(
      "the Deployment back at 1 replica",
      async () => {
        const d = await deployment("web");
        return d.spec?.replicas === 1 ? d : undefined;
      },
      60_000,
    );
    assert.equal(dep.spec.replicas, 1);
    const left = await waitFor(
      "the removed pods gone",
      async () => {
        const now = await workers.pods();
        return now.length === 1 ? now : undefined;
      },
      60_000,
    );
    assert.deepEqual(
      left.map((p) => p.name),
      [keep],
    );
    assert.ok(!workers.drained.has(keep), "the session pod was not told to drain");
    assert.deepEqual(
      [...workers.drained].sort(),
      pods
        .map((p) => p.name)
        .filter((n) => n !== keep)
        .sort(),
    );
    assert.equal(left[0]!.cost, "1000");
    const p = await waitFor("status with the session", async () => {
      const x = await get(`${POOLS}/web`);
      return x.status?.sessions === 1 && x.status?.replicas === 1 ? x : undefined;
    });
    assert.match(p.status.lastScaleReason, /5 -> 1/);
  });

  it("changes nothing when the operator restarts (idempotent)", async () => {
    const before = await deployment("web");
    const poolBefore = await get(`${POOLS}/web`);
    const podsBefore = (await workers.pods()).map((p) => p.name);
    await operators[0]!.stop();
    const op = await startOperator("operator-a2");
    await waitFor(
      "several reconciles by the new operator",
      async () => {
        return (await op.metric("browserfleet_operator_reconciles_total", { result: "success" })) >= 4;
      },
      60_000,
    );
    const after = await deployment("web");
    assert.equal(after.metadata.generation, before.metadata.generation);
    assert.equal(after.spec.replicas, before.spec.replicas);
    assert.equal(
      after.metadata.managedFields.find((m: Obj) => m.manager === "browserfleet-operator").time,
      before.metadata.managedFields.find((m: Obj) => m.manager === "browserfleet-operator").time,
    );
    const poolAfter = await get(`${POOLS}/web`);
    assert.equal(poolAfter.metadata.resourceVersion, poolBefore.metadata.resourceVersion);
    assert.deepEqual(
      (await workers.pods()).map((p) => p.name),
      podsBefore,
    );
    assert.equal(await op.metric("browserfleet_operator_scale_decisions_total"), 0);
  });

  it("lets only the Lease holder act when two replicas run", async () => {
    const first = operators[operators.length - 1]!;
    const second = await startOperator("operator-b");
    await waitFor(
      "operator-b to find the Lease held and stand by",
      () => /the lease is held by operator-a2; standing by/.test(second.output()),
      10_000,
      50,
    );
    assert.equal(await first.metric("browserfleet_operator_leader"), 1);
    assert.equal(await second.metric("browserfleet_operator_leader"), 0);
    const lease = await get(`/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/browserfleet-operator`);
    assert.equal(lease.spec.holderIdentity, "operator-a2");

    // A spec change is acted on by the leader only.
    await cluster.api("PATCH", `${POOLS}/web`, { spec: { minReplicas: 2 } }, "application/merge-patch+json");
    await waitFor(
      "the leader to scale to 2",
      async () => (await deployment("web")).spec?.replicas === 2,
      30_000,
    );
    assert.equal(await second.metric("browserfleet_operator_reconciles_total"), 0);

    // The leader goes; the other replica takes the Lease and acts.
    await first.stop();
    await waitFor(
      "operator-b to lead",
      async () => (await second.metric("browserfleet_operator_leader")) === 1,
      30_000,
    );
    await cluster.api("PATCH", `${POOLS}/web`, { spec: { minReplicas: 3 } }, "application/merge-patch+json");
    await waitFor(
      "operator-b to scale to 3",
      async () => (await deployment("web")).spec?.replicas === 3,
      30_000,
    );
    // The reconcile that wrote the size counts itself when it has written the status too.
    await waitFor(
      "operator-b's reconciles to count",
      async () => (await second.metric("browserfleet_operator_reconciles_total")) > 0,
      10_000,
    );
    const after = await get(`/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/browserfleet-operator`);
    assert.equal(after.spec.holderIdentity, "operator-b");
    assert.ok(after.spec.leaseTransitions >= 1, JSON.stringify(after.spec));
  });

  it("says in the status what is wrong with a pool the schema cannot catch", async () => {
    // NATS goes away: the pool keeps its size and the condition says why.
    await nats.stop();
    const p = await waitFor(
      "LoadSignals=False",
      async () => {
        const x = await get(`${POOLS}/web`);
        const c = x.status?.conditions?.find((c: Obj) => c.type === "LoadSignals");
        return c?.status === "False" ? x : undefined;
      },
      60_000,
    );
    const c = p.status.conditions.find((c: Obj) => c.type === "LoadSignals");
    assert.equal(c.reason, "NatsUnavailable");
    assert.match(c.message, /cannot read the load from NATS/);
    assert.equal((await deployment("web")).spec.replicas, 3);
  });

  it("reads the load again when NATS is back", async () => {
    nats = await startLocalNats({ dataDir: natsDir, port: nats.port });
    const p = await waitFor(
      "LoadSignals=True",
      async () => {
        const x = await get(`${POOLS}/web`);
        const c = x.status?.conditions?.find((c: Obj) => c.type === "LoadSignals");
        return c?.status === "True" ? x : undefined;
      },
      60_000,
    );
    assert.equal(p.status.backlog, 0);
  });

  it("keeps reconciling across an API server restart (its watches start again)", async () => {
    // A leader that may go 60 s without renewing its Lease: the outage must not end its leadership
    // (with the defaults, a longer outage makes the operator exit and its pod restart).
    await operators[operators.length - 1]!.stop();
    const op = await startOperator("operator-c", {
      LEASE_DURATION_MS: "60000",
      LEASE_RENEW_DEADLINE_MS: "60000",
    });
    await waitFor(
      "operator-c to lead",
      async () => (await op.metric("browserfleet_operator_leader")) === 1,
      30_000,
    );
    await cluster.restartApiServer(2000);
    await cluster.api("PATCH", `${POOLS}/web`, { spec: { minReplicas: 4 } }, "application/merge-patch+json");
    await waitFor(
      "the pool at 4 after the restart",
      async () => (await deployment("web")).spec?.replicas === 4,
      60_000,
    );
    assert.match(op.output(), /watch of \w+ ended/);
  });

  it("deleting the BrowserPool removes everything it owned", async () => {
    const r = await cluster.api("DELETE", `${POOLS}/web`);
    assert.ok(r.status === 200 || r.status === 202, JSON.stringify(r.body));
    for (const path of [
      `/apis/apps/v1/namespaces/${NS}/deployments/web-browser`,
      `/api/v1/namespaces/${NS}/services/web-browser`,
      `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets/web-browser`,
    ])
      await waitFor(
        `${path} to be garbage-collected`,
        async () => (await cluster.api("GET", path)).status === 404,
        60_000,
      );
    await waitFor("the pool's pods gone", async () => (await workers.pods()).length === 0, 60_000);
  });
});
