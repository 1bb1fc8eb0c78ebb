/**
 * The Helm chart: helm lint; helm template with default and non-default values through kubeconform
 * -strict (schemas generated from the test API server's OpenAPI plus our CRD); the rendered chart applied
 * to a real API server; and the operator run with the chart's own ServiceAccount and RBAC, which proves
 * the Role is enough, while SubjectAccessReviews show it is no more than needed.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { connectBus, ensureTaskQueue, type LocalNats, startLocalNats } from "@browserfleet/bus";
import { loadConfig } from "@browserfleet/config";
import yaml from "js-yaml";
import {
  applyObject,
  ensureKubeTools,
  type KubeCluster,
  ROOT,
  run,
  startKubeCluster,
  TOOLS_BIN,
  tool,
  waitFor,
} from "../helpers/kube.ts";
import { type OperatorProc, startOperatorProcess } from "../helpers/kube-fleet.ts";
import { writeKubeconformSchemas } from "../helpers/kube-schemas.ts";

const CHART = join(ROOT, "charts/browserfleet");
const KUBE_VERSION = "1.34.4";
const CRD_FILE = join(ROOT, "crds/browserpools.browserfleet.dev.yaml");

const tools = await ensureKubeTools("all");

// biome-ignore lint/suspicious/noExplicitAny: rendered manifests
type Obj = any;

/** Values that change most switches from their defaults. */
const NON_DEFAULT = {
  images: {
    api: { repository: "example/api", tag: "1.2.3" },
    pullPolicy: "Always",
    pullSecrets: [{ name: "regcred" }],
  },
  config: { X402_PAY_TO: "0x0000000000000000000000000000000000000001", CACHE_SCOPE: "account" },
  api: { replicas: 3, service: { type: "LoadBalancer", port: 8080 } },
  artifacts: {
    store: "s3",
    ttl: 172_800_000,
    s3: {
      bucket: "fleet-files",
      endpoint: "http://minio.storage:9000",
      prefix: "browserfleet/",
      existingSecret: "fleet-s3",
    },
  },
  operator: { clusterWide: true, reconcilePeriodSeconds: 2 },
  browserPool: {
    name: "fast",
    slotsPerPod: 8,
    minReplicas: 2,
    maxReplicas: 40,
    nodeSelector: { pool: "browsers" },
    tolerations: [{ key: "browsers", operator: "Exists", effect: "NoSchedule" }],
    env: { FLEET_ALLOW_PRIVATE: "10.20.0.0/16", BROWSER_WARM_CONTEXTS: 2 },
  },
  egress: {
    pools: [
      { name: "de-res", url: "http://user:pw@squid.egress:3128", countries: ["DE", "AT"], priceMicros: 2000 },
      { name: "any", url: "http://squid.egress:3129", default: true },
    ],
    callerProxies: true,
  },
  nats: { url: "nats://nats.messaging:4222" },
  postgres: { url: "postgres://fleet:secret@db.data:5432/fleet" },
  ingress: {
    enabled: true,
    className: "nginx",
    host: "fleet.example.com",
    tls: [{ hosts: ["fleet.example.com"], secretName: "fleet-tls" }],
  },
  networkPolicy: {
    extraEgress: [{ to: [{ ipBlock: { cidr: "10.20.0.0/16" } }], ports: [{ protocol: "TCP", port: 4222 }] }],
    metricsFromNamespaces: { "kubernetes.io/metadata.name": "monitoring" },
  },
  monitoring: { force: true, serviceMonitor: { labels: { release: "prom" } } },
};

describe("Helm chart", { skip: tools.skip, timeout: 10 * 60_000 }, () => {
  let cluster: KubeCluster;
  let dir: string;
  let schemaLocation: string;
  const helm = (...args: string[]) => run(tool("helm"), args, { timeoutMs: 120_000 });
  /** The chart rendered as release bf in `ns`, with a values file and further helm arguments. */
  const render = async (ns: string, valuesFile?: string, ...args: string[]) =>
    (
      await helm(
        "template",
        "bf",
        CHART,
        "--namespace",
        ns,
        "--kube-version",
        KUBE_VERSION,
        ...(valuesFile ? ["-f", valuesFile] : []),
        ...args,
      )
    ).stdout;
  const docs = (text: string): Obj[] =>
    (yaml.loadAll(text) as Obj[]).filter((d) => d && typeof d === "object");
  const sets = (values: string[]) => values.flatMap((v) => ["--set", v]);
  /** The chart rendered as release bf in namespace fleet, with `--set` values. */
  const template = async (...values: string[]) => docs(await render("fleet", undefined, ...sets(values)));

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "bf-chart-"));
    await writeFile(join(dir, "non-default.yaml"), yaml.dump(NON_DEFAULT));
    await writeFile(
      join(dir, "cnpg.yaml"),
      yaml.dump({ postgres: { existingSecret: "fleet-db-app", existingSecretKey: "uri" } }),
    );
    cluster = await startKubeCluster({ nodes: 1 });
    const crd = yaml.load(readFileSync(CRD_FILE, "utf8"));
    schemaLocation = await writeKubeconformSchemas(
      cluster,
      join(TOOLS_BIN, "..", "schemas", `v${KUBE_VERSION}`),
      [crd],
    );
    await applyObject(cluster, crd);
    await waitFor(
      "the CRD to be served",
      async () => (await cluster.api("GET", "/apis/browserfleet.dev/v1alpha1/browserpools")).status === 200,
    );
  });

  after(async () => {
    await cluster?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("passes helm lint with default and non-default values", async () => {
    await helm("lint", CHART, "--strict", "--kube-version", KUBE_VERSION);
    await helm(
      "lint",
      CHART,
      "--strict",
      "--kube-version",
      KUBE_VERSION,
      "-f",
      join(dir, "non-default.yaml"),
    );
  });

  it("refuses values that break values.schema.json", async () => {
    await assert.rejects(
      helm("template", "bf", CHART, "--kube-version", KUBE_VERSION, "--set", "browserPool.slotsPerPod=0"),
      /slotsPerPod/,
    );
    await assert.rejects(
      helm("template", "bf", CHART, "--kube-version", KUBE_VERSION, "--set", "nats.url=http://nope"),
      /nats/,
    );
    await assert.rejects(
      helm("template", "bf", CHART, "--kube-version", KUBE_VERSION, "--set", "ingress.trustedProxyHops=-1"),
      /trustedProxyHops/,
    );
    await assert.rejects(
      helm("template", "bf", CHART, "--kube-version", KUBE_VERSION, "--set", "artifacts.store=disk"),
      /artifacts\/store/,
    );
    await assert.rejects(
      helm("template", "bf", CHART, "--kube-version", KUBE_VERSION, "--set", "artifacts.ttl=10"),
      /artifacts\/ttl/,
    );
  });

  it("in-cluster NATS: a three-server JetStream cluster whose config nats-server takes, the work streams at 3 replicas", async () => {
    const list = await template();
    const sts = list.find((d) => d.kind === "StatefulSet" && d.metadata.name === "bf-browserfleet-nats");
    assert.equal(sts.spec.replicas, 3);
    assert.equal(sts.spec.podManagementPolicy, "Parallel", "a quorum can only form if they start together");
    const headless = list.find((d) => d.kind === "Service" && d.metadata.name === sts.spec.serviceName);
    assert.equal(headless.spec.clusterIP, "None");
    assert.equal(headless.spec.publishNotReadyAddresses, true);
    const pdb = list.find((d) => d.kind === "PodDisruptionBudget" && d.metadata.name.endsWith("-nats"));
    assert.equal(pdb.spec.maxUnavailable, 1);
    const conf = list.find((d) => d.kind === "ConfigMap" && d.metadata.name === "bf-browserfleet-nats").data[
      "nats.conf"
    ] as string;
    const routes = [...conf.matchAll(/nats:\/\/([^:\s]+):6222/g)].map((m) => m[1]);
    assert.deepEqual(
      routes,
      [0, 1, 2].map((i) => `bf-browserfleet-nats-${i}.bf-browserfleet-nats-headless`),
    );
    // A client whose pod vanished is dropped within about 30 s, not NATS's default of minutes.
    assert.match(conf, /ping_interval: "15s"\n\s*ping_max: 2/);
    // nats-server itself takes the rendered file (its -t checks a config and exits).
    const file = join(dir, "nats.conf");
    await writeFile(file, conf);
    // With the container's Go settings: Go refuses to start on a GOMEMLIMIT it cannot read.
    const natsEnv = sts.spec.template.spec.containers[0].env as Obj[];
    const goEnv = Object.fromEntries(
      natsEnv.filter((e) => e.name.startsWith("GO")).map((e) => [e.name, e.value as string]),
    );
    assert.equal(goEnv.GOGC, "50");
    // The soft ceiling sits under the container's limit, so Go collects harder before the kernel kills.
    const mib = (v: string) => Number.parseInt(v, 10);
    assert.ok(mib(goEnv.GOMEMLIMIT) < mib(sts.spec.template.spec.containers[0].resources.limits.memory));
    const check = spawnSync(process.env.NATS_SERVER_BIN ?? "nats-server", ["-t", "-c", file], {
      encoding: "utf8",
      env: { ...process.env, ...goEnv, POD_NAME: "bf-browserfleet-nats-0" },
    });
    assert.equal(check.status, 0, check.stderr);
    const badLimit = spawnSync(process.env.NATS_SERVER_BIN ?? "nats-server", ["-t", "-c", file], {
      encoding: "utf8",
      env: { ...process.env, GOMEMLIMIT: "460 megs", POD_NAME: "bf-browserfleet-nats-0" },
    });
    assert.notEqual(badLimit.status, 0, "the check above would catch a GOMEMLIMIT Go cannot read");
    for (const d of list.filter((d) => d.kind === "Deployment" || d.kind === "BrowserPool")) {
      const env = d.kind === "BrowserPool" ? d.spec.env : d.spec.template.spec.containers[0].env;
      if (d.metadata.name.endsWith("-operator")) continue;
      assert.equal(env.find((e: Obj) => e.name === "NATS_STREAM_REPLICAS")?.value, "3", d.metadata.name);
    }
    // One server: no cluster, one copy of each stream, nothing to keep a quorum for.
    const one = await template("nats.internal.replicas=1");
    const oneConf = one.find((d) => d.kind === "ConfigMap" && d.metadata.name === "bf-browserfleet-nats")
      .data["nats.conf"];
    assert.ok(!oneConf.includes("cluster {"));
    assert.ok(!one.some((d) => d.kind === "PodDisruptionBudget" && d.metadata.name.endsWith("-nats")));
    const poolEnv = (l: Obj[]) => l.find((d) => d.kind === "BrowserPool").spec.env as Obj[];
    assert.equal(poolEnv(one).find((e) => e.name === "NATS_STREAM_REPLICAS")?.value, "1");
    // An external 3-server cluster says so.
    const ext = await template("nats.url=nats://nats.messaging:4222", "nats.streamReplicas=3");
    assert.equal(poolEnv(ext).find((e) => e.name === "NATS_STREAM_REPLICAS")?.value, "3");
    await assert.rejects(template("nats.internal.replicas=2"), /replicas/);
  });

  it("takes PostgreSQL from an operator's Secret (CloudNativePG's <cluster>-app, key uri)", async () => {
    const file = join(dir, "cnpg.yaml");
    await writeFile(
      file,
      yaml.dump({ postgres: { existingSecret: "fleet-db-app", existingSecretKey: "uri" } }),
    );
    const list = docs(await render("fleet", file));
    assert.ok(
      !list.some((d) => d.kind === "StatefulSet" && d.metadata.name.endsWith("-postgres")),
      "no in-cluster PostgreSQL",
    );
    assert.ok(!list.some((d) => d.kind === "Secret" && d.metadata.name.endsWith("-postgres")));
    for (const program of ["api", "jobs"]) {
      const c = list.find((d) => d.kind === "Deployment" && d.metadata.name.endsWith(`-${program}`)).spec
        .template.spec.containers[0];
      assert.deepEqual(
        c.env.find((e: Obj) => e.name === "DATABASE_URL").valueFrom,
        { secretKeyRef: { name: "fleet-db-app", key: "uri" } },
        program,
      );
      // Only that key: the rest of the operator's Secret (password, host, ...) stays out of the pod.
      assert.ok(!c.envFrom.some((e: Obj) => e.secretRef?.name === "fleet-db-app"), program);
    }
    // A Secret with DATABASE_URL is taken whole, as before.
    const whole = join(dir, "db-secret.yaml");
    await writeFile(whole, yaml.dump({ postgres: { existingSecret: "my-db" } }));
    const api = docs(await render("fleet", whole)).find(
      (d) => d.kind === "Deployment" && d.metadata.name.endsWith("-api"),
    ).spec.template.spec.containers[0];
    assert.ok(api.envFrom.some((e: Obj) => e.secretRef?.name === "my-db"));
    assert.ok(!api.env.some((e: Obj) => e.name === "DATABASE_URL"));
  });

  it("takes secret settings from a Secret of the platform team's (configSecret), never from config", async () => {
    const list = await template("configSecret.existingSecret=fleet-x402");
    for (const program of ["api", "jobs"]) {
      const c = list.find((d) => d.kind === "Deployment" && d.metadata.name.endsWith(`-${program}`)).spec
        .template.spec.containers[0];
      assert.ok(
        c.envFrom.some((e: Obj) => e.secretRef?.name === "fleet-x402"),
        `${program} reads the Secret's keys as environment`,
      );
    }
    // A key or password in config would sit in the Deployment in clear: refused, saying where it goes.
    await assert.rejects(
      template("config.X402_FACILITATOR_PRIVATE_KEY=0xabc"),
      /config\.X402_FACILITATOR_PRIVATE_KEY is a secret: .*configSecret\.existingSecret/,
    );
    await assert.rejects(template("config.SEARCH_BRAVE_API_KEY=k"), /configSecret\.existingSecret/);
  });

  it("renders only valid manifests (kubeconform -strict, Kubernetes schemas + our CRD)", async () => {
    for (const [name, valuesFile] of [
      ["default", undefined],
      ["non-default", join(dir, "non-default.yaml")],
      ["cloudnativepg", join(dir, "cnpg.yaml")],
    ] as const) {
      const text = await render("fleet", valuesFile);
      const file = join(dir, `rendered-${name}.yaml`);
      await writeFile(file, `${text}\n---\n${readFileSync(CRD_FILE, "utf8")}`);
      const { stdout } = await run(tool("kubeconform"), [
        "-strict",
        "-summary",
        "-output",
        "json",
        "-schema-location",
        schemaLocation,
        // The Prometheus Operator's kinds have no schema here; their rules are checked by promtool.
        "-skip",
        "ServiceMonitor,PrometheusRule",
        file,
      ]);
      const report = JSON.parse(stdout);
      assert.equal(report.summary.invalid, 0, `${name}: ${stdout}`);
      assert.equal(report.summary.errors, 0, `${name}: ${stdout}`);
      assert.ok(report.summary.valid >= 15, `${name}: ${stdout}`);
    }
  });

  it("renders what the values ask for", async () => {
    const def = docs(await render("fleet"));
    const kinds = (list: Obj[]) => list.map((d) => d.kind);
    assert.ok(
      !kinds(def).includes("ServiceMonitor"),
      "no ServiceMonitor without the Prometheus Operator CRDs",
    );
    assert.ok(!kinds(def).includes("Ingress"));
    assert.ok(kinds(def).includes("StatefulSet"), "in-cluster NATS and PostgreSQL by default");
    const pool = def.find((d) => d.kind === "BrowserPool");
    assert.equal(pool.spec.image, "browserfleet/browser:0.1.0");
    const np = def.find((d) => d.kind === "NetworkPolicy");
    const internet = np.spec.egress.at(-1).to[0].ipBlock;
    assert.equal(internet.cidr, "0.0.0.0/0");
    for (const c of ["169.254.0.0/16", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"])
      assert.ok(internet.except.includes(c), c);
    for (const d of def.filter((x) => x.kind === "Deployment")) {
      const pod = d.spec.template.spec;
      assert.equal(pod.securityContext.runAsNonRoot, true, d.metadata.name);
      for (const c of pod.containers) {
        assert.equal(c.securityContext.readOnlyRootFilesystem, true, c.name);
        assert.ok(c.readinessProbe && c.livenessProbe && c.resources.requests, c.name);
      }
    }
    // Chromium sandboxed: the pool names the chart's seccomp profile, which a DaemonSet writes on every node;
    // nothing anywhere is privileged or gains a capability.
    assert.deepEqual(pool.spec.sandbox, { mode: "on", seccompProfile: "browserfleet/chromium-v1.json" });
    const installer = def.find((d) => d.kind === "DaemonSet" && d.metadata.name.endsWith("-seccomp"));
    assert.ok(installer, "the profile's installer");
    const profileMap = def.find((d) => d.kind === "ConfigMap" && d.metadata.name.endsWith("-seccomp"));
    assert.deepEqual(
      JSON.parse(profileMap.data["chromium.json"]),
      JSON.parse(readFileSync(join(ROOT, "charts/browserfleet/files/seccomp-chromium.json"), "utf8")),
    );
    assert.match(
      installer.spec.template.spec.containers[0].command.join(" "),
      /\/host-seccomp\/browserfleet\/chromium-v1\.json/,
    );
    for (const w of def.filter((x) => ["Deployment", "StatefulSet", "DaemonSet"].includes(x.kind)))
      for (const c of w.spec.template.spec.containers) {
        assert.notEqual(c.securityContext?.privileged, true, `${w.metadata.name}/${c.name}`);
        assert.equal(c.securityContext?.capabilities?.add, undefined, `${w.metadata.name}/${c.name}`);
        assert.deepEqual(c.securityContext?.capabilities?.drop, ["ALL"], `${w.metadata.name}/${c.name}`);
      }
    // With the Prometheus Operator's API in the cluster, the monitoring objects appear without force.
    const withCrds = docs(await render("fleet", undefined, "--api-versions", "monitoring.coreos.com/v1"));
    assert.equal(withCrds.filter((d) => d.kind === "ServiceMonitor").length, 4);
    assert.equal(withCrds.filter((d) => d.kind === "PrometheusRule").length, 1);
    const other = docs(await render("fleet", join(dir, "non-default.yaml")));
    for (const k of ["ServiceMonitor", "PrometheusRule", "Ingress", "ClusterRole"])
      assert.ok(kinds(other).includes(k), k);
    assert.ok(!kinds(other).includes("StatefulSet"), "external NATS and PostgreSQL");
    assert.deepEqual(pool.spec.env, [
      { name: "CALLER_PROXIES", value: "off" },
      { name: "NATS_STREAM_REPLICAS", value: "3" },
    ]);
    assert.deepEqual(other.find((d) => d.kind === "BrowserPool").spec.env, [
      { name: "CALLER_PROXIES", value: "on" },
      { name: "NATS_STREAM_REPLICAS", value: "1" },
      { name: "BROWSER_WARM_CONTEXTS", value: "2" },
      { name: "FLEET_ALLOW_PRIVATE", value: "10.20.0.0/16" },
    ]);
    // Behind the chart's ingress the api trusts one X-Forwarded-For hop, so keyless callers are told apart.
    const apiEnv = (list: Obj[]) =>
      list.find((d) => d.kind === "Deployment" && d.metadata.name.endsWith("-api")).spec.template.spec
        .containers[0].env as Array<{ name: string; value: string }>;
    const hops = (list: Obj[]) =>
      apiEnv(list)
        .filter((e) => e.name === "TRUSTED_PROXY_HOPS")
        .map((e) => e.value);
    assert.deepEqual(hops(def), [], "no ingress: the socket's peer is the caller");
    assert.deepEqual(hops(other), ["1"]);
    const set = async (...values: string[]) =>
      docs(
        (
          await helm(
            "template",
            "bf",
            CHART,
            "--kube-version",
            KUBE_VERSION,
            "--set",
            "ingress.enabled=true",
            ...values.flatMap((v) => ["--set", v]),
          )
        ).stdout,
      );
    // What callers and people open passes the ingress (REST, MCP, live views, replays, the web UI's files); metrics do not.
    const ingress = (await set()).find((d) => d.kind === "Ingress");
    assert.deepEqual(
      ingress.spec.rules[0].http.paths.map((p: Obj) => p.path),
      ["/web", "/mcp", "/live", "/recordings", "/ui", "/console"],
    );
    assert.deepEqual(hops(await set("ingress.trustedProxyHops=2")), ["2"], "an L7 load balancer in front");
    assert.deepEqual(hops(await set("config.TRUSTED_PROXY_HOPS=3")), ["3"], "config wins, once");
    // Behind the ingress, file links and x402 resources use its address, https when it has TLS.
    const base = (list: Obj[]) =>
      apiEnv(list)
        .filter((e) => e.name === "PUBLIC_BASE_URL")
        .map((e) => e.value);
    assert.deepEqual(base(def), [], "no ingress: the request's own Host");
    assert.deepEqual(base(await set("ingress.host=fleet.example.com")), ["http://fleet.example.com"]);
    assert.deepEqual(
      base(
        await set(
          "ingress.host=fleet.example.com",
          "ingress.tls[0].secretName=fleet-tls",
          "ingress.tls[0].hosts[0]=fleet.example.com",
        ),
      ),
      ["https://fleet.example.com"],
    );
    assert.deepEqual(
      base(await set("ingress.host=fleet.example.com", "config.PUBLIC_BASE_URL=https://api.example.com")),
      ["https://api.example.com"],
      "config wins, once",
    );
    const rule = other.find((d) => d.kind === "PrometheusRule");
    assert.ok(rule.spec.groups[0].rules.length >= 5);
    const dash = other.find((d) => d.kind === "ConfigMap" && d.metadata.name.endsWith("dashboard"));
    const panels = JSON.parse(dash.data["browserfleet.json"]).panels.map((p: Obj) => p.title);
    for (const t of [
      "Request rate by route",
      "Scrape duration by format (p95)",
      "Live sessions",
      "Cache hit ratio",
    ])
      assert.ok(panels.includes(t), t);
  });

  it("profiles: a sealing key made once, read by the api and the jobs program; or the Secret given", async () => {
    const secretsOf = (list: Obj[], name: string) =>
      list
        .find((d) => d.kind === "Deployment" && d.metadata.name === name)
        .spec.template.spec.containers[0].envFrom?.map((e: Obj) => e.secretRef?.name) ?? [];
    const def = await template();
    const made = def.find((d) => d.kind === "Secret" && d.metadata.name === "bf-browserfleet-profiles");
    const [id, key] = String(made.stringData.PROFILE_KEYS).split(":");
    assert.equal(id, "k1");
    assert.equal(Buffer.from(key ?? "", "base64").length, 32, "one 32-byte AES-256 key");
    for (const d of ["bf-browserfleet-api", "bf-browserfleet-jobs"])
      assert.ok(secretsOf(def, d).includes("bf-browserfleet-profiles"), d);
    const given = await template("profiles.existingSecret=profile-keys");
    assert.ok(!given.some((d) => d.kind === "Secret" && d.metadata.name === "bf-browserfleet-profiles"));
    for (const d of ["bf-browserfleet-api", "bf-browserfleet-jobs"])
      assert.ok(secretsOf(given, d).includes("profile-keys"), d);
    assert.ok(
      !(secretsOf(given, "bf-browserfleet-operator") ?? []).includes("profile-keys"),
      "the operator never sees it",
    );
  });

  it("egress: the pools in a Secret the api, jobs and browser pods read, as the services' config takes it", async () => {
    const list = await template(
      "egress.pools[0].name=de",
      "egress.pools[0].url=http://u:p@squid.egress:3128",
      "egress.pools[0].countries[0]=DE",
      "egress.pools[0].priceMicros=2000",
      "egress.callerProxies=true",
    );
    const secret = list.find((d) => d.kind === "Secret" && d.metadata.name === "bf-browserfleet-egress");
    const config = loadConfig({ EGRESS_PROXIES: secret.stringData.EGRESS_PROXIES, CALLER_PROXIES: "on" });
    assert.deepEqual(config.EGRESS_PROXIES, [
      {
        name: "de",
        url: "http://u:p@squid.egress:3128",
        countries: ["DE"],
        default: false,
        priceMicros: 2000,
      },
    ]);
    const pool = list.find((d) => d.kind === "BrowserPool");
    const workloads: [string, Obj[], Obj[]][] = [
      ...["bf-browserfleet-api", "bf-browserfleet-jobs"].map((name): [string, Obj[], Obj[]] => {
        const c = list.find((d) => d.kind === "Deployment" && d.metadata.name === name).spec.template.spec
          .containers[0];
        return [name, c.envFrom, c.env];
      }),
      ["browser pool", pool.spec.envFrom, pool.spec.env],
    ];
    for (const [name, envFrom, env] of workloads) {
      assert.ok(
        envFrom.some((e) => e.secretRef?.name === "bf-browserfleet-egress"),
        `${name} reads the pools`,
      );
      assert.equal(env.find((e) => e.name === "CALLER_PROXIES")?.value, "on", name);
    }
    const none = await template();
    assert.ok(!none.some((d) => d.kind === "Secret" && d.metadata.name === "bf-browserfleet-egress"));
    const given = await template("egress.existingSecret=my-pools");
    assert.ok(
      given
        .find((d) => d.kind === "BrowserPool")
        .spec.envFrom.some((e: Obj) => e.secretRef?.name === "my-pools"),
    );
  });

  it("artifacts: a URL secret made once, S3 from its values and Secret, no files store behind two replicas", async () => {
    const api = (list: Obj[]) =>
      list.find((d) => d.kind === "Deployment" && d.metadata.name === "bf-browserfleet-api").spec.template
        .spec.containers[0];
    const env = (list: Obj[]) =>
      Object.fromEntries(api(list).env.map((e: { name: string; value: string }) => [e.name, e.value]));
    const envFrom = (list: Obj[]) => api(list).envFrom.map((e: Obj) => e.secretRef.name);
    const secret = (list: Obj[]) =>
      list.find((d) => d.kind === "Secret" && d.metadata.name === "bf-browserfleet-artifacts");

    // Defaults: files in the one api pod, and a generated URL secret the api reads from its Secret.
    const def = await template();
    assert.match(secret(def).stringData.ARTIFACT_URL_SECRET, /^[A-Za-z0-9]{48}$/);
    assert.deepEqual(Object.keys(secret(def).stringData), ["ARTIFACT_URL_SECRET"]);
    assert.ok(envFrom(def).includes("bf-browserfleet-artifacts"));
    assert.equal(env(def).ARTIFACTS_STORE, "files");
    assert.equal(env(def).DATA_DIR, "/tmp/data");
    assert.ok(!Object.keys(env(def)).some((k) => k.startsWith("S3_") || k === "ARTIFACT_TTL_MS"));
    assert.equal(api(def).volumeMounts.find((m: Obj) => m.mountPath === "/tmp").name, "tmp");
    assert.ok(
      !def.some((d) => d.kind === "PodDisruptionBudget" && d.metadata.name.endsWith("-api")),
      "one replica: no PDB to block drains",
    );

    // S3: the bucket's values in the environment, the credentials from the given Secret.
    const s3 = docs(await render("fleet", join(dir, "non-default.yaml")));
    assert.equal(env(s3).ARTIFACTS_STORE, "s3");
    assert.equal(env(s3).S3_BUCKET, "fleet-files");
    assert.equal(env(s3).S3_ENDPOINT, "http://minio.storage:9000");
    assert.equal(env(s3).S3_REGION, "us-east-1");
    assert.equal(env(s3).S3_PREFIX, "browserfleet/");
    assert.equal(env(s3).S3_FORCE_PATH_STYLE, "true");
    assert.equal(env(s3).ARTIFACT_TTL_MS, "172800000");
    assert.deepEqual(envFrom(s3), [
      "bf-browserfleet-nats",
      "bf-browserfleet-postgres",
      "bf-browserfleet-profiles",
      "bf-browserfleet-egress",
      "bf-browserfleet-artifacts",
      "fleet-s3",
    ]);
    assert.deepEqual(Object.keys(secret(s3).stringData), ["ARTIFACT_URL_SECRET"], "no S3 keys of ours");
    assert.ok(!JSON.stringify(env(s3)).includes("S3_SECRET_ACCESS_KEY"));
    assert.equal(s3.find((d) => d.kind === "PodDisruptionBudget").spec.minAvailable, 1);

    // Inline keys (tests) go in the chart's Secret; a given URL secret replaces the generated one.
    const inline = await template(
      "artifacts.store=s3",
      "artifacts.s3.bucket=b",
      "artifacts.s3.forcePathStyle=false",
      "artifacts.s3.accessKeyId=AKID",
      "artifacts.s3.secretAccessKey=SAK",
      "artifacts.urlSecret.existingSecret=fleet-url",
    );
    assert.deepEqual(secret(inline).stringData, { S3_ACCESS_KEY_ID: "AKID", S3_SECRET_ACCESS_KEY: "SAK" });
    assert.deepEqual(envFrom(inline).slice(3), ["bf-browserfleet-artifacts", "fleet-url"]);
    assert.equal(env(inline).S3_FORCE_PATH_STYLE, "false");
    assert.equal(env(inline).S3_ENDPOINT, undefined, "AWS itself");
    const given = await template("artifacts.urlSecret.existingSecret=fleet-url");
    assert.equal(secret(given), undefined);
    assert.deepEqual(envFrom(given).slice(3), ["fleet-url"]);

    // What the api could not work with is refused, saying what to set.
    await assert.rejects(
      template("api.replicas=2"),
      /artifacts\.store=files .*api\.replicas=2.*set artifacts\.store=s3/,
    );
    await assert.rejects(template("artifacts.store=s3"), /artifacts\.store=s3 needs artifacts\.s3\.bucket/);
    await assert.rejects(
      template("artifacts.store=s3", "artifacts.s3.bucket=b", "artifacts.s3.accessKeyId=AKID"),
      /go together/,
    );
    await assert.rejects(
      template(`config.ARTIFACT_URL_SECRET=${"x".repeat(40)}`),
      /config\.ARTIFACT_URL_SECRET: set it through artifacts/,
    );
  });

  it("applies to a real API server, and the operator runs on the chart's RBAC alone", async () => {
    const ns = "fleet";
    assert.ok((await cluster.api("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status < 300);
    let nats: LocalNats | undefined;
    let natsDir: string | undefined;
    let op: OperatorProc | undefined;
    try {
      // External NATS and PostgreSQL (no volumes on fake nodes), everything else at its default.
      const values = join(dir, "external.yaml");
      await writeFile(
        values,
        yaml.dump({
          nats: { url: "nats://nats.example:4222" },
          postgres: { url: "postgres://u:p@db.example/x" },
        }),
      );
      const objs = docs(await render(ns, values));
      for (const o of objs)
        await applyObject(cluster, {
          ...o,
          metadata: { ...o.metadata, namespace: o.metadata.namespace ?? ns },
        });
      // An upgrade keeps the URL secret: rendered against the cluster, the chart reuses the one it made.
      const urlSecret = (list: Obj[]) =>
        list.find((d) => d.kind === "Secret" && d.metadata.name === "bf-browserfleet-artifacts").stringData
          .ARTIFACT_URL_SECRET;
      const upgrade = docs(
        await render(ns, values, "--dry-run=server", "--kubeconfig", cluster.kubeconfigPath),
      );
      assert.equal(urlSecret(upgrade), urlSecret(objs));
      const profileKeys = (list: Obj[]) =>
        list.find((d) => d.kind === "Secret" && d.metadata.name === "bf-browserfleet-profiles").stringData
          .PROFILE_KEYS;
      assert.equal(profileKeys(upgrade), profileKeys(objs), "an upgrade keeps the profiles' key");
      assert.notEqual(
        urlSecret(docs(await render(ns, values))),
        urlSecret(objs),
        "a new one without the cluster",
      );
      for (const name of ["bf-browserfleet-api", "bf-browserfleet-jobs", "bf-browserfleet-operator"])
        await waitFor(
          `${name} ready on the KWOK node`,
          async () => {
            const d = (await cluster.api("GET", `/apis/apps/v1/namespaces/${ns}/deployments/${name}`)).body;
            return d.status?.readyReplicas === d.spec?.replicas;
          },
          90_000,
        );

      // The operator as the chart's ServiceAccount.
      const tok = await cluster.api(
        "POST",
        `/api/v1/namespaces/${ns}/serviceaccounts/bf-browserfleet-operator/token`,
        {
          apiVersion: "authentication.k8s.io/v1",
          kind: "TokenRequest",
          spec: { expirationSeconds: 3600 },
        },
      );
      assert.equal(tok.status, 201, JSON.stringify(tok.body));
      const kubeconfig = await cluster.kubeconfigFor(tok.body.status.token, "operator-sa");
      natsDir = await mkdtemp(join(tmpdir(), "bf-chart-nats-"));
      nats = await startLocalNats({ dataDir: natsDir });
      const nc = await connectBus({ servers: nats.url, name: "chart-test" });
      await ensureTaskQueue(nc, { maxPending: 100, ackWaitMs: 30_000 });
      await nc.close();
      op = await startOperatorProcess({
        KUBECONFIG_PATH: kubeconfig,
        NATS_URL: nats.url,
        POD_NAME: "chart-operator",
        POD_NAMESPACE: ns,
        WATCH_NAMESPACE: ns,
        LEASE_NAME: "bf-browserfleet-operator",
      });
      const pool = await waitFor(
        "the default pool reconciled by the SA-run operator",
        async () => {
          const p = (
            await cluster.api("GET", `/apis/browserfleet.dev/v1alpha1/namespaces/${ns}/browserpools/default`)
          ).body;
          return p.status?.conditions?.find((c: Obj) => c.type === "Ready")?.status === "True"
            ? p
            : undefined;
        },
        90_000,
      );
      assert.equal(pool.status.desiredReplicas, 1);
      const dep = (await cluster.api("GET", `/apis/apps/v1/namespaces/${ns}/deployments/default-browser`))
        .body;
      assert.equal(dep.spec.template.spec.containers[0].envFrom[0].secretRef.name, "bf-browserfleet-nats");
      assert.equal(
        await op.metric("browserfleet_operator_reconciles_total", { result: "error" }),
        0,
        op.output(),
      );

      // Least privilege: what the ServiceAccount may and may not do.
      const can = async (verb: string, resource: string, group = "", namespace = ns) => {
        const r = await cluster.api("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SubjectAccessReview",
          spec: {
            user: `system:serviceaccount:${ns}:bf-browserfleet-operator`,
            groups: ["system:serviceaccounts", `system:serviceaccounts:${ns}`, "system:authenticated"],
            resourceAttributes: { verb, resource, group, namespace },
          },
        });
        return r.body.status.allowed === true;
      };
      assert.equal(await can("patch", "deployments", "apps"), true);
      assert.equal(await can("delete", "deployments", "apps"), false);
      assert.equal(await can("get", "secrets"), false);
      assert.equal(await can("list", "browserpools", "browserfleet.dev", "other"), false);
      assert.equal(await can("create", "browserpools", "browserfleet.dev"), false);
    } finally {
      await op?.stop();
      await nats?.stop();
      if (natsDir) await rm(natsDir, { recursive: true, force: true });
    }
  });
});
