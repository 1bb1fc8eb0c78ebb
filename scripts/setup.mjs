#!/usr/bin/env node
/**
 * The set-up step of `npm start` and `npm test`, so that both work on a fresh clone. Plain Node with only
 * node: built-ins, since it runs before `npm ci` has installed tsx or anything else.
 *
 *   node scripts/setup.mjs start   node_modules (npm ci when it is missing or differs from package-lock.json),
 *                                  then Chromium, nats-server and the Liberation fonts
 *   node scripts/setup.mjs test    the same, plus promtool (Debian: prometheus) for the alert-rule tests,
 *                                  podman, runc and mmdebstrap for the images and the container test,
 *                                  containerd and the CNI plugins for the real-node test, and
 *                                  the Kubernetes test tools and SeaweedFS's weed, the S3 store of the
 *                                  artifacts tests (scripts/k8s-tools.sh, into .tools/bin)
 *
 * Missing system packages are installed with apt-get on Debian or Ubuntu when this runs as root or when
 * `sudo -n` works without a password, always saying so first; otherwise it stops with one line naming the
 * command to run. BROWSERFLEET_SYSTEM_INSTALLER replaces that installer: a shell command run as
 * `<command> <package>...` with Debian's package names (say "sudo apt-get install -y"; the tests point it at
 * a recorder). With everything in place it runs a few checks and prints nothing.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  accessSync,
  constants,
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { delimiter, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const mode = process.argv[2];
if (mode !== "start" && mode !== "test") {
  console.error("usage: node scripts/setup.mjs start|test");
  process.exit(2);
}
const again = `npm ${mode}`;

function say(line) {
  console.log(`setup: ${line}`);
}

function fail(line) {
  console.error(`setup: ${line}`);
  process.exit(1);
}

/** Run a command with the terminal attached; its exit code (or 1 when it could not run). */
function run(command, args, env = process.env) {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: "inherit", env });
  if (result.error) console.error(`setup: ${command}: ${result.error.message}`);
  return result.status ?? 1;
}

function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Like the shell: a name with a slash is a path, anything else is looked up on PATH. */
function onPath(name) {
  if (name.includes("/")) return isExecutable(name);
  return (process.env.PATH ?? "").split(delimiter).some((dir) => dir && isExecutable(join(dir, name)));
}

// Node itself. The images ship Node 24; the whole suite runs on 20 (CI's), which is past its end of life
// and older than some dependencies declare (@nats-io/nuid: Node 22 or newer), so a start on it says so.
const major = Number(process.versions.node.split(".")[0]);
if (major < 20)
  fail(`Node ${process.versions.node} is too old: Browserfleet needs Node 20 or newer (24 is best)`);
if (major < 22 && mode === "start")
  say(
    `Node ${process.versions.node} is past its end of life and older than some dependencies ask for (Node 22 or newer): it is tested and runs, but install Node 24 (or 22) to be on a supported one`,
  );

// 1. node_modules, as package-lock.json says.

/** Why node_modules needs `npm ci`, or undefined when it matches package-lock.json. */
function dependencyProblem() {
  const hiddenLock = join(ROOT, "node_modules", ".package-lock.json");
  if (!existsSync(join(ROOT, "node_modules"))) return "node_modules is missing";
  if (!existsSync(hiddenLock)) return "node_modules is incomplete";
  let want;
  let have;
  try {
    want = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")).packages ?? {};
    have = JSON.parse(readFileSync(hiddenLock, "utf8")).packages ?? {};
  } catch (err) {
    return `the lock files cannot be read (${err.message})`;
  }
  for (const [path, entry] of Object.entries(want)) {
    if (path === "") continue;
    const got = have[path];
    // Optional packages for other platforms are never installed.
    if (!got) {
      if (entry.optional || entry.devOptional) continue;
      return `${path} is not installed`;
    }
    if (got.version !== entry.version)
      return `${path} is ${got.version}, package-lock.json has ${entry.version}`;
  }
  for (const path of Object.keys(have)) {
    if (!(path in want)) return `${path} is installed but no longer in package-lock.json`;
  }
  if (readFileSyncOr(PATCHES_APPLIED) !== patchesDigest())
    return "patches/ (fixes to dependencies, applied by patch-package on install) changed since npm ci";
  return undefined;
}

// patches/ holds fixes to installed packages; npm ci's postinstall applies them. A patch added or changed
// later needs a clean install, so the digest of what was applied is kept in node_modules.
const PATCHES_APPLIED = join(ROOT, "node_modules", ".browserfleet-patches");

function patchesDigest() {
  const dir = join(ROOT, "patches");
  const hash = createHash("sha256");
  for (const name of existsSync(dir) ? readdirSync(dir).sort() : [])
    hash.update(name).update(readFileSync(join(dir, name)));
  return hash.digest("hex");
}

function readFileSyncOr(file) {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

const dependencies = dependencyProblem();
if (dependencies) {
  say(`${dependencies}: installing the dependencies with npm ci (a minute or two the first time)`);
  // The npm that runs this script, when there is one.
  const npmCli = process.env.npm_execpath;
  const [command, prefix] = npmCli?.endsWith(".js") ? [process.execPath, [npmCli]] : ["npm", []];
  const code = run(command, [...prefix, "ci", "--prefer-offline", "--no-audit", "--no-fund"]);
  if (code !== 0) fail(`npm ci failed (exit code ${code}); its output is above`);
  writeFileSync(PATCHES_APPLIED, patchesDigest());
}

// 2. System packages.

async function chromiumMissing() {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (existsSync(fromEnv)) return false;
    fail(`CHROMIUM_PATH is ${fromEnv}, which does not exist: fix CHROMIUM_PATH or unset it`);
  }
  if (existsSync("/usr/bin/chromium") || existsSync("/usr/bin/chromium-browser")) return false;
  try {
    // Playwright's own Chromium (npx playwright install chromium) is found too.
    const { chromium } = await import("playwright-core");
    const own = chromium.executablePath();
    return !(own && existsSync(own));
  } catch {
    return true;
  }
}

function natsMissing() {
  if (process.env.NATS_URL) return false; // a running NATS server: no local one is started
  const fromEnv = process.env.NATS_SERVER_BIN;
  if (fromEnv) {
    if (onPath(fromEnv)) return false;
    fail(`NATS_SERVER_BIN is ${fromEnv}, which is not there: fix NATS_SERVER_BIN or unset it`);
  }
  return !onPath("nats-server");
}

function fontsMissing() {
  if (process.platform !== "linux") return false;
  if (onPath("dpkg-query")) {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format, not a template
    const status = spawnSync("dpkg-query", ["-W", "-f=${Status}", "fonts-liberation"], { encoding: "utf8" });
    return !status.stdout?.includes("install ok installed");
  }
  if (onPath("fc-list")) {
    const fonts = spawnSync("fc-list", [":", "family"], { encoding: "utf8" });
    return !fonts.stdout?.includes("Liberation Sans");
  }
  return false; // no way to tell
}

function promtoolMissing() {
  return !onPath(process.env.PROMTOOL_BIN ?? "promtool");
}

/**
 * What `npm start` and `npm test` need from the system, by Debian package. `optional` ones only let some
 * tests run (they skip without them), so they are installed when possible and otherwise only mentioned.
 */
const wanted = [
  { pkg: "chromium", what: "Chromium", missing: chromiumMissing },
  { pkg: "nats-server", what: "nats-server", missing: natsMissing },
  { pkg: "fonts-liberation", what: "the Liberation fonts", missing: fontsMissing },
  ...(mode === "test"
    ? [
        {
          pkg: "prometheus",
          what: "promtool",
          missing: promtoolMissing,
          optional: "the alert-rule tests in test/k8s/alerts.test.ts will skip",
        },
        // `npm run images` and the container test: podman builds and runs the images with runc, and
        // mmdebstrap makes their Debian base when no registry base can be pulled.
        ...["podman", "runc", "mmdebstrap"].map((pkg) => ({
          pkg,
          what: pkg,
          missing: () => !onPath(pkg),
          optional: "the container tests in test/containers will skip",
        })),
        // `npm run test:node`: a real kubelet runs the chart's pods with containerd, runc and the CNI plugins.
        {
          pkg: "containerd",
          what: "containerd",
          missing: () => !onPath("containerd"),
          optional: "the real-node test (npm run test:node) will skip",
        },
        // The OpenAPI fuzz test (test/e2e/openapi-fuzz.test.ts) runs schemathesis from a venv made below.
        {
          pkg: "python3-venv",
          what: "Python 3 with venv and pip",
          missing: () =>
            spawnSync("python3", ["-c", "import ensurepip, venv"], { stdio: "ignore" }).status !== 0,
        },
        {
          pkg: "containernetworking-plugins",
          what: "the CNI plugins",
          missing: () => !["/usr/lib/cni/bridge", "/opt/cni/bin/bridge"].some(isExecutable),
          optional: "the real-node test (npm run test:node) will skip",
        },
      ]
    : []),
];

async function whatIsMissing() {
  const missing = [];
  for (const item of wanted) if (await item.missing()) missing.push(item);
  return missing;
}

function osRelease() {
  try {
    const text = readFileSync("/etc/os-release", "utf8");
    const field = (name) => new RegExp(`^${name}="?([^"\\n]*)"?$`, "m").exec(text)?.[1] ?? "";
    return { id: field("ID"), like: field("ID_LIKE").split(" ") };
  } catch {
    return { id: "", like: [] };
  }
}

/** How this system installs packages: Debian's names mapped to its own, and whether this process may. */
function packageManager() {
  const os = osRelease();
  const root = process.getuid?.() === 0;
  const sudo = root ? "" : "sudo ";
  const ubuntu = os.id === "ubuntu" || (os.like.includes("ubuntu") && os.id !== "debian");
  if ((os.id === "debian" || ubuntu || os.like.includes("debian")) && onPath("apt-get")) {
    const canSudo =
      !root && onPath("sudo") && spawnSync("sudo", ["-n", "true"], { stdio: "ignore" }).status === 0;
    return {
      kind: "apt",
      // Ubuntu's chromium package is only a way to the snap, which containers and CI machines lack.
      names: ubuntu ? { chromium: undefined } : {},
      command: (pkgs) => `${sudo}apt-get install -y --no-install-recommends ${pkgs.join(" ")}`,
      installer: root ? [] : canSudo ? ["sudo", "-n"] : undefined,
    };
  }
  const other = (command, names) => ({
    kind: "other",
    names,
    command: (pkgs) => `${command} ${pkgs.join(" ")}`,
  });
  if (onPath("dnf"))
    return other(`${sudo}dnf install -y`, {
      "fonts-liberation": "liberation-fonts",
      prometheus: undefined,
      "python3-venv": "python3",
    });
  if (onPath("pacman"))
    return other(`${sudo}pacman -S --needed`, {
      "fonts-liberation": "ttf-liberation",
      "python3-venv": "python",
    });
  if (onPath("apk"))
    return other(`${sudo}apk add`, { "fonts-liberation": "font-liberation", "python3-venv": "python3" });
  if (onPath("brew")) return other("brew install", { chromium: undefined, "python3-venv": "python" });
  return undefined;
}

/** The system's own name for a Debian package, or undefined when it has none worth using. */
function nameOn(pm, pkg) {
  return pkg in pm.names ? pm.names[pkg] : pkg;
}

/** One line telling the user what to run for what is missing, ending with how to carry on. */
function howToInstall(pm, items) {
  const names = pm ? items.map((i) => nameOn(pm, i.pkg)).filter(Boolean) : [];
  const steps = names.length > 0 ? [`run \`${pm.command(names)}\``] : [];
  const noPackage = pm ? items.filter((i) => !nameOn(pm, i.pkg)) : items;
  for (const item of noPackage) {
    if (item.pkg === "chromium") {
      // Playwright's own Chromium; --with-deps adds its system libraries, on Debian and Ubuntu only.
      const deps = pm?.kind === "apt" ? " --with-deps" : "";
      steps.push(`run \`npx playwright install${deps} chromium\` (or set CHROMIUM_PATH)`);
    } else if (item.pkg === "nats-server")
      steps.push("install nats-server (or set NATS_URL to a running NATS server)");
    else steps.push(`install ${item.what}`);
  }
  return steps.join(", and ");
}

/** "Chromium is missing", "Chromium and nats-server are missing". */
function missingText(items) {
  const names = items.map((i) => i.what);
  const last = names.pop();
  return names.length > 0 ? `${names.join(", ")} and ${last} are missing` : `${last} is missing`;
}

let missing = await whatIsMissing();
if (missing.length > 0) {
  const custom = process.env.BROWSERFLEET_SYSTEM_INSTALLER;
  const pm = packageManager();
  const installable = custom
    ? missing
    : pm?.kind === "apt" && pm.installer
      ? missing.filter((i) => nameOn(pm, i.pkg))
      : [];
  if (installable.length > 0) {
    const pkgs = installable.map((i) => i.pkg);
    if (custom) {
      say(`${missingText(installable)}: installing ${pkgs.join(" ")} with \`${custom} ${pkgs.join(" ")}\``);
      const code = run("sh", ["-c", `${custom} "$@"`, "installer", ...pkgs]);
      if (code !== 0) fail(`\`${custom} ${pkgs.join(" ")}\` failed (exit code ${code}); its output is above`);
    } else {
      const sudo = pm.installer;
      const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
      const apt = (args) => [
        ...sudo,
        ...(sudo.length ? ["env", "DEBIAN_FRONTEND=noninteractive"] : []),
        "apt-get",
        ...args,
      ];
      const install = ["install", "-y", "-qq", "--no-install-recommends", ...pkgs];
      const shown = (args) => [...sudo, "apt-get", ...args].join(" ");
      say(
        `${missingText(installable)}: installing ${pkgs.join(" ")} with \`${shown(["update"])}\` and \`${shown(install)}\` (about a minute)`,
      );
      for (const args of [["update", "-qq"], install]) {
        const [command, ...rest] = apt(args);
        const code = run(command, rest, env);
        if (code !== 0)
          fail(`\`${[command, ...rest].join(" ")}\` failed (exit code ${code}); its output is above`);
      }
    }
    missing = await whatIsMissing();
  }
  const required = missing.filter((i) => !i.optional);
  if (required.length > 0) {
    const tried = installable.some((i) => required.includes(i)) ? " even after installing" : "";
    fail(`${missingText(required)}${tried}: ${howToInstall(pm, missing)}, then \`${again}\` again`);
  }
  for (const item of missing) {
    say(`${item.what} is missing, so ${item.optional} (to have it: ${howToInstall(pm, [item])})`);
  }
}

// 3. The Kubernetes test tools.

if (mode === "test") {
  const bin = join(process.env.BROWSERFLEET_TOOLS_DIR ?? join(ROOT, ".tools"), "bin");
  const tools = [
    "etcd",
    "kube-apiserver",
    "kube-controller-manager",
    "kube-scheduler",
    "kwok",
    "helm",
    "kubeconform",
    "weed", // SeaweedFS: the real S3-compatible store of test/helpers/s3-server.ts
  ];
  const unbuilt = tools.filter((t) => !isExecutable(join(bin, t)));
  if (!onPath("go")) {
    if (unbuilt.length > 0)
      say(
        `Go is not installed, so the Kubernetes tests in test/k8s and the S3 store tests will skip (Go >= 1.24 builds their tools)`,
      );
  } else {
    if (unbuilt.length > 0) {
      say(
        `building the Kubernetes test tools (${unbuilt.join(", ")}) into ${relative(ROOT, bin) || bin} with scripts/k8s-tools.sh: 30 to 55 minutes the first time, seconds later on`,
      );
    }
    const code = run(join(ROOT, "scripts", "k8s-tools.sh"), []);
    if (code !== 0) fail(`scripts/k8s-tools.sh failed (exit code ${code}); its output is above`);
  }
}

// 4. schemathesis, the OpenAPI fuzzer of test/e2e/openapi-fuzz.test.ts, pinned, in a venv under .tools.

if (mode === "test") {
  const version = "4.32.5"; // test/helpers/schemathesis.ts names the same one
  const venv = join(process.env.BROWSERFLEET_TOOLS_DIR ?? join(ROOT, ".tools"), "schemathesis");
  const python = join(venv, "bin", "python");
  const has = () =>
    spawnSync(python, ["-c", "import importlib.metadata as m; print(m.version('schemathesis'))"], {
      encoding: "utf8",
    }).stdout?.trim() === version;
  if (!isExecutable(join(venv, "bin", "st")) || !has()) {
    say(
      `installing schemathesis ${version} (the OpenAPI fuzzer) into ${relative(ROOT, venv) || venv} with pip`,
    );
    if (!isExecutable(python) && run("python3", ["-m", "venv", venv]) !== 0)
      fail(`\`python3 -m venv ${venv}\` failed; its output is above`);
    const code = run(join(venv, "bin", "pip"), ["install", "-q", `schemathesis==${version}`]);
    if (code !== 0)
      fail(`pip could not install schemathesis ${version} (exit code ${code}); its output is above`);
  }
}
