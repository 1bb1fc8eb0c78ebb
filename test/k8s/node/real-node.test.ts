/**
 * The chart on two real nodes: two kubelets, each with its own containerd (+ runc) and pod subnet (a
 * bridge each, 10.244.0.0/24 and 10.244.1.0/24, routed by the host they share, which also runs one
 * kube-proxy and CoreDNS for both), joined to the control plane the other Kubernetes tests start; the
 * images `npm run images` builds, copied into both containerds; the chart installed with `helm install`.
 * NATS and PostgreSQL are the chart's own, from the images built here (`npm run images -- nats postgres`):
 * NATS a 3-server JetStream cluster, each server and PostgreSQL on a local PersistentVolume the test makes
 * on the first node; the pods reach them by name through the cluster's DNS.
 *
 * Proves: every workload becomes Ready through the chart's own probes, run by the kubelets; a scrape
 * through the api Service (its ClusterIP, routed by kube-proxy) returns the page; a JetStream backlog
 * makes the operator add real browser pods, spread over both nodes, which take tasks; scaling down drains
 * the idle pods and keeps the one holding a live session, which still answers; sessions on pods of both
 * nodes answer acts from the api; the second node drained under paid load (its pods evicted, placed again
 * on the first); the PostgreSQL pod deleted comes back on its volume with every ledger row; the NATS server
 * leading the task stream killed (its pod deleted with no grace) while scrapes run: every scrape is
 * answered, and the server comes back on its volume and catches up. Faults under paid load, one at a time
 * (the node drained, the api's process killed, a NATS server killed, the PostgreSQL pod deleted), each
 * followed by the ledger checked against what every answer said it charged and no hold left past its TTL;
 * and a live session whose browser pod is deleted.
 *
 * `npm run test:node`. Skips, saying why, where a real node cannot run (not root, no containerd/runc/CNI
 * plugins, no Go to build the kubelet, no podman for the images).
 */
import assert from "node:assert/strict";
import { Resolver } from "node:dns/promises";
import { chown, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createAccount, issueKey } from "@browserfleet/billing";
import { connectBus, TASK_STREAM } from "@browserfleet/bus";
import { connectDb, type Database } from "@browserfleet/db";
import { jetstreamManager } from "@nats-io/jetstream";
import yaml from "js-yaml";
import { buildImages, imageName, PROGRAMS, type Program, type Target } from "../../../scripts/images.ts";
import { type FixtureSite, startFixtureSite } from "../../fixture-site/server.ts";
import { type Chain, startChain } from "../../helpers/chain.ts";
import {
  ensureKubeTools,
  type Json,
  type KubeCluster,
  ROOT,
  run,
  startKubeCluster,
  tool,
  waitFor,
} from "../../helpers/kube.ts";
import { sample } from "../../helpers/metrics-sample.ts";
import {
  assertReconciledLive,
  assertWalletReconciled,
  chargedByRequest,
  type LoadMix,
  type Outcome,
  paidCall,
  paidLoad,
  report,
  settleMixed,
} from "../../helpers/paid-load.ts";
import { payingClient } from "../../helpers/paying-client.ts";
import {
  buildPauseImage,
  ensureBridge,
  ensureNodeTools,
  NODE_IP,
  NODE_NETWORKS,
  type NodeNetwork,
  PAUSE_IMAGE,
  type RealNode,
  realNodeMissing,
  routeServices,
  startRealNode,
} from "../../helpers/real-node.ts";

const CHART = join(ROOT, "charts/browserfleet");
const METADATA_IP = "169.254.169.254";
const RELEASE = "bf";
const NS = "default";
const missing = realNodeMissing();
const tools = missing ? {} : await ensureKubeTools("all");
if (!missing && !tools.skip) await ensureNodeTools();
const skip = missing ?? tools.skip;

describe("the chart on a real node", { skip, timeout: 40 * 60_000 }, () => {
  let dir: string;
  let site: FixtureSite;
  /** The chart's in-cluster PostgreSQL, reached from the host through its Service's ClusterIP. */
  let db: Database | undefined;
  let cluster: KubeCluster;
  /** The first node (the control plane's address, CoreDNS, kube-proxy, the local volumes) and a second one. */
  let node: RealNode;
  let node2: RealNode;
  let key: string;
  let apiBase: string;
  /** A local chain for wallet (x402) callers, on the node's address, and the paying client of its wallet. */
  let chain: Chain;
  let paying: ReturnType<typeof payingClient>;
  /** The load of each fault: keyed scrapes, a caller running sessions with acts, a crawl, a wallet's scrapes. */
  const mix = (): LoadMix => ({
    sessionCallers: 1,
    crawlPages: 20,
    wallet: { fetch: paying.fetch, payer: chain.payer, callers: 1 },
  });
  /** The wallet's balance when a run begins, for assertWalletReconciled. */
  const walletNow = async () => {
    const startMicros = await chain.balanceOf(chain.payer);
    return { payer: chain.payer, balance: () => chain.balanceOf(chain.payer), startMicros };
  };
  const removeBridges: Array<() => Promise<void>> = [];
  /** A stand-in for a cloud's metadata server, on its address (169.254.169.254:80) on this host. */
  let metadata: Server | undefined;
  let metadataAddressAdded = false;
  const siteUrl = (path: string) => `${site.url}${path}`;

  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the route answered
  async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(`${apiBase}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(180_000),
    });
    const text = await res.text();
    try {
      return { status: res.status, body: JSON.parse(text) };
    } catch {
      return { status: res.status, body: text };
    }
  }
  const get = async (path: string) => (await cluster.api("GET", path)).body;
  const browserPods = async (): Promise<Json[]> =>
    (
      await get(
        `/api/v1/namespaces/${NS}/pods?labelSelector=${encodeURIComponent("app.kubernetes.io/component=browser")}`,
      )
    ).items ?? [];
  const isReady = (pod: Json) =>
    pod.status?.conditions?.some((c: Json) => c.type === "Ready" && c.status === "True") &&
    !pod.metadata.deletionTimestamp;
  const podMetrics = async (pod: Json) => {
    const port = pod.spec.containers[0].ports[0].containerPort;
    const r = await fetch(`http://${pod.status.podIP}:${port}/metrics`, {
      signal: AbortSignal.timeout(10_000),
    });
    return r.text();
  };

  before(async () => {
    const started = Date.now();
    const phase = (what: string) =>
      process.stderr.write(`[real node] ${what} at ${Math.round((Date.now() - started) / 1000)} s\n`);
    // The programs, and NATS and PostgreSQL for the chart's in-cluster ones.
    const images: Target[] = [...(Object.keys(PROGRAMS) as Program[]), "nats", "postgres"];
    buildImages(images, { quiet: true });
    phase("images built");
    dir = await mkdtemp(join(tmpdir(), "bf-node-"));
    for (const net of NODE_NETWORKS) removeBridges.push(await ensureBridge(net));
    removeBridges.push(await routeServices());
    site = await startFixtureSite({ host: NODE_IP });
    // A block a second, as a live chain: a cut call's unused authorization expires by the chain's clock.
    chain = await startChain({ host: NODE_IP, blockTimeSeconds: 1 });
    paying = payingClient(chain.payerKey);
    // The cloud metadata address answers here, as on a cloud VM: what a browser pod must never reach.
    const lo = await run("ip", ["-4", "addr", "show", "dev", "lo"]);
    if (!lo.stdout.includes(`${METADATA_IP}/`)) {
      await run("ip", ["addr", "add", `${METADATA_IP}/32`, "dev", "lo"]);
      metadataAddressAdded = true;
    }
    metadata = createServer((_, res) => res.end("instance credentials"));
    await new Promise<void>((ok) => metadata?.listen(80, METADATA_IP, ok));

    cluster = await startKubeCluster({ nodes: 0, address: NODE_IP });
    phase("control plane up");
    node = await startRealNode(cluster, join(dir, "node"), "bf-node");
    node2 = await startRealNode(cluster, join(dir, "node2"), "bf-node-2", {
      network: NODE_NETWORKS[1] as NodeNetwork,
      first: false,
      seccompFrom: node.seccompDir,
    });
    phase("two nodes Ready");
    // The chart's PostgreSQL and NATS servers claim volumes of this class: local PersistentVolumes on the
    // node (what a provisioner would make), kept across pods. Each folder belongs to its server's user
    // (postgres 70, NATS 10001), as fsGroup does not apply to local volumes.
    const localVolume = async (name: string, owner: number, claim: string) => {
      const path = join(dir, "volumes", name);
      await mkdir(path, { recursive: true });
      await chown(path, owner, owner);
      return cluster.api("POST", "/api/v1/persistentvolumes", {
        metadata: { name },
        spec: {
          capacity: { storage: "2Gi" },
          accessModes: ["ReadWriteOnce"],
          persistentVolumeReclaimPolicy: "Retain",
          storageClassName: "bf-local",
          // Bound ahead to its server's claim: the folder belongs to that server's user.
          claimRef: { namespace: NS, name: claim },
          local: { path },
          nodeAffinity: {
            required: {
              nodeSelectorTerms: [
                {
                  matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: [node.name] }],
                },
              ],
            },
          },
        },
      });
    };
    const created = await Promise.all([
      cluster.api("POST", "/apis/storage.k8s.io/v1/storageclasses", {
        metadata: { name: "bf-local" },
        provisioner: "kubernetes.io/no-provisioner",
        volumeBindingMode: "WaitForFirstConsumer",
      }),
      localVolume("bf-postgres-data", 70, `data-${RELEASE}-browserfleet-postgres-0`),
      ...[0, 1, 2].map((i) =>
        localVolume(`bf-nats-data-${i}`, 10001, `data-${RELEASE}-browserfleet-nats-${i}`),
      ),
    ]);
    for (const c of created) assert.equal(c.status, 201, JSON.stringify(c.body));
    await buildPauseImage(dir);
    // Each image saved once and imported into both nodes' containerd (what pulls from a registry would do).
    for (const ref of [PAUSE_IMAGE, ...images.map((p) => imageName(p))]) {
      const tar = join(dir, "image.tar");
      await run("podman", ["save", "-o", tar, ref], { timeoutMs: 900_000 });
      await Promise.all([node.importTar(tar), node2.importTar(tar)]);
      await rm(tar, { force: true });
      phase(`imported ${ref}`);
    }

    // The test's values: the images as containerd has them, the chart's own NATS and PostgreSQL on the
    // node's volumes, pages served on the node's (private) address allowed, and sizes that fit a 2-core
    // machine.
    const values = {
      images: {
        ...Object.fromEntries(
          (Object.keys(PROGRAMS) as Program[]).map((p) => [p, { repository: `localhost/browserfleet/${p}` }]),
        ),
        pullPolicy: "Never",
      },
      // Wallet payments settled by the api's own facilitator on the test's chain; its key from a Secret.
      config: {
        FLEET_ALLOW_PRIVATE: `${NODE_IP}/32`,
        X402_PAY_TO: chain.payTo,
        X402_RPC_URL: chain.rpcUrl,
        // Authorizations live 30 s: a claim whose call was cut off is settled or released soon after.
        X402_MAX_TIMEOUT_SECONDS: "30",
      },
      configSecret: { existingSecret: "bf-x402" },
      // The chart's policy lets browser pods reach NATS and public addresses only. Here the "internet"
      // (the fixture site) and the cluster's DNS (CoreDNS, a process on the node) are on the node's private
      // address, so the test lets browser pods reach those two ports of it, and nothing else there.
      networkPolicy: {
        extraEgress: [
          {
            to: [{ ipBlock: { cidr: `${NODE_IP}/32` } }],
            ports: [
              { protocol: "TCP", port: Number(new URL(site.url).port) },
              { protocol: "UDP", port: 53 },
              { protocol: "TCP", port: 53 },
            ],
          },
        ],
      },
      // Not port 80: this machine's egress proxy answers port-80 connections that leave it (as one to a
      // ClusterIP does in the moment its Service has no ready endpoint and so no kube-proxy rule), and
      // keep-alive then reuses those sockets: that was the "404 with an empty body" of earlier runs.
      api: {
        replicas: 1,
        service: { port: 8080 },
        resources: { requests: { cpu: "50m", memory: "128Mi" } },
      },
      jobs: { replicas: 1, resources: { requests: { cpu: "50m", memory: "128Mi" } } },
      operator: { replicas: 1, reconcilePeriodSeconds: 2 },
      browserPool: {
        slotsPerPod: 2,
        minReplicas: 1,
        maxReplicas: 3,
        targetUtilizationPercent: 100,
        scaleUp: { maxStepPods: 4, stabilizationSeconds: 0 },
        scaleDown: { maxStepPods: 2, stabilizationSeconds: 20 },
        terminationGracePeriodSeconds: 30,
        resources: { requests: { cpu: "100m", memory: "256Mi" }, limits: { memory: "1536Mi" } },
        env: { FLEET_ALLOW_PRIVATE: `${NODE_IP}/32` },
        // Chromium sandboxed under the chart's profile, which its DaemonSet writes where this kubelet reads.
        sandbox: { seccompRoot: node.seccompDir },
      },
      nats: {
        internal: { replicas: 3, image: imageName("nats"), storage: "1Gi", storageClassName: "bf-local" },
      },
      postgres: {
        internal: {
          enabled: true,
          image: imageName("postgres"),
          storage: "1Gi",
          storageClassName: "bf-local",
        },
      },
    };
    await writeFile(join(dir, "values.yaml"), yaml.dump(values));
    const secret = await cluster.api("POST", `/api/v1/namespaces/${NS}/secrets`, {
      metadata: { name: "bf-x402" },
      stringData: { X402_FACILITATOR_PRIVATE_KEY: chain.facilitatorKey },
    });
    assert.equal(secret.status, 201, JSON.stringify(secret.body));
    await run(
      tool("helm"),
      [
        "install",
        RELEASE,
        CHART,
        "--namespace",
        NS,
        "--kubeconfig",
        cluster.kubeconfigPath,
        "-f",
        join(dir, "values.yaml"),
      ],
      { timeoutMs: 300_000 },
    );
    phase("chart installed");
    // The api makes the schema once the database is up; then the test's account goes in.
    await waitFor(
      "the api to be ready",
      async () => {
        const d = await get(`/apis/apps/v1/namespaces/${NS}/deployments/${RELEASE}-browserfleet-api`);
        return d.status?.readyReplicas === 1;
      },
      600_000,
      1000,
    );
    db = await connectPostgres();
    const { accountId } = await createAccount(db.db, { balanceMicros: 100_000_000 });
    key = (await issueKey(db.db, accountId, "real-node")).key;
    phase("account made in the chart's PostgreSQL");
  });

  /** The chart's database from the host: its Secret's URL, with the Service's ClusterIP for its name. */
  async function connectPostgres(): Promise<Database> {
    const secret = await get(`/api/v1/namespaces/${NS}/secrets/${RELEASE}-browserfleet-postgres`);
    const url = new URL(Buffer.from(secret.data.DATABASE_URL, "base64").toString());
    const svc = await get(`/api/v1/namespaces/${NS}/services/${RELEASE}-browserfleet-postgres`);
    url.hostname = svc.spec.clusterIP;
    return connectDb(url.href, { max: 2, name: "real-node-test" });
  }

  after(async () => {
    if (process.env.BF_NODE_LOGS && node) console.log(node.logs(), node2?.logs());
    // The second node first: the first one's kube-proxy serves both until the end.
    await node2?.stop();
    await node?.stop();
    await cluster?.stop();
    await db?.close();
    await site?.close();
    await chain?.stop();
    await new Promise((r) => (metadata ? metadata.close(r) : r(undefined)));
    if (metadataAddressAdded)
      await run("ip", ["addr", "del", `${METADATA_IP}/32`, "dev", "lo"]).catch(() => {});
    if (dir) await rm(dir, { recursive: true, force: true });
    for (const remove of removeBridges.reverse()) await remove();
  });

  it("makes every workload Ready with the chart's probes", async () => {
    const deployments = [
      `${RELEASE}-browserfleet-api`,
      `${RELEASE}-browserfleet-jobs`,
      `${RELEASE}-browserfleet-operator`,
    ];
    for (const name of deployments)
      await waitFor(
        `Deployment ${name} ready`,
        async () => {
          const d = await get(`/apis/apps/v1/namespaces/${NS}/deployments/${name}`);
          return d.status?.readyReplicas === d.spec?.replicas && d.spec.replicas > 0;
        },
        300_000,
        1000,
      );
    // The operator, leading on the real node, makes the pool's Deployment; its pod becomes Ready too.
    const pods = await waitFor(
      "a Ready browser pod",
      async () => {
        const p = (await browserPods()).filter(isReady);
        return p.length === 1 ? p : undefined;
      },
      300_000,
      1000,
    );
    const all = (await get(`/api/v1/namespaces/${NS}/pods`)).items as Json[];
    // api, jobs, operator, three NATS servers, PostgreSQL, the seccomp profile's installer on each node and
    // one browser pod.
    assert.equal(all.length, 10, all.map((p) => p.metadata.name).join(", "));
    const nets = new Map([
      [node.name, NODE_NETWORKS[0] as NodeNetwork],
      [node2.name, NODE_NETWORKS[1] as NodeNetwork],
    ]);
    for (const pod of all) {
      const net = nets.get(pod.spec.nodeName);
      assert.ok(net, `${pod.metadata.name} on one of the two nodes (${pod.spec.nodeName})`);
      assert.ok(isReady(pod), `${pod.metadata.name} Ready`);
      assert.ok(pod.spec.containers[0].readinessProbe, `${pod.metadata.name} has a readiness probe`);
      assert.ok(
        pod.status.podIP.startsWith(net.nodeIp.replace(/1$/, "")),
        `${pod.metadata.name} on its node's pod network`,
      );
    }
    // The servers with a volume run where their volume is.
    for (const pod of all.filter((p) => /-(postgres|nats)-\d$/.test(p.metadata.name)))
      assert.equal(pod.spec.nodeName, node.name, `${pod.metadata.name} on its volume's node`);
    process.stderr.write(
      `[real node] placed: ${all.map((p) => `${p.metadata.name}@${p.spec.nodeName}`).join(", ")}\n`,
    );
    const metrics = await podMetrics(pods[0]);
    assert.equal(sample(metrics, "fleet_browser_slots"), 2);
    // Chromium sandboxed in the pod, under the chart's Localhost profile the DaemonSet wrote on the node.
    assert.deepEqual(pods[0].spec.securityContext.seccompProfile, {
      type: "Localhost",
      localhostProfile: "browserfleet/chromium-v1.json",
    });
    assert.equal(sample(metrics, "fleet_chromium_sandbox"), 1);
  });

  it("resolves Services by name with the cluster's DNS, which the pods use", async () => {
    const dns = new Resolver();
    dns.setServers([NODE_IP]);
    for (const name of [
      `${RELEASE}-browserfleet-nats`,
      `${RELEASE}-browserfleet-postgres`,
      `${RELEASE}-browserfleet-api`,
    ]) {
      const svc = await get(`/api/v1/namespaces/${NS}/services/${name}`);
      assert.deepEqual(await dns.resolve4(`${name}.${NS}.svc.cluster.local`), [svc.spec.clusterIP], name);
    }
    await assert.rejects(dns.resolve4(`nothing-here.${NS}.svc.cluster.local`), /ENOTFOUND/);
    // The pods reached NATS and PostgreSQL by those names: the api says both are up.
    const api = await get(`/api/v1/namespaces/${NS}/services/${RELEASE}-browserfleet-api`);
    const ready = await fetch(`http://${api.spec.clusterIP}:${api.spec.ports[0].port}/readyz`);
    const body = (await ready.json()) as { nats: boolean; database: boolean };
    assert.deepEqual([body.nats, body.database], [true, true]);
  });

  it("enforces the chart's NetworkPolicy: a browser pod reaches the site, DNS and NATS, and nothing else inside", async () => {
    const svc = async (name: string) => (await get(`/api/v1/namespaces/${NS}/services/${name}`)).spec;
    const podOf = async (component: string) =>
      (
        await get(
          `/api/v1/namespaces/${NS}/pods?labelSelector=${encodeURIComponent(`app.kubernetes.io/component=${component}`)}`,
        )
      ).items.find(isReady) as Json;
    const [browser, api, postgres, nats] = await Promise.all(
      ["browser", "api", "postgres", "nats"].map((c) => podOf(c)),
    );
    const [natsSvc, pgSvc, apiSvc, kubeSvc] = await Promise.all([
      svc(`${RELEASE}-browserfleet-nats`),
      svc(`${RELEASE}-browserfleet-postgres`),
      svc(`${RELEASE}-browserfleet-api`),
      (await get("/api/v1/namespaces/default/services/kubernetes")).spec,
    ]);
    const sitePort = Number(new URL(site.url).port);
    const apiServerPort = Number(new URL(cluster.server).port);
    const targets: Record<string, [string, number]> = {
      "the site (the internet here)": [NODE_IP, sitePort],
      "NATS (Service)": [natsSvc.clusterIP, 4222],
      "NATS (pod)": [nats.status.podIP, 4222],
      "PostgreSQL (Service)": [pgSvc.clusterIP, 5432],
      "PostgreSQL (pod)": [postgres.status.podIP, 5432],
      "the api (Service)": [apiSvc.clusterIP, apiSvc.ports[0].port],
      "the api (pod)": [api.status.podIP, api.spec.containers[0].ports[0].containerPort],
      "the Kubernetes API (Service)": [kubeSvc.clusterIP, 443],
      "the Kubernetes API (node)": [NODE_IP, apiServerPort],
      "the metadata address": [METADATA_IP, 80],
    };
    // From inside each pod's network namespace, as the pod's own user: what a renderer exploit could reach.
    const fromBrowser = await reach(await containerPid(browser.metadata.name), 10001, targets);
    const fromApi = await reach(await containerPid(api.metadata.name), 10001, targets);
    process.stderr.write(`[real node] reach from a browser pod: ${JSON.stringify(fromBrowser)}\n`);
    process.stderr.write(`[real node] reach from the api pod: ${JSON.stringify(fromApi)}\n`);
    const allowed = ["the site (the internet here)", "NATS (Service)", "NATS (pod)"];
    for (const [name, got] of Object.entries(fromBrowser))
      assert.equal(got === "open", allowed.includes(name), `a browser pod to ${name}: ${got}`);
    // The api pod, which no policy confines, reaches every one of them: they are there, and only the
    // browser pods' policy keeps them out.
    for (const [name, got] of Object.entries(fromApi)) assert.equal(got, "open", `the api pod to ${name}`);
  });

  it("scrapes a page through the api Service", async () => {
    const svc = await get(`/api/v1/namespaces/${NS}/services/${RELEASE}-browserfleet-api`);
    assert.equal(svc.spec.type, "ClusterIP");
    apiBase = `http://${svc.spec.clusterIP}:${svc.spec.ports[0].port}`;
    // kube-proxy writes the Service's rules once its endpoints are known.
    await waitFor(
      "the api Service to answer",
      async () => (await fetch(`${apiBase}/readyz`)).ok,
      60_000,
      500,
    );
    const r = await call("POST", "/web/v1/scrape", {
      url: siteUrl("/article"),
      formats: ["markdown", "links"],
    });
    assert.equal(r.status, 200, JSON.stringify(r.body).slice(0, 2000));
    assert.match(r.body.data.markdown, /^# The Fixture Article$/m);
    assert.ok(r.body.data.links.some((l: { url: string }) => l.url === siteUrl("/page2")));
  });

  let sessionPod: string;
  let sessionId: string;
  let username: string;
  it("adds real browser pods for a JetStream backlog, and they take tasks", async () => {
    const before = (await browserPods()).map((p) => p.metadata.name);
    // Two slots per pod: five slow pages at once are two busy slots and a backlog of three, 3 pods' worth.
    const scrapes = [0, 1, 2, 3, 4].map((i) =>
      call("POST", "/web/v1/scrape", {
        url: siteUrl(`/slow?ms=30000&n=${i}`),
        formats: ["html"],
        wait: { until: "load", timeout: 60_000 },
      }),
    );
    const grown = await waitFor(
      "three Ready browser pods",
      async () => {
        const p = (await browserPods()).filter(isReady);
        return p.length === 3 ? p : undefined;
      },
      240_000,
      1000,
    );
    const dep = (await get(`/apis/apps/v1/namespaces/${NS}/deployments`)).items.find(
      (d: Json) => d.metadata.ownerReferences?.[0]?.kind === "BrowserPool",
    );
    assert.equal(dep.spec.replicas, 3, "the operator sized the pool for the backlog");

    // The pool shrinks again as soon as its pods fall idle, so what each pod did is read while it runs.
    const tasksSeen = new Map<string, number>();
    let sampling = true;
    const sampleAll = async () => {
      for (const pod of grown) {
        const text = await podMetrics(pod).catch(() => undefined);
        const tasks = text ? sample(text, "fleet_browser_tasks_total") : Number.NaN;
        if (!Number.isNaN(tasks))
          tasksSeen.set(pod.metadata.name, Math.max(tasks, tasksSeen.get(pod.metadata.name) ?? 0));
      }
    };
    const sampler = (async () => {
      while (sampling) {
        await sampleAll();
        // A sampling period, not a wait for anything: the pods' counters are read once a second.
        await new Promise((r) => setTimeout(r, 1000));
      }
    })();

    let results: Array<{ status: number; body: unknown }>;
    try {
      // While the pages load, a live session takes a free slot somewhere in the grown pool.
      const opened = await call("POST", "/web/v1/session", { url: siteUrl("/form") });
      assert.equal(opened.status, 200, JSON.stringify(opened.body).slice(0, 1000));
      sessionId = opened.body.sessionId;
      username = opened.body.data.controls.find(
        (c: Json) => c.role === "textbox" && c.name === "Username",
      ).ref;
      const holders: string[] = [];
      for (const pod of await browserPods()) {
        const text = await podMetrics(pod).catch(() => "");
        if (sample(text, "fleet_sessions_open") === 1) holders.push(pod.metadata.name);
      }
      assert.equal(holders.length, 1, `one pod holds the session: ${holders.join(", ")}`);
      sessionPod = holders[0]!;

      results = await Promise.all(scrapes);
    } finally {
      sampling = false;
      await sampler;
    }
    await sampleAll();
    for (const r of results) assert.equal(r.status, 200, JSON.stringify(r.body).slice(0, 1000));
    const added = grown.filter((p) => !before.includes(p.metadata.name));
    assert.equal(added.length, 2);
    const nodesUsed = new Set(grown.map((p) => p.spec.nodeName));
    assert.equal(nodesUsed.size, 2, `the pool is spread over both nodes: ${[...nodesUsed].join(", ")}`);
    for (const pod of added) {
      const tasks = tasksSeen.get(pod.metadata.name) ?? 0;
      assert.ok(tasks >= 1, `${pod.metadata.name} took a task (${tasks})`);
    }
    process.stderr.write(
      `[real node] the session is on ${before.includes(sessionPod) ? "the first" : "an added"} pod\n`,
    );
  });

  it("scales down by draining the idle pods and keeps the pod holding the session", async () => {
    const left = await waitFor(
      "the pool back to one pod",
      async () => {
        const p = await browserPods();
        return p.length === 1 && isReady(p[0]) ? p : undefined;
      },
      240_000,
      1000,
    );
    assert.equal(left[0].metadata.name, sessionPod);
    const dep = (await get(`/apis/apps/v1/namespaces/${NS}/deployments`)).items.find(
      (d: Json) => d.metadata.ownerReferences?.[0]?.kind === "BrowserPool",
    );
    assert.equal(dep.spec.replicas, 1);
    const pool = await get(`/apis/browserfleet.dev/v1alpha1/namespaces/${NS}/browserpools/default`);
    assert.match(pool.status.lastScaleReason, /3 -> 1|2 -> 1/);
    // The session lived through it.
    const done = await call("POST", "/web/v1/act", {
      sessionId,
      actions: [{ type: { ref: username, text: "ada" } }, { press: "Enter" }],
      formats: ["markdown"],
    });
    assert.equal(done.status, 200, JSON.stringify(done.body).slice(0, 1000));
    assert.match(done.body.data.markdown, /Welcome, ada/);
    assert.equal((await call("DELETE", `/web/v1/session/${sessionId}`)).status, 200);
  });

  it("pins sessions to pods on both nodes: acts reach each from the api, wherever it runs", async () => {
    await setPoolMin(2);
    const pods = await waitFor(
      "two Ready browser pods, one on each node",
      async () => {
        const p = (await browserPods()).filter(isReady);
        return p.length === 2 && new Set(p.map((x) => x.spec.nodeName)).size === 2 ? p : undefined;
      },
      240_000,
      1000,
    );
    const apiNode = (
      await get(
        `/api/v1/namespaces/${NS}/pods?labelSelector=${encodeURIComponent("app.kubernetes.io/component=api")}`,
      )
    ).items[0].spec.nodeName;
    // Sessions opened until each pod holds one (two slots each: at most four).
    const sessions: Array<{ id: string; ref: string; pod: string }> = [];
    const holding = async () => {
      const held = new Map<string, number>();
      for (const pod of pods)
        held.set(
          pod.metadata.name,
          sample(await podMetrics(pod).catch(() => ""), "fleet_sessions_open") || 0,
        );
      return held;
    };
    for (let i = 0; i < 4 && [...(await holding()).values()].some((n) => n === 0); i++) {
      const before = await holding();
      const opened = await call("POST", "/web/v1/session", { url: siteUrl("/form") });
      assert.equal(opened.status, 200, JSON.stringify(opened.body).slice(0, 1000));
      const after = await holding();
      const pod = [...after].find(([name, n]) => n > (before.get(name) ?? 0))?.[0] ?? "";
      const ref = opened.body.data.controls.find(
        (c: Json) => c.role === "textbox" && c.name === "Username",
      ).ref;
      sessions.push({ id: opened.body.sessionId, ref, pod });
    }
    const nodeOf = new Map(pods.map((p) => [p.metadata.name, p.spec.nodeName]));
    const sessionNodes = new Set(sessions.map((x) => nodeOf.get(x.pod)));
    assert.equal(sessionNodes.size, 2, `sessions on both nodes: ${JSON.stringify(sessions)}`);
    for (const x of sessions) {
      const acted = await call("POST", "/web/v1/act", {
        sessionId: x.id,
        actions: [{ type: { ref: x.ref, text: `on-${nodeOf.get(x.pod)}` } }, { press: "Enter" }],
        formats: ["markdown"],
      });
      assert.equal(acted.status, 200, JSON.stringify(acted.body).slice(0, 1000));
      assert.match(acted.body.data.markdown, new RegExp(`Welcome, on-${nodeOf.get(x.pod)}`));
      assert.equal((await call("DELETE", `/web/v1/session/${x.id}`)).status, 200);
    }
    process.stderr.write(
      `[real node] the api on ${apiNode}; sessions on ${sessions.map((x) => `${x.pod}@${nodeOf.get(x.pod)}`).join(", ")}\n`,
    );
  });

  it("drains the second node under paid load: its pods evicted and placed on the first, the ledger reconciled", async (t) => {
    const load = paidLoad(db!, site.url);
    const accounts = await load.newAccounts(3);
    const onNode2 = async () =>
      (
        (await get(`/api/v1/namespaces/${NS}/pods?fieldSelector=spec.nodeName%3D${node2.name}`))
          .items as Json[]
      ).filter((p) => p.metadata.ownerReferences?.[0]?.kind !== "DaemonSet");
    const evicted: string[] = [];
    const wallet = await walletNow();
    const run = await load.underMixedLoad(
      { url: apiBase },
      accounts,
      async () => {
        await cordon(node2.name, true);
        // As kubectl drain does: every pod but a DaemonSet's evicted through the Eviction API, which
        // honours the PodDisruptionBudgets (429 while one would be broken: asked again).
        for (const pod of await onNode2()) {
          const name = pod.metadata.name;
          await waitFor(
            `${name} evicted`,
            async () => {
              const r = await cluster.api("POST", `/api/v1/namespaces/${NS}/pods/${name}/eviction`, {
                apiVersion: "policy/v1",
                kind: "Eviction",
                metadata: { name, namespace: NS },
              });
              if (r.status === 429) return false;
              assert.ok(r.status < 300 || r.status === 404, `${name}: ${r.status} ${JSON.stringify(r.body)}`);
              return true;
            },
            120_000,
            1000,
          );
          evicted.push(name);
        }
        await waitFor("the second node empty", async () => (await onNode2()).length === 0, 180_000, 1000);
        await waitFor(
          "every workload Ready again on the first node",
          async () => {
            const pods = (await get(`/api/v1/namespaces/${NS}/pods`)).items as Json[];
            const browsers = pods.filter(
              (p) => p.metadata.labels?.["app.kubernetes.io/component"] === "browser",
            );
            return (
              browsers.filter(isReady).length >= 2 &&
              pods
                .filter((p) => p.metadata.ownerReferences?.[0]?.kind !== "DaemonSet")
                .every((p) => isReady(p) && p.spec.nodeName === node.name)
            );
          },
          300_000,
          1000,
        );
      },
      mix(),
      5_000,
    );
    report(t, `node drained (${evicted.join(", ")})`, run.outcomes);
    assert.ok(evicted.length >= 1, "the second node ran pods to evict");
    const outcomes = await settleMixed(db!, { url: apiBase }, run);
    await assertReconciledLive(db!, run.accounts, outcomes, "node drained");
    await assertWalletReconciled(db!, wallet, outcomes, "node drained");
    await cordon(node2.name, false);
    await setPoolMin(1);
  });

  async function cordon(name: string, unschedulable: boolean) {
    const r = await cluster.api(
      "PATCH",
      `/api/v1/nodes/${name}`,
      { spec: { unschedulable } },
      "application/merge-patch+json",
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }

  async function setPoolMin(minReplicas: number) {
    const r = await cluster.api(
      "PATCH",
      `/apis/browserfleet.dev/v1alpha1/namespaces/${NS}/browserpools/default`,
      { spec: { minReplicas } },
      "application/merge-patch+json",
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }

  it("keeps every ledger row when the PostgreSQL pod is deleted: it comes back on its volume", async () => {
    const rows = async (d: Database) =>
      (
        await d.sql<{ id: string; amount: string }[]>`
        select id::text, amount_micros::text as amount from ledger_entries order by id`
      ).map((r) => `${r.id} ${r.amount}`);
    const pvc = await get(
      `/api/v1/namespaces/${NS}/persistentvolumeclaims/data-${RELEASE}-browserfleet-postgres-0`,
    );
    assert.equal(pvc.spec.volumeName, "bf-postgres-data", "the claim is bound to the node's volume");
    const charged = await call("POST", "/web/v1/scrape", { url: siteUrl("/article"), formats: ["markdown"] });
    assert.equal(charged.status, 200, JSON.stringify(charged.body).slice(0, 1000));
    const before = await rows(db!);
    assert.ok(before.length >= 3, `the ledger holds the test's money: ${before.length} rows`);
    await (await deletePod(`${RELEASE}-browserfleet-postgres-0`))();
    await db?.close();
    db = await connectPostgres();
    const fresh = db;
    // kube-proxy follows the Service to the new pod's address a moment after the pod is Ready.
    const now = await waitFor(
      "PostgreSQL through its Service",
      () => rows(fresh).catch(() => undefined),
      60_000,
      500,
    );
    // Rows are compared as a set: the api goes on writing (leases given back) while the pod is away.
    const kept = new Set(now);
    assert.deepEqual(
      before.filter((r) => !kept.has(r)),
      [],
      "every row written before is still there",
    );
    // The api's pool reconnects by itself and charges again.
    await waitFor(
      "a paid scrape after the restart",
      async () =>
        (await call("POST", "/web/v1/scrape", { url: siteUrl("/article"), formats: ["markdown"] })).status ===
        200,
      180_000,
      1000,
    );
  });

  it("answers every scrape while the NATS server leading the task stream is killed; it comes back on its volume and catches up", async () => {
    const svc = await get(`/api/v1/namespaces/${NS}/services/${RELEASE}-browserfleet-nats`);
    const nc = await connectBus({ servers: `nats://${svc.spec.clusterIP}:4222`, name: "real-node-test" });
    try {
      const jsm = await jetstreamManager(nc);
      const info = await jsm.streams.info(TASK_STREAM);
      assert.equal(info.config.num_replicas, 3, "the chart keeps the task stream on all three servers");
      const leader = info.cluster?.leader as string;
      assert.match(
        leader,
        new RegExp(`^${RELEASE}-browserfleet-nats-[0-2]$`),
        "servers are named by their pods",
      );
      const scrapes = [0, 1, 2, 3, 4, 5].map(async (i) => {
        // Spread over the next few seconds: some sent before the kill, some in the election, some after.
        await new Promise((r) => setTimeout(r, i * 1_500));
        return call("POST", "/web/v1/scrape", { url: siteUrl(`/article?nats=${i}`), formats: ["markdown"] });
      });
      await new Promise((r) => setTimeout(r, 1_000));
      const back = await deletePod(leader, 0);
      for (const r of await Promise.all(scrapes))
        assert.equal(r.status, 200, JSON.stringify(r.body).slice(0, 1000));
      await back();
      await waitFor(
        "three current copies of the task stream",
        async () => {
          const now = await jsm.streams.info(TASK_STREAM);
          return now.cluster?.replicas?.length === 2 && now.cluster.replicas.every((r) => r.current);
        },
        120_000,
        1000,
      );
      const pvc = await get(`/api/v1/namespaces/${NS}/persistentvolumeclaims/data-${leader}`);
      assert.equal(
        pvc.spec.volumeName,
        `bf-nats-data-${leader.slice(-1)}`,
        "the claim is bound to its node volume",
      );
    } finally {
      await nc.close();
    }
  });

  // Faults under paid load, one at a time: keyed callers scrape through the api Service (rendered and
  // cached pages) while each fault runs; after it, each account paid exactly what its answers were charged.
  it("the api's process killed with kill -9 under paid load: restarted in its pod, every call charged what its answer said", async (t) => {
    // The api's process killed with kill -9: the kubelet restarts its container in the same pod, whose
    // emptyDir keeps the balance-lease journal, and the new process writes the charges it lacks.
    const api = { url: apiBase };
    const load = paidLoad(db!, site.url);
    const accounts = await load.newAccounts(3);
    const apiPod = (
      await get(
        `/api/v1/namespaces/${NS}/pods?labelSelector=${encodeURIComponent("app.kubernetes.io/component=api")}`,
      )
    ).items[0];
    const restarts = apiPod.status.containerStatuses[0].restartCount;
    let killedAt = 0;
    const wallet = await walletNow();
    const run = await load.underMixedLoad(
      api,
      accounts,
      async () => {
        killedAt = performance.now();
        process.kill(await containerPid(apiPod.metadata.name), "SIGKILL");
        // The kubelet restarts the container in the same pod (after its crash back-off).
        await waitFor(
          "the api's container restarted in its pod, and Ready",
          async () => {
            const now = await get(`/api/v1/namespaces/${NS}/pods/${apiPod.metadata.name}`);
            return now.status.containerStatuses[0].restartCount === restarts + 1 && isReady(now);
          },
          300_000,
          1000,
        );
      },
      mix(),
      5_000,
    );
    report(t, "api kill -9 (in its pod)", run.outcomes);
    const outcomes = await settleMixed(db!, api, run);
    if (outcomes.some((o) => o.status === 404)) await whoAnswers(t);
    assert.ok(
      outcomes.some((o) => o.status === 200 && o.started > killedAt),
      "the restarted api answers calls",
    );
    assert.equal(
      outcomes.filter((o) => o.status === 404).length,
      0,
      "no call answered 404: the route is there before, during and after",
    );
    // A call cut by the kill is charged only if its work was charged in the instant before its answer;
    // every other call was charged what its answer said (once the charges written behind have landed).
    await waitFor(
      "each call's charge in the ledger",
      async () => {
        const byRequest = await chargedByRequest(
          db!,
          run.accounts.map((a) => a.accountId),
        );
        // What the answers say each request was charged (a session's idle minutes under its open's).
        const said = new Map<string, number>();
        for (const o of outcomes) said.set(o.requestId, (said.get(o.requestId) ?? 0) + o.chargedMicros);
        // (A wallet's calls are checked against the chain after.)
        for (const o of outcomes.filter((x) => x.kind !== "wallet scrape"))
          if (o.status === 0 && o.started < killedAt) o.chargedMicros = byRequest.get(o.requestId) ?? 0;
          else
            assert.equal(
              byRequest.get(o.requestId) ?? 0,
              said.get(o.requestId),
              `${o.requestId} (${o.kind ?? "scrape"}, ${o.status})`,
            );
        return true;
      },
      60_000,
      1000,
    );
    await assertReconciledLive(db!, run.accounts, outcomes, "api kill -9");
    await assertWalletReconciled(db!, wallet, outcomes, "api kill -9");
  });

  it("the task stream's leader killed under paid load: no call refused, the ledger reconciled", async (t) => {
    // The server leading the task stream killed (its pod deleted with no grace).
    const api = { url: apiBase };
    const natsSvc = await get(`/api/v1/namespaces/${NS}/services/${RELEASE}-browserfleet-nats`);
    const load = paidLoad(db!, site.url);
    const accounts = await load.newAccounts(3);
    const nc = await connectBus({
      servers: `nats://${natsSvc.spec.clusterIP}:4222`,
      name: "real-node-faults",
    });
    const leader = (await (await jetstreamManager(nc)).streams.info(TASK_STREAM)).cluster?.leader;
    await nc.close();
    const wallet = await walletNow();
    const run = await load.underMixedLoad(
      api,
      accounts,
      async () => {
        await deletePod(leader as string, 0);
      },
      mix(),
    );
    report(t, "NATS server killed", run.outcomes);
    const outcomes = await settleMixed(db!, api, run);
    assert.deepEqual(
      outcomes.filter((o) => o.code === "unavailable").map((o) => o.requestId),
      [],
      "no call refused as unavailable",
    );
    await assertReconciledLive(db!, run.accounts, outcomes, "NATS server killed");
    await assertWalletReconciled(db!, wallet, outcomes, "NATS server killed");
  });

  it("the PostgreSQL pod deleted under paid load: failed calls free, the ledger reconciled", async (t) => {
    // The PostgreSQL pod deleted: calls fail while it is away (nothing charged for them), then are charged again.
    const api = { url: apiBase };
    const load = paidLoad(db!, site.url);
    const accounts = await load.newAccounts(3);
    const wallet = await walletNow();
    const run = await load.underMixedLoad(
      api,
      accounts,
      async () => (await deletePod(`${RELEASE}-browserfleet-postgres-0`))(),
      mix(),
      10_000,
    );
    report(t, "PostgreSQL pod deleted", run.outcomes);
    await db?.close();
    db = await connectPostgres();
    const fresh = db;
    await waitFor(
      "PostgreSQL through its Service",
      () => fresh.sql`select 1`.catch(() => undefined),
      60_000,
      500,
    );
    const outcomes = await settleMixed(db, api, run);
    await assertReconciledLive(db, run.accounts, outcomes, "PostgreSQL pod deleted");
    await assertWalletReconciled(db, wallet, outcomes, "PostgreSQL pod deleted");
  });

  it("a browser pod holding a live session deleted under paid load: the ledger reconciled", async (t) => {
    const api = { url: apiBase };
    const load = paidLoad(db!, site.url);
    const accounts = await load.newAccounts(3);
    const wallet = await walletNow();
    let deleted = "";
    const run = await load.underMixedLoad(
      api,
      accounts,
      async () => {
        // The pod holding the load's session (its caller opens one at once), deleted with no grace.
        const holder = await waitFor(
          "a browser pod holding a session",
          async () => {
            for (const pod of (await browserPods()).filter(isReady))
              if ((sample(await podMetrics(pod).catch(() => ""), "fleet_sessions_open") || 0) >= 1)
                return pod.metadata.name as string;
            return undefined;
          },
          60_000,
          500,
        );
        deleted = holder;
        const gone = await cluster.api(
          "DELETE",
          `/api/v1/namespaces/${NS}/pods/${holder}?gracePeriodSeconds=0`,
        );
        assert.equal(gone.status, 200);
        await waitFor(
          "a Ready browser pod in its place",
          async () => (await browserPods()).some((p) => isReady(p) && p.metadata.name !== holder),
          300_000,
          1000,
        );
      },
      mix(),
      10_000,
    );
    report(t, `browser pod holding a session deleted (${deleted})`, run.outcomes);
    assert.ok(
      run.outcomes.some((o) => o.kind === "act" && o.status === 200),
      "the load's sessions were acted on",
    );
    const outcomes = await settleMixed(db!, api, run);
    await assertReconciledLive(db!, run.accounts, outcomes, "session pod deleted under load");
    await assertWalletReconciled(db!, wallet, outcomes, "session pod deleted under load");
  });

  it("a live session whose browser pod is deleted: the next act says that the session was lost, charges nothing, and the account paid what its answers said", async () => {
    const { accountId } = await createAccount(db!.db, { balanceMicros: 10_000_000 });
    const sessionKey = (await issueKey(db!.db, accountId, "session-fault")).key;
    const paid: Outcome[] = [];
    const send = async (path: string, body: unknown) => {
      const r = await paidCall(apiBase, { key: sessionKey, accountId }, path, body);
      paid.push(r.outcome);
      return { status: r.outcome.status, body: r.body };
    };
    const opened = await send("/web/v1/session", { url: siteUrl("/form") });
    assert.equal(opened.status, 200, String(JSON.stringify(opened.body)).slice(0, 1000));
    const id = opened.body.sessionId;
    const ref = opened.body.data.controls.find(
      (c: Json) => c.role === "textbox" && c.name === "Username",
    ).ref;
    const typed = await send("/web/v1/act", { sessionId: id, actions: [{ type: { ref, text: "ada" } }] });
    assert.equal(typed.status, 200, JSON.stringify(typed.body).slice(0, 1000));

    let holder: string | undefined;
    for (const pod of (await browserPods()).filter(isReady))
      if (sample(await podMetrics(pod).catch(() => ""), "fleet_sessions_open") === 1)
        holder = pod.metadata.name;
    assert.ok(holder, "a browser pod holds the session");
    const gone = await cluster.api("DELETE", `/api/v1/namespaces/${NS}/pods/${holder}?gracePeriodSeconds=0`);
    assert.equal(gone.status, 200);
    await waitFor(
      "the pod's processes gone",
      async () =>
        !(await browserPods()).some(
          (p: Json) => p.metadata.name === holder && p.status?.phase === "Running" && isReady(p),
        ),
      60_000,
      500,
    );

    const after = await send("/web/v1/act", { sessionId: id, actions: [{ press: "Enter" }] });
    assert.equal(after.status, 410, JSON.stringify(after.body ?? null).slice(0, 300));
    assert.equal(after.body.error.code, "session_lost", JSON.stringify(after.body));
    assert.ok(paid.every((o) => o.status === 200 || o.chargedMicros === 0));
    // The pool makes a new pod in the deleted one's place.
    await waitFor(
      "a Ready browser pod again",
      async () => (await browserPods()).some(isReady),
      300_000,
      1000,
    );
    await assertReconciledLive(db!, [{ accountId }], paid, "session pod deleted");
  });

  /** What stands behind the api Service now: its endpoints, the pods with their addresses, kube-proxy's rules. */
  async function whoAnswers(t: { diagnostic(s: string): void }) {
    const slices = await get(
      `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices?labelSelector=${encodeURIComponent(`kubernetes.io/service-name=${RELEASE}-browserfleet-api`)}`,
    );
    for (const s of slices.items ?? [])
      t.diagnostic(
        `api EndpointSlice ${s.metadata.name}: ${JSON.stringify({ endpoints: s.endpoints, ports: s.ports })}`,
      );
    for (const p of (await get(`/api/v1/namespaces/${NS}/pods`)).items ?? [])
      t.diagnostic(
        `pod ${p.metadata.name} ${p.status?.podIP} ${p.status?.phase} ports ${JSON.stringify(p.spec.containers.flatMap((c: Json) => c.ports ?? []).map((x: Json) => x.containerPort))}`,
      );
    const rules = await run("iptables-save", ["-t", "nat"], { timeoutMs: 30_000 }).catch((e) => String(e));
    for (const line of String(rules)
      .split("\n")
      .filter((l) => l.includes("browserfleet-api")))
      t.diagnostic(`nat: ${line}`);
    const probe = await fetch(`${apiBase}/web/v1/scrape`, { method: "GET" }).catch(() => undefined);
    t.diagnostic(
      `GET /web/v1/scrape now: ${probe?.status} ${[...(probe?.headers ?? [])].map(([k, v]) => `${k}=${v}`).join("; ")}`,
    );
  }

  /**
   * Deletes a StatefulSet's pod (with `grace` 0: killed at once) and returns a wait for the pod of the same
   * name that replaces it, Ready.
   */
  async function deletePod(name: string, grace?: number): Promise<() => Promise<void>> {
    const path = `/api/v1/namespaces/${NS}/pods/${name}`;
    const old = await get(path);
    const r = await cluster.api("DELETE", grace === undefined ? path : `${path}?gracePeriodSeconds=${grace}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return async () => {
      await waitFor(
        `${name} back in a new pod`,
        async () => {
          const p = await get(path);
          return p.metadata?.uid !== old.metadata.uid && isReady(p);
        },
        300_000,
        1000,
      );
    };
  }

  /**
   * Whether each of `targets` takes a TCP connection from inside the network namespace of process `pid`,
   * as user `uid`: "open", "refused", or "no answer" (what a policy's dropped packets give, after 3 s).
   */
  async function reach(
    pid: number,
    uid: number,
    targets: Record<string, [string, number]>,
  ): Promise<Record<string, string>> {
    const probe = `
      const net = require("node:net");
      const targets = ${JSON.stringify(targets)};
      Promise.all(Object.entries(targets).map(([name, [host, port]]) => new Promise((done) => {
        const s = net.connect({ host, port, timeout: 3000 });
        s.on("connect", () => { s.destroy(); done([name, "open"]); });
        s.on("timeout", () => { s.destroy(); done([name, "no answer"]); });
        s.on("error", (e) => done([name, e.code === "ECONNREFUSED" ? "refused" : e.code]));
      }))).then((r) => console.log(JSON.stringify(Object.fromEntries(r))));`;
    const out = await run(
      "nsenter",
      ["-t", String(pid), "-n", "-S", String(uid), "-G", String(uid), process.execPath, "-e", probe],
      // A folder the pod's user may enter.
      { timeoutMs: 30_000, cwd: "/" },
    );
    return JSON.parse(out.stdout);
  }

  /** The host pid of a pod's program (a container's processes are the host's, in their own pid namespace). */
  async function containerPid(pod: string): Promise<number> {
    for (const entry of await readdir("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const cmd = (await readFile(`/proc/${entry}/cmdline`, "utf8")).split("\0");
        if (cmd[0] !== "node" || !cmd.includes("dist/main.mjs")) continue;
        const env = (await readFile(`/proc/${entry}/environ`, "utf8")).split("\0");
        if (env.includes(`HOSTNAME=${pod}`)) return Number(entry);
      } catch {
        // A process that ended while it was read.
      }
    }
    throw new Error(`no process of pod ${pod} found`);
  }
});
