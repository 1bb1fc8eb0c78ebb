/**
 * The stack in real containers: the four images `npm run images` builds (built here first; seconds when
 * nothing changed) run through testcontainers over podman's API, with runc, as the chart runs them (their
 * own entry point, user 10001, read-only root with a writable /tmp, no capabilities), on the host network
 * beside a local nats-server,
 * PostgreSQL and the fixture site. Everything is asked of the api container: a scrape in every format, a
 * session with an act, a crawl; then each program's /metrics. The operator container leads and sizes a
 * BrowserPool on a real control plane when the Kubernetes test tools are built.
 *
 * Skips when podman is missing (scripts/setup.mjs installs it on Debian for `npm test`).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readlinkSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createAccount, issueKey } from "@browserfleet/billing";
import { freePort, type LocalNats, startLocalNats } from "@browserfleet/bus";
import { descendantsOf, listProcesses } from "../../apps/browser/src/process-memory.ts";
import { buildImages, imageName, type Program } from "../../scripts/images.ts";
import { type FixtureSite, startFixtureSite } from "../fixture-site/server.ts";
import { type FakeLlm, startFakeLlm } from "../helpers/fake-llm.ts";
import {
  CLUSTER_TOOLS,
  type Json,
  type KubeCluster,
  ROOT,
  startKubeCluster,
  tool,
  waitFor,
} from "../helpers/kube.ts";
import { sample } from "../helpers/metrics-sample.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";
import { type Container, type RunOptions, runContainer, waitHealthy } from "./run-container.ts";
import { type ContainerRuntime, startContainerRuntime } from "./runtime.ts";

const podmanThere = spawnSync("podman", ["--version"], { stdio: "ignore" }).status === 0;
const kubeThere = CLUSTER_TOOLS.every((t) => existsSync(tool(t)));

describe("the stack in containers", {
  skip: !podmanThere && "podman is not installed",
  timeout: 1_800_000,
}, () => {
  let dir: string;
  let site: FixtureSite;
  let nats: LocalNats;
  let pg: TestPostgres;
  let llm: FakeLlm;
  let cluster: KubeCluster | undefined;
  let runtime: ContainerRuntime;
  let key: string;
  const containers: Container[] = [];
  const port: Record<Program, number> = { api: 0, browser: 0, jobs: 0, operator: 0 };
  const api = (path: string) => `http://127.0.0.1:${port.api}${path}`;
  const metricsUrl = (p: Program) => `http://127.0.0.1:${port[p]}/metrics`;
  const allowPrivate = "127.0.0.1/32";

  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the route answered
  async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(api(path), {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    try {
      return { status: res.status, body: JSON.parse(text) };
    } catch {
      return { status: res.status, body: text };
    }
  }

  before(async () => {
    // The images, as `npm run images` builds them.
    buildImages(undefined, { quiet: true });
    runtime = await startContainerRuntime();
    dir = await mkdtemp(join(tmpdir(), "bf-containers-"));
    site = await startFixtureSite();
    llm = await startFakeLlm();
    [nats, pg] = await Promise.all([startLocalNats({ dataDir: join(dir, "nats") }), startTestPostgres()]);
    for (const p of Object.keys(port) as Program[]) port[p] = await freePort();
    const { accountId } = await createAccount(pg.database.db, { balanceMicros: 100_000_000 });
    key = (await issueKey(pg.database.db, accountId, "containers")).key;

    const common = { NATS_URL: nats.url, FLEET_ALLOW_PRIVATE: allowPrivate };
    const start = async (p: Program, env: Record<string, string>, health: string, more: RunOptions = {}) => {
      const c = await runContainer(`bf-test-${p}-${process.pid}`, imageName(p), { env, ...more });
      containers.push(c);
      await waitHealthy(c, `http://127.0.0.1:${port[p]}${health}`);
    };
    // Like the operator's browser pods: 512 MB /dev/shm, slots and metrics port from the environment, and
    // Chromium sandboxed under the chart's seccomp profile (the worker refuses to start otherwise).
    await start(
      "browser",
      {
        ...common,
        BROWSER_SLOTS: "2",
        BROWSER_METRICS_PORT: String(port.browser),
        WORKER_ID: "browser-0",
        BROWSER_SANDBOX: "on",
      },
      "/healthz",
      {
        shmBytes: 512 * 1024 * 1024,
        seccompProfile: join(ROOT, "charts/browserfleet/files/seccomp-chromium.json"),
      },
    );
    await start(
      "api",
      {
        ...common,
        DATABASE_URL: pg.url,
        PORT: String(port.api),
        HOST: "127.0.0.1",
        LLM_BASE_URL: llm.url,
        LLM_API_KEY: "test",
      },
      "/readyz",
    );
    await start(
      "jobs",
      { ...common, DATABASE_URL: pg.url, JOBS_METRICS_PORT: String(port.jobs) },
      "/metrics",
    );
    const operatorEnv: Record<string, string> = {
      NATS_URL: nats.url,
      METRICS_PORT: String(port.operator),
      METRICS_HOST: "127.0.0.1",
      POD_NAMESPACE: "default",
      RECONCILE_PERIOD_MS: "1000",
    };
    const operatorMore: RunOptions = {};
    if (kubeThere) {
      cluster = await startKubeCluster({ nodes: 0, controllers: false });
      await applyCrd(cluster);
      operatorEnv.KUBECONFIG_PATH = "/etc/browserfleet/kubeconfig";
      operatorMore.readOnlyMounts = { [cluster.kubeconfigPath]: "/etc/browserfleet/kubeconfig" };
    }
    await start("operator", operatorEnv, "/healthz", operatorMore);
  });

  after(async () => {
    for (const c of containers) {
      if (process.env.BF_CONTAINER_LOGS) console.log(`--- ${c.name}\n${await c.logs()}`);
      await c.remove();
    }
    await runtime?.stop();
    await cluster?.stop();
    await llm?.close();
    await nats?.stop();
    await pg?.stop();
    await site?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("runs each program on Node 24 as user 10001 with a read-only root", async () => {
    for (const c of containers) {
      const how = await c.inspect();
      assert.equal(`${how.Config.User} ${how.HostConfig.ReadonlyRootfs}`, "10001:10001 true", c.name);
      const inside = await c.exec(["sh", "-c", "node --version; id -u; touch /app/x 2>&1"]);
      const [node, uid, touch] = inside.output.trim().split("\n");
      assert.match(node ?? "", /^v24\./, c.name);
      assert.equal(uid, "10001", c.name);
      assert.match(touch ?? "", /Read-only file system/, c.name);
    }
  });

  it("scrapes a fixture page in every format through the api container", async () => {
    const formats = [
      "markdown",
      "html",
      "links",
      "screenshot",
      "pdf",
      "elements",
      "json",
      "accessibility",
      "controls",
    ];
    const r = await call("POST", "/web/v1/scrape", {
      url: `${site.url}/article`,
      formats,
      selectors: ["h1"],
      json: {
        prompt: "the title",
        schema: { type: "object", properties: { title: { type: "string" } }, required: ["title"] },
      },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body).slice(0, 2000));
    assert.deepEqual(r.body.errors, {});
    assert.deepEqual(Object.keys(r.body.data).sort(), [...formats].sort());
    assert.match(r.body.data.markdown, /^# The Fixture Article$/m);
    assert.match(r.body.data.html, /The Fixture Article/);
    assert.ok(r.body.data.links.some((l: { url: string }) => l.url === `${site.url}/page2`));
    assert.equal(Buffer.from(r.body.data.screenshot, "base64").subarray(1, 4).toString(), "PNG");
    assert.equal(Buffer.from(r.body.data.pdf, "base64").subarray(0, 4).toString(), "%PDF");
    assert.equal(r.body.data.elements[0].matches[0].text, "The Fixture Article");
    assert.deepEqual(r.body.data.json, { title: "The Fixture Article" });
    assert.match(r.body.data.accessibility, /heading "The Fixture Article"/);
    assert.ok(Array.isArray(r.body.data.controls));
    assert.equal(r.body.metadata.statusCode, 200);
  });

  it("runs Chromium sandboxed in the browser container: renderers under seccomp, in namespaces and a root of their own", async () => {
    const browser = containers.find((c) => c.name.startsWith("bf-test-browser-"))!;
    assert.match(await browser.logs(), /Chromium sandbox: on \(namespace sandbox and seccomp\)/);
    assert.equal(sample(await (await fetch(metricsUrl("browser"))).text(), "fleet_chromium_sandbox"), 1);
    // A session keeps its page's renderer alive while it is looked at.
    const opened = await call("POST", "/web/v1/session", { url: `${site.url}/article` });
    assert.equal(opened.status, 200, JSON.stringify(opened.body).slice(0, 2000));
    // The container's processes, seen from the host (as root, so their namespaces can be read).
    const init = (await browser.inspect()).State.Pid;
    const all = listProcesses();
    const inside = new Set(descendantsOf(all, [init]));
    const renderers = all.filter((p) => inside.has(p.pid) && p.cmdline.includes("--type=renderer"));
    assert.ok(renderers.length >= 1, "the session's renderer runs");
    const ns = (pid: number, kind: string) => readlinkSync(`/proc/${pid}/ns/${kind}`);
    for (const r of renderers) {
      const status = readFileSync(`/proc/${r.pid}/status`, "utf8");
      assert.equal(/^Seccomp:\s+(\d)/m.exec(status)?.[1], "2", `renderer ${r.pid} under a seccomp filter`);
      for (const kind of ["user", "pid", "net"])
        assert.notEqual(ns(r.pid, kind), ns(init, kind), `renderer ${r.pid}: a ${kind} namespace of its own`);
      assert.notEqual(readlinkSync(`/proc/${r.pid}/root`), readlinkSync(`/proc/${init}/root`));
    }
    assert.equal((await call("DELETE", `/web/v1/session/${opened.body.sessionId}`)).status, 200);
  });

  it("opens a session, acts in it and closes it through the api container", async () => {
    const opened = await call("POST", "/web/v1/session", { url: `${site.url}/form` });
    assert.equal(opened.status, 200, JSON.stringify(opened.body).slice(0, 2000));
    const ref = (role: string, name: string) =>
      opened.body.data.controls.find((c: Json) => c.role === role && c.name === name).ref;
    const done = await call("POST", "/web/v1/act", {
      sessionId: opened.body.sessionId,
      actions: [{ type: { ref: ref("textbox", "Username"), text: "ada" } }, { press: "Enter" }],
      formats: ["markdown"],
    });
    assert.equal(done.status, 200, JSON.stringify(done.body).slice(0, 2000));
    assert.equal(done.body.success, true);
    assert.match(done.body.data.markdown, /Welcome, ada/);
    assert.equal((await call("DELETE", `/web/v1/session/${opened.body.sessionId}`)).status, 200);
  });

  it("crawls the fixture site's crawl section through the api and jobs containers", async () => {
    const start = await call("POST", "/web/v1/crawl", { url: `${site.url}/crawl/`, maxDepth: 2 });
    assert.equal(start.status, 200, JSON.stringify(start.body));
    const done = await waitFor(
      "the crawl to end",
      async () => {
        const r = await call("GET", `${new URL(start.body.url, api("/")).pathname}?limit=200`);
        return ["queued", "running"].includes(r.body.status) ? undefined : r.body;
      },
      180_000,
      300,
    );
    assert.equal(done.status, "completed", JSON.stringify(done).slice(0, 2000));
    const urls = done.data.map((p: { url: string }) => p.url.replace(site.url, "")).sort();
    assert.deepEqual(urls, [
      "/crawl/",
      "/crawl/a",
      "/crawl/a1",
      "/crawl/a2",
      "/crawl/b",
      "/crawl/b-js",
      "/crawl/cal?month=0",
      "/crawl/cal?month=1",
    ]);
  });

  it("serves /metrics from every program, counting the work above", async () => {
    const text = async (p: Program) => {
      const r = await fetch(metricsUrl(p));
      assert.equal(r.status, 200, p);
      return r.text();
    };
    const apiMetrics = await text("api");
    assert.ok(
      sample(apiMetrics, "fleet_scrape_formats_total", { format: "pdf" }) >= 1,
      "api counted the scrape",
    );
    const browser = await text("browser");
    assert.ok(sample(browser, "fleet_browser_tasks_total") >= 3, "the worker ran the tasks");
    assert.equal(sample(browser, "fleet_browser_slots"), 2);
    const jobs = await text("jobs");
    assert.ok(sample(jobs, "fleet_job_pages_total") >= 8, "the jobs program ran the crawl's pages");
    const operator = await text("operator");
    assert.ok(!Number.isNaN(sample(operator, "browserfleet_operator_leader")));
  });

  it("the operator container leads on a real control plane and sizes a BrowserPool", {
    skip: !kubeThere && "the Kubernetes test tools are not built (scripts/k8s-tools.sh)",
  }, async () => {
    const c = cluster!;
    await waitFor(
      "the operator to lead",
      async () => {
        const t = await (await fetch(metricsUrl("operator"))).text();
        return sample(t, "browserfleet_operator_leader") === 1;
      },
      60_000,
    );
    const pool = {
      apiVersion: "browserfleet.dev/v1alpha1",
      kind: "BrowserPool",
      metadata: { name: "containers", namespace: "default" },
      spec: { image: imageName("browser"), minReplicas: 2, maxReplicas: 3, slotsPerPod: 2 },
    };
    const created = await c.api(
      "POST",
      "/apis/browserfleet.dev/v1alpha1/namespaces/default/browserpools",
      pool,
    );
    assert.ok(created.status < 300, JSON.stringify(created.body));
    const deployment = await waitFor(
      "the pool's Deployment",
      async () => {
        const r = await c.api("GET", "/apis/apps/v1/namespaces/default/deployments");
        return r.body.items?.find((d: Json) => d.metadata.ownerReferences?.[0]?.name === "containers");
      },
      60_000,
    );
    assert.equal(deployment.spec.replicas, 2);
    assert.equal(deployment.spec.template.spec.containers[0].image, imageName("browser"));
  });
});

async function applyCrd(cluster: KubeCluster): Promise<void> {
  const yaml = (await import("js-yaml")).default;
  const crd = yaml.load(readFileSync(join(ROOT, "crds/browserpools.browserfleet.dev.yaml"), "utf8")) as Json;
  const r = await cluster.api("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd);
  assert.ok(r.status < 300, JSON.stringify(r.body));
  await waitFor(
    "the BrowserPool CRD",
    async () => (await cluster.api("GET", "/apis/browserfleet.dev/v1alpha1/browserpools")).status === 200,
    30_000,
  );
}
