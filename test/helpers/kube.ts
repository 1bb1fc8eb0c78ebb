/**
 * A real Kubernetes control plane as local processes, for tests: etcd, kube-apiserver,
 * kube-controller-manager, kube-scheduler and KWOK (fake nodes whose pods become Running and Ready).
 * The binaries are built from their Go modules by scripts/k8s-tools.sh into .tools/bin (once; cached).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { Agent, request } from "node:https";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort } from "@browserfleet/bus";
import { KubeConfig } from "@kubernetes/client-node";
import { waitFor } from "./wait-for.ts";

/** Raw API JSON (objects as the API server sends them). */
// biome-ignore lint/suspicious/noExplicitAny: raw API JSON
export type Json = any;

export const ROOT = resolve(import.meta.dirname, "../..");
export const TOOLS_BIN = process.env.BROWSERFLEET_TOOLS_DIR
  ? join(process.env.BROWSERFLEET_TOOLS_DIR, "bin")
  : join(ROOT, ".tools", "bin");

export const CLUSTER_TOOLS = ["etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"];
export const CHART_TOOLS = ["helm", "kubeconform"];

export const tool = (name: string) => join(TOOLS_BIN, name);

/**
 * Make sure the tools exist; build the missing ones (scripts/k8s-tools.sh) if Go is there. Resolves with
 * a reason to skip when they cannot exist here (no Go), rejects when a build fails.
 */
export async function ensureKubeTools(
  which: "cluster" | "chart" | "all" = "all",
  timeoutMs = 80 * 60_000,
): Promise<{ skip?: string }> {
  const names =
    which === "cluster"
      ? CLUSTER_TOOLS
      : which === "chart"
        ? CHART_TOOLS
        : [...CLUSTER_TOOLS, ...CHART_TOOLS];
  if (names.every((n) => existsSync(tool(n)))) return {};
  const go = await run("go", ["version"], { timeoutMs: 30_000 }).catch(() => undefined);
  if (!go)
    return { skip: `Go is not installed, so ${names.join(", ")} cannot be built (scripts/k8s-tools.sh)` };
  const started = Date.now();
  process.stderr.write(`building Kubernetes tools (${which}) with scripts/k8s-tools.sh; cached in .tools/\n`);
  await run(join(ROOT, "scripts/k8s-tools.sh"), [which], { timeoutMs, inherit: true });
  process.stderr.write(`tools built in ${Math.round((Date.now() - started) / 1000)} s\n`);
  return {};
}

export function run(
  cmd: string,
  args: string[],
  opts: { timeoutMs?: number; input?: string; inherit?: boolean; cwd?: string } = {},
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((ok, fail) => {
    const child = execFile(
      cmd,
      args,
      {
        timeout: opts.timeoutMs ?? 120_000,
        maxBuffer: 64 * 1024 * 1024,
        cwd: opts.cwd ?? ROOT,
        killSignal: "SIGKILL",
      },
      (err, stdout, stderr) => {
        if (err)
          fail(
            Object.assign(new Error(`${cmd} ${args.join(" ")}: ${err.message}\n${stderr}\n${stdout}`), {
              stdout,
              stderr,
            }),
          );
        else ok({ stdout, stderr });
      },
    );
    if (opts.inherit) child.stderr?.pipe(process.stderr);
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

/** A process a test helper started, with the tail of its output for failure messages. */
export interface Proc {
  name: string;
  child: ChildProcess;
  output: () => string;
}

/** Every control-plane process still running; killed if this process exits without stop() (a crash). */
const live = new Set<ChildProcess>();
process.once("exit", () => {
  for (const c of live) c.kill("SIGKILL");
});

export function startProc(name: string, bin: string, args: string[], env: Record<string, string> = {}): Proc {
  const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  live.add(child);
  child.once("exit", () => live.delete(child));
  let out = "";
  const keep = (d: Buffer) => {
    out = (out + String(d)).slice(-20_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  child.on("error", (err) => keep(Buffer.from(`spawn error: ${err.message}`)));
  return { name, child, output: () => out };
}

export async function stopProc(p: Proc, timeoutMs = 5000): Promise<void> {
  const c = p.child;
  if (c.exitCode !== null || c.signalCode !== null) return;
  const gone = new Promise<void>((r) => c.once("exit", () => r()));
  c.kill("SIGTERM");
  const t = setTimeout(() => c.kill("SIGKILL"), timeoutMs);
  await gone;
  clearTimeout(t);
}

/** The tests' one poll-until helper, also offered here beside the cluster it mostly waits on. */
export { waitFor };

export interface KubeCluster {
  server: string;
  token: string;
  kubeconfigPath: string;
  kc: KubeConfig;
  dir: string;
  /** Raw request to the API server as cluster admin. */
  api(
    method: string,
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<{ status: number; body: Json }>;
  /** A kubeconfig file for another bearer token (e.g. a service account's). */
  kubeconfigFor(token: string, name: string): Promise<string>;
  logs(): string;
  /** Stop kube-apiserver, wait `downMs`, start it again on the same port and data. */
  restartApiServer(downMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const insecure = new Agent({ rejectUnauthorized: false, keepAlive: true });

/**
 * etcd on two free loopback ports, its client port returned. A port found free can be taken by another
 * process before etcd binds it (suites run in parallel): then it starts again on other ports.
 */
async function startEtcd(dir: string, procs: Proc[]): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const [client, peer] = [await freePort(), await freePort()];
    const etcd = startProc("etcd", tool("etcd"), [
      "--name=test",
      `--data-dir=${join(dir, `etcd-${attempt}`)}`,
      `--listen-client-urls=http://127.0.0.1:${client}`,
      `--advertise-client-urls=http://127.0.0.1:${client}`,
      `--listen-peer-urls=http://127.0.0.1:${peer}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
      `--initial-cluster=test=http://127.0.0.1:${peer}`,
      "--unsafe-no-fsync=true",
      "--log-level=warn",
    ]);
    procs.push(etcd);
    const state = await waitFor(
      "etcd",
      async () => {
        if (etcd.child.exitCode !== null) return "exited";
        const r = await fetch(`http://127.0.0.1:${client}/health`).catch(() => undefined);
        return r?.ok ? "up" : undefined;
      },
      30_000,
    );
    if (state === "up") return client;
    procs.splice(procs.indexOf(etcd), 1);
    const output = etcd.output();
    if (attempt >= 3 || !output.includes("address already in use")) throw new Error(`etcd exited: ${output}`);
  }
}

/**
 * Start etcd + kube-apiserver (+ controller-manager, scheduler, one KWOK node). Everything listens on
 * free loopback ports and keeps its data in a temporary folder removed by stop().
 */
export async function startKubeCluster(
  opts: {
    nodes?: number;
    controllers?: boolean;
    /** The API server's address (default loopback); pods on a real node need one they can route to. */
    address?: string;
  } = {},
): Promise<KubeCluster> {
  const address = opts.address ?? "127.0.0.1";
  const dir = await mkdtemp(join(tmpdir(), "bf-kube-"));
  const procs: Proc[] = [];
  const stop = async () => {
    for (const p of [...procs].reverse()) await stopProc(p);
    insecure.destroy();
    await rm(dir, { recursive: true, force: true }).catch(() => {});
  };
  try {
    const apiPort = await freePort();
    const token = randomBytes(24).toString("hex");
    await mkdir(join(dir, "pki"), { recursive: true });
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    await writeFile(join(dir, "sa.key"), privateKey.export({ type: "pkcs1", format: "pem" }));
    await writeFile(join(dir, "sa.pub"), publicKey.export({ type: "spki", format: "pem" }));
    await writeFile(join(dir, "tokens.csv"), `${token},admin,admin-uid,system:masters\n`);

    const etcdClient = await startEtcd(dir, procs);
    const server = `https://${address}:${apiPort}`;
    const apiserverArgs = [
      `--etcd-servers=http://127.0.0.1:${etcdClient}`,
      `--bind-address=${address}`,
      `--advertise-address=${address}`,
      `--secure-port=${apiPort}`,
      `--cert-dir=${join(dir, "pki")}`,
      `--token-auth-file=${join(dir, "tokens.csv")}`,
      "--authorization-mode=RBAC",
      "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
      `--service-account-key-file=${join(dir, "sa.pub")}`,
      `--service-account-signing-key-file=${join(dir, "sa.key")}`,
      "--service-cluster-ip-range=10.96.0.0/16",
      "--enable-priority-and-fairness=false",
      "--allow-privileged=true",
      "--profiling=false",
      "--v=1",
    ];
    let apiserver = startProc("kube-apiserver", tool("kube-apiserver"), apiserverArgs);
    procs.push(apiserver);
    const apiReady = () =>
      waitFor(
        "kube-apiserver /readyz",
        async () => {
          if (apiserver.child.exitCode !== null)
            throw new Error(`kube-apiserver exited: ${apiserver.output()}`);
          const r = await cluster.api("GET", "/readyz");
          return r.status === 200;
        },
        120_000,
        500,
      );
    const cluster: KubeCluster = {
      server,
      token,
      dir,
      kubeconfigPath: join(dir, "kubeconfig"),
      kc: new KubeConfig(),
      api: (method, path, body, contentType) => apiRequest(server, token, method, path, body, contentType),
      kubeconfigFor: async (tok, name) => {
        const p = join(dir, `kubeconfig-${name}`);
        await writeFile(p, kubeconfigText(server, tok, name));
        return p;
      },
      logs: () => procs.map((p) => `--- ${p.name}\n${p.output().slice(-3000)}`).join("\n"),
      restartApiServer: async (downMs = 0) => {
        await stopProc(apiserver);
        // The outage's length is what the caller asks for (real time, not a condition).
        await new Promise((r) => setTimeout(r, downMs));
        const next = startProc("kube-apiserver", tool("kube-apiserver"), apiserverArgs);
        procs[procs.indexOf(apiserver)] = next;
        apiserver = next;
        await apiReady();
      },
      stop,
    };
    await apiReady();
    await writeFile(cluster.kubeconfigPath, kubeconfigText(server, token, "admin"));
    cluster.kc.loadFromFile(cluster.kubeconfigPath);

    if (opts.controllers !== false) {
      const kcfg = cluster.kubeconfigPath;
      procs.push(
        startProc("kube-controller-manager", tool("kube-controller-manager"), [
          `--kubeconfig=${kcfg}`,
          `--authentication-kubeconfig=${kcfg}`,
          `--authorization-kubeconfig=${kcfg}`,
          "--leader-elect=false",
          `--service-account-private-key-file=${join(dir, "sa.key")}`,
          // The API server's self-signed CA, published to pods as kube-root-ca.crt (in-cluster clients).
          `--root-ca-file=${join(dir, "pki", "apiserver.crt")}`,
          "--use-service-account-credentials=false",
          "--bind-address=127.0.0.1",
          `--secure-port=${await freePort()}`,
          `--cert-dir=${join(dir, "pki-kcm")}`,
          "--concurrent-deployment-syncs=5",
          "--concurrent-replicaset-syncs=5",
          "--concurrent-gc-syncs=5",
          "--v=1",
        ]),
      );
      procs.push(
        startProc("kube-scheduler", tool("kube-scheduler"), [
          `--kubeconfig=${kcfg}`,
          `--authentication-kubeconfig=${kcfg}`,
          `--authorization-kubeconfig=${kcfg}`,
          "--leader-elect=false",
          "--bind-address=127.0.0.1",
          `--secure-port=${await freePort()}`,
          `--cert-dir=${join(dir, "pki-sched")}`,
          "--v=1",
        ]),
      );
      procs.push(
        startProc("kwok", tool("kwok"), [
          `--kubeconfig=${kcfg}`,
          "--manage-all-nodes=false",
          "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
          "--cidr=10.244.0.1/16",
          "--node-ip=10.0.0.1",
          `--server-address=127.0.0.1:${await freePort()}`,
        ]),
      );
      for (let i = 0; i < (opts.nodes ?? 1); i++) {
        const r = await cluster.api("POST", "/api/v1/nodes", fakeNode(`kwok-node-${i}`));
        if (r.status >= 300) throw new Error(`creating a fake node: ${JSON.stringify(r.body)}`);
      }
      for (const p of procs.slice(2))
        if (p.child.exitCode !== null) throw new Error(`${p.name} exited: ${p.output()}`);
      await waitFor(
        "a Ready KWOK node and the default service account",
        async () => {
          for (const p of procs.slice(2))
            if (p.child.exitCode !== null) throw new Error(`${p.name} exited: ${p.output()}`);
          const nodes = await cluster.api("GET", "/api/v1/nodes");
          const ready = (nodes.body.items ?? []).some((n: Json) =>
            n.status?.conditions?.some((c: Json) => c.type === "Ready" && c.status === "True"),
          );
          const sa = await cluster.api("GET", "/api/v1/namespaces/default/serviceaccounts/default");
          return (ready || opts.nodes === 0) && sa.status === 200;
        },
        90_000,
        500,
      );
    }
    return cluster;
  } catch (err) {
    const logs = procs.map((p) => `--- ${p.name}\n${p.output().slice(-2500)}`).join("\n");
    await stop();
    throw new Error(`${(err as Error).message}\n${logs}`);
  }
}

function fakeNode(name: string) {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      annotations: { "node.alpha.kubernetes.io/ttl": "0", "kwok.x-k8s.io/node": "fake" },
      labels: {
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "node-role.kubernetes.io/agent": "",
        type: "kwok",
      },
    },
    status: {
      allocatable: { cpu: "64", memory: "256Gi", pods: "250" },
      capacity: { cpu: "64", memory: "256Gi", pods: "250" },
    },
  };
}

function kubeconfigText(server: string, token: string, user: string): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "test", cluster: { server, "insecure-skip-tls-verify": true } }],
    users: [{ name: user, user: { token } }],
    contexts: [{ name: "test", context: { cluster: "test", user, namespace: "default" } }],
    "current-context": "test",
  });
}

function apiRequest(
  server: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  contentType = "application/json",
): Promise<{ status: number; body: Json }> {
  return new Promise((ok, fail) => {
    const data = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
    const req = request(
      `${server}${path}`,
      {
        method,
        agent: insecure,
        timeout: 30_000,
        headers: {
          authorization: `Bearer ${token}`,
          accept: "application/json",
          ...(data ? { "content-type": contentType, "content-length": Buffer.byteLength(data) } : {}),
        },
      },
      (res) => {
        let text = "";
        res.on("data", (d) => {
          text += d;
        });
        res.on("end", () => {
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // plain text (e.g. /readyz)
          }
          ok({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on("error", fail);
    if (data) req.write(data);
    req.end();
  });
}

/** Server-side apply one object (as cluster admin). */
export async function applyObject(cluster: KubeCluster, obj: Json, fieldManager = "test"): Promise<Json> {
  const path = await resourcePath(cluster, obj);
  const r = await cluster.api(
    "PATCH",
    `${path}/${obj.metadata.name}?fieldManager=${fieldManager}&force=true`,
    obj,
    "application/apply-patch+yaml",
  );
  if (r.status >= 300)
    throw Object.assign(
      new Error(`apply ${obj.kind}/${obj.metadata.name}: ${r.body?.message ?? JSON.stringify(r.body)}`),
      { status: r.status, body: r.body },
    );
  return r.body;
}

const discovery = new Map<string, Json>();
/** /api/v1/namespaces/ns/pods style collection path of an object, from discovery. */
export async function resourcePath(cluster: KubeCluster, obj: Json): Promise<string> {
  const gv: string = obj.apiVersion;
  const base = gv.includes("/") ? `/apis/${gv}` : `/api/${gv}`;
  let res = discovery.get(`${cluster.server}${base}`);
  if (!res) {
    const r = await cluster.api("GET", base);
    if (r.status !== 200) throw new Error(`discovery of ${gv}: ${r.status}`);
    res = r.body;
    discovery.set(`${cluster.server}${base}`, res);
  }
  const found = (res.resources as Json[]).find((x) => x.kind === obj.kind && !x.name.includes("/"));
  if (!found) {
    discovery.delete(`${cluster.server}${base}`);
    throw new Error(`no resource for ${gv} ${obj.kind}`);
  }
  return found.namespaced
    ? `${base}/namespaces/${obj.metadata.namespace ?? "default"}/${found.name}`
    : `${base}/${found.name}`;
}
