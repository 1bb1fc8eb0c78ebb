/**
 * Operator reaction: from a backlog appearing in JetStream to the scale patch being written to the
 * Deployment, against a real API server (etcd + kube-apiserver as local processes, test/helpers/kube.ts)
 * and a real nats-server. The baseline is a 30-second polling autoscaler (KEDA's default pollingInterval)
 * that reads the same consumer backlog and patches its own Deployment; both see the same backlog at the
 * same moment in every round, and the rounds start at random phases of the baseline's poll.
 * The time a patch is written is when its watch event reaches this process (a client-node Watch).
 *
 *   node --import tsx bench/operator-reaction/run.ts [--rounds 6] [--period-ms 5000]
 */
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import {
  connectBus,
  ensureTaskQueue,
  startLocalNats,
  TASK_STREAM,
  TASK_SUBJECT,
  taskBacklog,
} from "@browserfleet/bus";
import { Watch } from "@kubernetes/client-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import yaml from "js-yaml";
import {
  applyObject,
  ensureKubeTools,
  type Json,
  ROOT,
  startKubeCluster,
  waitFor,
} from "../../test/helpers/kube.ts";
import { startOperatorProcess } from "../../test/helpers/kube-fleet.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "6" },
    "period-ms": { type: "string", default: "5000" },
    "baseline-ms": { type: "string", default: "30000" },
    tasks: { type: "string", default: "20" },
  },
});
const rounds = Number(values.rounds);
const baselineMs = Number(values["baseline-ms"]);
const tasks = Number(values.tasks);
const SLOTS = 2;

const tools = await ensureKubeTools("cluster");
if (tools.skip) {
  console.error(tools.skip);
  process.exit(2);
}
// Only the API server is needed: what is measured is the write of the scale, not pods starting.
const cluster = await startKubeCluster({ controllers: false });
const natsDir = await mkdtemp(join(tmpdir(), "bf-bench-nats-"));
const nats = await startLocalNats({ dataDir: natsDir });
// On a failure the control plane is killed by the harness; NATS here.
process.once("exit", () => nats.kill());
const nc = await connectBus({ servers: nats.url, name: "bench" });
await ensureTaskQueue(nc, { maxPending: 10_000, ackWaitMs: 60_000 });
const js = jetstream(nc);
const jsm = await jetstreamManager(nc);

await applyObject(
  cluster,
  yaml.load(readFileSync(join(ROOT, "crds/browserpools.browserfleet.dev.yaml"), "utf8")),
);
await waitFor(
  "the CRD",
  async () => (await cluster.api("GET", "/apis/browserfleet.dev/v1alpha1/browserpools")).status === 200,
);
await cluster.api("POST", "/apis/browserfleet.dev/v1alpha1/namespaces/default/browserpools", {
  apiVersion: "browserfleet.dev/v1alpha1",
  kind: "BrowserPool",
  metadata: { name: "bench" },
  spec: {
    image: "browserfleet/browser:bench",
    slotsPerPod: SLOTS,
    minReplicas: 1,
    maxReplicas: 100,
    targetUtilizationPercent: 100,
    scaleUp: { maxStepPods: 100, stabilizationSeconds: 0 },
    scaleDown: { maxStepPods: 100, stabilizationSeconds: 0 },
  },
});
// The baseline's own Deployment, scaled by the poller below.
await applyObject(cluster, {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "baseline", namespace: "default" },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: "baseline" } },
    template: {
      metadata: { labels: { app: "baseline" } },
      spec: { containers: [{ name: "c", image: "browserfleet/browser:bench" }] },
    },
  },
});

const op = await startOperatorProcess(
  {
    KUBECONFIG_PATH: cluster.kubeconfigPath,
    NATS_URL: nats.url,
    POD_NAME: "bench-operator",
    RECONCILE_PERIOD_MS: String(values["period-ms"]),
  },
  /controller started/,
);

// A 30 s polling autoscaler, like KEDA's default: read the backlog, write the scale if it differs.
let baselineReplicas = 1;
const poll = async () => {
  const b = await taskBacklog(nc);
  const want = Math.max(1, Math.ceil((b.pending + b.ackPending) / SLOTS));
  if (want !== baselineReplicas) {
    baselineReplicas = want;
    await cluster.api(
      "PATCH",
      "/apis/apps/v1/namespaces/default/deployments/baseline/scale",
      { spec: { replicas: want } },
      "application/merge-patch+json",
    );
  }
};
const baselineTimer = setInterval(() => void poll().catch(() => {}), baselineMs);

// Watch both Deployments; remember when each one's replicas change.
const changes = new Map<string, { at: number; replicas: number }[]>();
const watch = new Watch(cluster.kc);
const req = await watch.watch(
  "/apis/apps/v1/namespaces/default/deployments",
  {},
  (_type: string, obj: Json) => {
    const name = obj.metadata.name as string;
    const list = changes.get(name) ?? [];
    if (list.at(-1)?.replicas !== obj.spec.replicas)
      list.push({ at: performance.now(), replicas: obj.spec.replicas });
    changes.set(name, list);
  },
  () => {},
);

const replicasOf = (name: string) => changes.get(name)?.at(-1)?.replicas;
await waitFor("the pool at 1 replica", () => replicasOf("bench-browser") === 1, 60_000);

const expected = Math.ceil(tasks / SLOTS);
const ours: number[] = [];
const base: number[] = [];
for (let round = 0; round < rounds; round++) {
  // A random phase against the baseline's poll.
  await new Promise((r) => setTimeout(r, Math.random() * baselineMs));
  const t0 = performance.now();
  for (let i = 0; i < tasks; i++)
    await js.publish(TASK_SUBJECT, new TextEncoder().encode(`{"taskId":"b${round}-${i}"}`));
  const reached = (name: string) => changes.get(name)?.find((c) => c.at >= t0 && c.replicas === expected);
  const a = await waitFor("the operator's scale", () => reached("bench-browser"), 60_000, 5);
  const b = await waitFor("the baseline's scale", () => reached("baseline"), baselineMs * 2 + 10_000, 5);
  ours.push(a.at - t0);
  base.push(b.at - t0);
  console.log(
    `round ${round + 1}/${rounds}: operator ${(a.at - t0).toFixed(0)} ms, 30 s poller ${(b.at - t0).toFixed(0)} ms`,
  );
  await jsm.streams.purge(TASK_STREAM);
  await waitFor("the pool back at 1", () => replicasOf("bench-browser") === 1, 60_000, 20);
  await waitFor("the baseline back at 1", () => replicasOf("baseline") === 1, baselineMs * 2 + 10_000, 20);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const mo = median(ours);
const mb = median(base);
console.log(`\nbacklog of ${tasks} tasks -> scale 1 -> ${expected} written, ${rounds} rounds`);
console.log(
  `operator (event-driven, ${values["period-ms"]} ms resync): median ${mo.toFixed(0)} ms, max ${Math.max(...ours).toFixed(0)} ms`,
);
console.log(
  `baseline (${baselineMs / 1000} s polling autoscaler):      median ${mb.toFixed(0)} ms, max ${Math.max(...base).toFixed(0)} ms`,
);
console.log(
  `ratio operator/baseline (median): ${(mo / mb).toFixed(3)}  (baseline is ${(mb / mo).toFixed(1)}x slower)`,
);

clearInterval(baselineTimer);
req.abort();
await op.stop();
await nc.drain().catch(() => {});
await nats.stop();
await cluster.stop();
await rm(natsDir, { recursive: true, force: true });
process.exit(0);
