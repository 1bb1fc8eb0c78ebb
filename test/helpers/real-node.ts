/**
 * A real Kubernetes node for tests: containerd (its CRI plugin) + runc, a kubelet and kube-proxy (iptables
 * mode) joined to the control plane of ./kube.ts. Pods get addresses on a bridge made here (CNI bridge +
 * host-local), the node's own address is the bridge's gateway, so pods reach the API server, and
 * anything the test serves there, through it; the host reaches ClusterIPs through kube-proxy's rules.
 *
 * Needs root with CAP_NET_ADMIN, the Debian packages containerd, runc and containernetworking-plugins,
 * and the kubelet, kube-proxy, CoreDNS and kube-network-policies from scripts/k8s-tools.sh (`node`). What this sandbox needed, and why,
 * is in the comments where it is set.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { freePort } from "@browserfleet/bus";
import {
  type Json,
  type KubeCluster,
  type Proc,
  ROOT,
  run,
  startProc,
  stopProc,
  tool,
  waitFor,
} from "./kube.ts";

export const NODE_TOOLS = ["kubelet", "kube-proxy", "coredns", "kube-network-policies"];

/** A node's pod network: its bridge, its pods' subnet, and its own address (the bridge's, their gateway). */
export interface NodeNetwork {
  bridge: string;
  subnet: string;
  nodeIp: string;
}

/**
 * The nodes' networks, one /24 of 10.244.0.0/16 each. They share this host's network namespace, so the
 * routes between them are the host's own (each bridge a connected route) and one kube-proxy, run by the
 * first node, serves Services for both.
 */
export const NODE_NETWORKS: readonly NodeNetwork[] = [
  { bridge: "bf0", subnet: "10.244.0.0/24", nodeIp: "10.244.0.1" },
  { bridge: "bf1", subnet: "10.244.1.0/24", nodeIp: "10.244.1.1" },
];
export const CLUSTER_CIDR = "10.244.0.0/16";
/** The Services' range (the API server's --service-cluster-ip-range in ./kube.ts). */
export const SERVICE_CIDR = "10.96.0.0/16";
export const BRIDGE = "bf0";
export const POD_SUBNET = "10.244.0.0/24";
/** The first node's address: where the API server, CoreDNS and what the host serves for pods listen. */
export const NODE_IP = "10.244.0.1";
/** The image containerd runs as every pod's sandbox (built locally: no registry here). */
export const PAUSE_IMAGE = "localhost/browserfleet/pause:test";
const CNI_BIN = ["/usr/lib/cni", "/opt/cni/bin"].find((d) => existsSync(join(d, "bridge"))) ?? "/usr/lib/cni";

/**
 * Build the kubelet, kube-proxy, CoreDNS and kube-network-policies (patched) when missing
 * (scripts/k8s-tools.sh node; cached in .tools/bin).
 */
export async function ensureNodeTools(timeoutMs = 60 * 60_000): Promise<void> {
  if (NODE_TOOLS.every((n) => existsSync(tool(n)))) return;
  const started = Date.now();
  process.stderr.write(
    "building the kubelet, kube-proxy, CoreDNS and kube-network-policies with scripts/k8s-tools.sh node; cached in .tools/\n",
  );
  await run(join(ROOT, "scripts/k8s-tools.sh"), ["node"], { timeoutMs, inherit: true });
  process.stderr.write(`node tools built in ${Math.round((Date.now() - started) / 1000)} s\n`);
}

/** Why a real node cannot run here, or undefined when it can. */
export function realNodeMissing(): string | undefined {
  if (process.getuid?.() !== 0) return "a real node needs root (containerd, kubelet, bridge networking)";
  for (const bin of ["containerd", "ctr", "runc", "iptables", "ip", "podman"])
    if (!["/usr/bin", "/usr/sbin", "/bin", "/sbin"].some((d) => existsSync(join(d, bin))))
      return `${bin} is not installed (Debian: containerd runc containernetworking-plugins iptables podman)`;
  if (!existsSync(join(CNI_BIN, "bridge")))
    return "the CNI plugins are not installed (containernetworking-plugins)";
  return undefined;
}

/**
 * The bridge pods attach to, with the node's address; made before the API server binds to it. Resolves
 * with a function that removes it again (when this made it) and puts IPv4 forwarding back as it was.
 */
export async function ensureBridge(
  net: NodeNetwork = NODE_NETWORKS[0] as NodeNetwork,
): Promise<() => Promise<void>> {
  const { bridge, nodeIp } = net;
  const forwarding = (await readFile("/proc/sys/net/ipv4/ip_forward", "utf8")).trim();
  const has = await run("ip", ["link", "show", bridge]).then(
    () => true,
    () => false,
  );
  if (!has) await run("ip", ["link", "add", bridge, "type", "bridge"]);
  const addr = await run("ip", ["-4", "addr", "show", bridge]);
  if (!addr.stdout.includes(`${nodeIp}/`)) await run("ip", ["addr", "add", `${nodeIp}/24`, "dev", bridge]);
  await run("ip", ["link", "set", bridge, "up"]);
  await writeFile("/proc/sys/net/ipv4/ip_forward", "1");
  return async () => {
    if (!has) await run("ip", ["link", "delete", bridge]).catch(() => {});
    await writeFile("/proc/sys/net/ipv4/ip_forward", forwarding).catch(() => {});
  };
}

/**
 * Routes the Services' range to the first bridge, as a cluster's nodes route it to something of their own.
 * kube-proxy rewrites a ClusterIP to a pod's address; one it does not rewrite (a Service with no ready
 * endpoint, for a moment) then fails here. Without this route it left through the default route, and this
 * machine's egress proxy answered it (a 404 with `Server: keryx`), on a socket keep-alive then reused for
 * every later call. Resolves with a function that removes the route.
 */
export async function routeServices(
  net: NodeNetwork = NODE_NETWORKS[0] as NodeNetwork,
): Promise<() => Promise<void>> {
  await run("ip", ["route", "replace", SERVICE_CIDR, "dev", net.bridge, "src", net.nodeIp]);
  return async () => {
    await run("ip", ["route", "del", SERVICE_CIDR, "dev", net.bridge]).catch(() => {});
  };
}

/** containerd and the kubelet take longer than a control plane process to stop cleanly. */
const STOP_GRACE_MS = 10_000;

/**
 * The sandbox image (what `registry.k8s.io/pause` is elsewhere): any image whose command waits forever.
 * Made from the Debian base `npm run images` keeps.
 */
export async function buildPauseImage(
  dir: string,
  base = "localhost/browserfleet/debian:bookworm",
): Promise<void> {
  const ctx = join(dir, "pause");
  await mkdir(ctx, { recursive: true });
  await writeFile(join(ctx, "Containerfile"), `FROM ${base}\nCMD ["sleep", "infinity"]\n`);
  await run(
    "podman",
    ["--runtime", "runc", "--cgroup-manager", "cgroupfs", "build", "--network=none", "-t", PAUSE_IMAGE, ctx],
    {
      timeoutMs: 300_000,
    },
  );
}

export interface RealNode {
  name: string;
  /** The kubelet's seccomp folder (Localhost profiles are read from here). */
  seccompDir: string;
  /** ctr in containerd's Kubernetes namespace. */
  ctr(args: string[], timeoutMs?: number): Promise<string>;
  /** Copy an image from podman's store into containerd's (what a registry pull would do). */
  importImage(ref: string): Promise<void>;
  /** Import an image saved already (`podman save`), as importImage does. */
  importTar(tar: string): Promise<void>;
  logs(): string;
  stop(): Promise<void>;
}

export interface RealNodeOptions {
  /** Its pod network (default the first; its bridge made with ensureBridge first). */
  network?: NodeNetwork;
  /**
   * The first node runs the cluster's CoreDNS and kube-proxy; another shares this host's network
   * namespace with it, so it points its pods at that DNS and needs no kube-proxy of its own.
   */
  first?: boolean;
  /** Localhost seccomp profiles read from this folder (the first node's), as one DaemonSet writes them there. */
  seccompFrom?: string;
}

/**
 * Start containerd, the kubelet and (on the first node) CoreDNS and kube-proxy in `dir`, registered with
 * `cluster` as node `name`, and wait until the node is Ready. The cluster must listen on NODE_IP
 * (startKubeCluster({ address })).
 */
export async function startRealNode(
  cluster: KubeCluster,
  dir: string,
  name = "bf-node",
  opts: RealNodeOptions = {},
): Promise<RealNode> {
  const net = opts.network ?? (NODE_NETWORKS[0] as NodeNetwork);
  const first = opts.first ?? net.nodeIp === NODE_IP;
  // The node's NetworkPolicy enforcer keeps its rules in a table of its own: two nodes share this host.
  const netpolTable = `bf-netpol-${name}`;
  const procs: Proc[] = [];
  const cd = join(dir, "containerd");
  const sock = join(cd, "containerd.sock");
  const cniConf = join(dir, "cni");
  const ctr = async (args: string[], timeoutMs = 600_000) =>
    (await run("ctr", ["--address", sock, "-n", "k8s.io", ...args], { timeoutMs })).stdout;
  const netnsBefore = new Set(
    (await run("ip", ["netns", "list"])).stdout.split("\n").map((l) => l.split(" ")[0]),
  );
  const stop = async () => {
    const containerd = procs.find((p) => p.name === "containerd");
    const kubelet = procs.find((p) => p.name === "kubelet");
    // Let the kubelet take its pods down (containers, sandboxes, their CNI addresses and rules): cordon the
    // node so nothing lands on it again, delete what runs there, wait until containerd runs nothing.
    if (kubelet && kubelet.child.exitCode === null && containerd) {
      await cluster
        .api(
          "PATCH",
          `/api/v1/nodes/${name}`,
          { spec: { unschedulable: true } },
          "application/merge-patch+json",
        )
        .catch(() => {});
      const pods = await cluster
        .api("GET", `/api/v1/pods?fieldSelector=spec.nodeName%3D${name}`)
        .catch(() => undefined);
      for (const pod of (pods?.body?.items ?? []) as Json[])
        await cluster
          .api(
            "DELETE",
            `/api/v1/namespaces/${pod.metadata.namespace}/pods/${pod.metadata.name}?gracePeriodSeconds=0`,
          )
          .catch(() => {});
      await waitFor(
        "the node's pods taken down",
        async () => (await ctr(["tasks", "ls", "-q"], 10_000)).trim() === "",
        90_000,
        1000,
      ).catch(() => {});
    }
    for (const p of [...procs].reverse()) if (p !== containerd) await stopProc(p, STOP_GRACE_MS);
    // Whatever is left runs under containerd's shims, which outlive containerd: end it first.
    if (containerd && containerd.child.exitCode === null) {
      const tasks = (await ctr(["tasks", "ls", "-q"], 30_000).catch(() => "")).split("\n").filter(Boolean);
      for (const id of tasks) await ctr(["tasks", "kill", "-a", "-s", "SIGKILL", id], 30_000).catch(() => "");
      for (const id of tasks) await ctr(["tasks", "delete", "-f", id], 30_000).catch(() => "");
      await stopProc(containerd, STOP_GRACE_MS);
    }
    if (first && existsSync(tool("kube-proxy"))) await run(tool("kube-proxy"), ["--cleanup"]).catch(() => {});
    await run("nft", ["delete", "table", "inet", netpolTable]).catch(() => {});
    // The kubelet's own iptables chains (it makes them again when it starts).
    for (const ipt of ["iptables", "ip6tables"]) {
      for (const chain of ["INPUT", "OUTPUT"])
        await run(ipt, ["-D", chain, "-j", "KUBE-FIREWALL"]).catch(() => {});
      const chains: Array<[string, string]> = [
        ["filter", "KUBE-FIREWALL"],
        ["filter", "KUBE-KUBELET-CANARY"],
        ["nat", "KUBE-KUBELET-CANARY"],
        ["mangle", "KUBE-KUBELET-CANARY"],
        ["mangle", "KUBE-IPTABLES-HINT"],
      ];
      for (const [table, chain] of chains) {
        await run(ipt, ["-t", table, "-F", chain]).catch(() => {});
        await run(ipt, ["-t", table, "-X", chain]).catch(() => {});
      }
    }
    // What the bridge plugin left (its masquerade rules, network namespaces) cannot be told apart by node
    // on this shared host: the first node, stopped last, removes what every node left.
    if (first) await removeCniLeftovers();
    const mounts = await run("sh", ["-c", `grep -F ' ${dir}/' /proc/mounts | cut -d' ' -f2 | sort -r`]).catch(
      () => ({ stdout: "" }),
    );
    for (const m of mounts.stdout.split("\n").filter(Boolean)) await run("umount", ["-l", m]).catch(() => {});
  };
  const removeCniLeftovers = async () => {
    // Masquerade rules the bridge plugin made for a pod whose sandbox was not taken down through it.
    const nat = (await run("iptables-save", ["-t", "nat"]).catch(() => ({ stdout: "" }))).stdout.split("\n");
    for (const line of nat.filter((l) => l.startsWith("-A POSTROUTING") && l.includes('name: \\"bf\\"'))) {
      await run("sh", ["-c", `iptables -t nat ${line.replace(/^-A/, "-D")}`]).catch(() => {});
      const chain = / -j (CNI-[0-9a-f]+)$/.exec(line)?.[1];
      if (chain) {
        await run("iptables", ["-t", "nat", "-F", chain]).catch(() => {});
        await run("iptables", ["-t", "nat", "-X", chain]).catch(() => {});
      }
    }
    const netns = (await run("ip", ["netns", "list"]).catch(() => ({ stdout: "" }))).stdout;
    for (const ns of netns.split("\n").map((l) => l.split(" ")[0]))
      if (ns?.startsWith("cni-") && !netnsBefore.has(ns))
        await run("ip", ["netns", "delete", ns]).catch(() => {});
  };
  try {
    await mkdir(cniConf, { recursive: true });
    await mkdir(cd, { recursive: true });
    await writeFile(
      join(cniConf, "10-bf.conflist"),
      JSON.stringify({
        cniVersion: "0.4.0",
        name: "bf",
        plugins: [
          {
            type: "bridge",
            bridge: net.bridge,
            isGateway: true,
            ipMasq: true,
            hairpinMode: true,
            ipam: {
              type: "host-local",
              ranges: [[{ subnet: net.subnet, gateway: net.nodeIp }]],
              routes: [{ dst: "0.0.0.0/0" }],
              dataDir: join(dir, "cni-ipam"),
            },
          },
          { type: "portmap", capabilities: { portMappings: true } },
        ],
      }),
    );
    await writeFile(
      join(cd, "config.toml"),
      [
        "version = 2",
        `root = "${join(cd, "root")}"`,
        `state = "${join(cd, "state")}"`,
        `[grpc]`,
        `  address = "${sock}"`,
        `[plugins."io.containerd.grpc.v1.cri"]`,
        `  sandbox_image = "${PAUSE_IMAGE}"`,
        // runc asks for oom_score_adj -998 for the sandbox, which needs CAP_SYS_RESOURCE: not here.
        "  restrict_oom_score_adj = true",
        `  [plugins."io.containerd.grpc.v1.cri".containerd]`,
        `    snapshotter = "overlayfs"`,
        `    default_runtime_name = "runc"`,
        `    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]`,
        `      runtime_type = "io.containerd.runc.v2"`,
        `      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]`,
        "        SystemdCgroup = false",
        `  [plugins."io.containerd.grpc.v1.cri".cni]`,
        `    bin_dir = "${CNI_BIN}"`,
        `    conf_dir = "${cniConf}"`,
        "",
      ].join("\n"),
    );
    const containerd = startProc("containerd", "containerd", ["--config", join(cd, "config.toml")]);
    procs.push(containerd);
    await waitFor(
      "containerd",
      async () => {
        if (containerd.child.exitCode !== null) throw new Error(`containerd exited: ${containerd.output()}`);
        return existsSync(sock) && (await ctr(["version"], 10_000).then(() => true));
      },
      60_000,
      500,
    );

    // Every node component talks to the API server as cluster admin (a test; a real node bootstraps its
    // own client certificate).
    const kubeconfig = await cluster.kubeconfigFor(cluster.token, "node");
    const kubeletDir = join(dir, "kubelet");
    await mkdir(kubeletDir, { recursive: true });
    // The cluster's DNS: CoreDNS (built from its Go module) on the node's address, answering for Services
    // and pods from the API server; the kubelet points every pod's resolv.conf at it. Names outside the
    // cluster get NXDOMAIN: this network has no upstream.
    await writeFile(
      join(dir, "Corefile"),
      [
        "cluster.local:53 in-addr.arpa:53 ip6.arpa:53 {",
        `  bind ${NODE_IP}`,
        "  errors",
        "  kubernetes cluster.local in-addr.arpa ip6.arpa {",
        `    kubeconfig ${kubeconfig}`,
        "    pods insecure",
        "    fallthrough in-addr.arpa ip6.arpa",
        "    ttl 5",
        "  }",
        "}",
        ".:53 {",
        `  bind ${NODE_IP}`,
        "  template ANY ANY {",
        "    rcode NXDOMAIN",
        "  }",
        "}",
        "",
      ].join("\n"),
    );
    if (first) procs.push(startProc("coredns", tool("coredns"), ["-conf", join(dir, "Corefile")]));
    if (opts.seccompFrom) await symlink(opts.seccompFrom, join(kubeletDir, "seccomp"));
    await writeFile(
      join(dir, "kubelet.yaml"),
      JSON.stringify({
        apiVersion: "kubelet.config.k8s.io/v1beta1",
        kind: "KubeletConfiguration",
        // cgroupfs: the machine's hybrid cgroup layout has no systemd to delegate to.
        cgroupDriver: "cgroupfs",
        failCgroupV1: false,
        failSwapOn: false,
        // No QoS cgroup tree or node-allocatable enforcement: the sandbox's cgroups refuse it.
        cgroupsPerQOS: false,
        enforceNodeAllocatable: [],
        localStorageCapacityIsolation: false,
        containerRuntimeEndpoint: `unix://${sock}`,
        // Nothing but the test talks to the kubelet's API.
        authentication: { anonymous: { enabled: true }, webhook: { enabled: false } },
        authorization: { mode: "AlwaysAllow" },
        address: net.nodeIp,
        port: await freePort(),
        readOnlyPort: 0,
        healthzPort: 0,
        // Disk and memory pressure of a shared test machine must not evict the test's pods.
        evictionHard: { "memory.available": "1Mi", "nodefs.available": "1%", "imagefs.available": "1%" },
        imageGCHighThresholdPercent: 100,
        imageGCLowThresholdPercent: 99,
        serializeImagePulls: false,
        resolvConf: "/etc/resolv.conf",
        clusterDNS: [NODE_IP],
        clusterDomain: "cluster.local",
        nodeStatusUpdateFrequency: "2s",
        syncFrequency: "5s",
        fileCheckFrequency: "5s",
        maxPods: 30,
      }),
    );
    const kubelet = startProc("kubelet", tool("kubelet"), [
      `--config=${join(dir, "kubelet.yaml")}`,
      `--kubeconfig=${kubeconfig}`,
      `--root-dir=${kubeletDir}`,
      `--cert-dir=${join(kubeletDir, "pki")}`,
      `--hostname-override=${name}`,
      `--node-ip=${net.nodeIp}`,
      "--v=1",
    ]);
    procs.push(kubelet);
    if (first) {
      await writeFile(
        join(dir, "kube-proxy.yaml"),
        JSON.stringify({
          apiVersion: "kubeproxy.config.k8s.io/v1alpha1",
          kind: "KubeProxyConfiguration",
          mode: "iptables",
          clientConnection: { kubeconfig },
          hostnameOverride: name,
          clusterCIDR: CLUSTER_CIDR,
          bindAddress: NODE_IP,
          healthzBindAddress: `127.0.0.1:${await freePort()}`,
          metricsBindAddress: `127.0.0.1:${await freePort()}`,
          // kube-proxy would raise nf_conntrack_max; the sandbox's /proc/sys is not its to change.
          conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: "0s", tcpCloseWaitTimeout: "0s" },
          iptables: { syncPeriod: "2s", minSyncPeriod: "0s" },
        }),
      );
      const proxy = startProc("kube-proxy", tool("kube-proxy"), [
        `--config=${join(dir, "kube-proxy.yaml")}`,
        "--v=1",
      ]);
      procs.push(proxy);
    }
    // NetworkPolicy enforced by kube-network-policies (built with scripts/k8s-tools.sh netpol; patched, see
    // scripts/patches/): the first packet of each connection of a pod that a policy selects goes to this
    // process through NFQUEUE and is let through or dropped by the pod's policies. One per node, each with
    // its own table and queue; --police-host-input also checks a pod's connections to this host's own
    // addresses (the API server, the metadata stand-in), which elsewhere would be other machines.
    procs.push(
      startProc("kube-network-policies", tool("kube-network-policies"), [
        `--kubeconfig=${kubeconfig}`,
        `--hostname-override=${name}`,
        `--nfqueue-id=${100 + NODE_NETWORKS.indexOf(net)}`,
        `--nftables-table=${netpolTable}`,
        "--police-host-input",
        "--disable-nri",
        // A fix for kernels before 6.12, which this one is not.
        "--netfilter-bug-1766-fix=false",
        `--metrics-bind-address=127.0.0.1:${await freePort()}`,
        "--v=1",
      ]),
    );

    await waitFor(
      `node ${name} Ready`,
      async () => {
        for (const p of procs)
          if (p.child.exitCode !== null) throw new Error(`${p.name} exited: ${p.output().slice(-4000)}`);
        const n = await cluster.api("GET", `/api/v1/nodes/${name}`);
        return n.body?.status?.conditions?.some((c: Json) => c.type === "Ready" && c.status === "True");
      },
      180_000,
      1000,
    );
    return {
      name,
      seccompDir: join(kubeletDir, "seccomp"),
      ctr,
      importImage: async (ref) => {
        const tar = join(dir, "image.tar");
        await run("podman", ["save", "-o", tar, ref], { timeoutMs: 900_000 });
        await ctr(["images", "import", tar], 900_000);
        await rm(tar, { force: true });
      },
      importTar: async (tar) => {
        await ctr(["images", "import", tar], 900_000);
      },
      logs: () => procs.map((p) => `--- ${p.name}\n${p.output().slice(-6000)}`).join("\n"),
      stop,
    };
  } catch (err) {
    const logs = procs.map((p) => `--- ${p.name}\n${p.output().slice(-4000)}`).join("\n");
    await stop();
    throw new Error(`${(err as Error).message}\n${logs}`);
  }
}
