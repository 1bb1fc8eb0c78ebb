import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";

/** BROWSER_SANDBOX: "auto" uses Chromium's sandbox wherever this machine allows it. */
export type SandboxSetting = "auto" | "on" | "off";

/** An unprivileged user Chromium runs as when the worker itself runs as root. */
export interface SandboxUser {
  name: string;
  uid: number;
  gid: number;
}

/** Whether Chromium runs sandboxed, as whom, and why, in words an operator reads at start. */
export interface SandboxPlan {
  on: boolean;
  runAs?: SandboxUser;
  why: string;
  /**
   * Chosen by "auto": if Chromium's sandbox still fails to start (a seccomp profile that lets `unshare`
   * through but not all the sandbox does), Chromium starts without it, saying why.
   */
  fallback?: boolean;
}

export const NO_SANDBOX: SandboxPlan = { on: false, why: "not asked for" };

export class SandboxUnavailableError extends Error {}

/**
 * The decision alone (sandboxPlan does the looking). Chromium refuses its sandbox as root, so a worker
 * running as root runs Chromium as `user` (BROWSER_SANDBOX_USER), or unsandboxed when none is set. The
 * namespace sandbox needs unprivileged user namespaces; `probe` says why they cannot be made, if so.
 * "on" fails rather than run unsandboxed; "auto" says why it runs without.
 */
export function decideSandbox(input: {
  setting: SandboxSetting;
  isRoot: boolean;
  user: SandboxUser | undefined;
  probe: (as: SandboxUser | undefined) => string | undefined;
}): SandboxPlan {
  const { setting, isRoot, user } = input;
  if (setting === "off") return { on: false, why: "BROWSER_SANDBOX=off" };
  const without = (why: string): SandboxPlan => {
    if (setting === "on") throw new SandboxUnavailableError(`BROWSER_SANDBOX=on, but ${why}`);
    return { on: false, why };
  };
  if (isRoot && user === undefined)
    return without(
      "the worker runs as root, Chromium refuses its sandbox as root, and there is no user nobody to run it as: set BROWSER_SANDBOX_USER to an unprivileged user, or run the worker as one",
    );
  const refused = input.probe(isRoot ? user : undefined);
  if (refused !== undefined)
    return without(`this machine does not let an unprivileged process make namespaces (${refused})`);
  const fallback = setting === "auto" ? { fallback: true } : {};
  return isRoot && user
    ? {
        on: true,
        runAs: user,
        why: `namespace sandbox and seccomp, Chromium running as ${user.name}`,
        ...fallback,
      }
    : { on: true, why: "namespace sandbox and seccomp", ...fallback };
}

/** Looks the user up and probes the machine, then decides. */
export function sandboxPlan(setting: SandboxSetting, userName: string | undefined): SandboxPlan {
  const isRoot = process.getuid?.() === 0;
  // As root without a user named, Chromium runs as nobody where there is one.
  const user =
    !isRoot || setting === "off" ? undefined : userName ? lookUpUser(userName) : unprivileged("nobody");
  return decideSandbox({ setting, isRoot, user, probe: probeNamespaces });
}

/** The user's ids, from `id`; undefined when there is no such user. */
function idsOf(name: string): SandboxUser | undefined {
  const ids = (flag: string) => spawnSync("id", [flag, name], { encoding: "utf8" });
  const uid = ids("-u");
  const gid = ids("-g");
  if (uid.status !== 0 || gid.status !== 0) return undefined;
  return { name, uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** The default user where there is one that is not root. */
function unprivileged(name: string): SandboxUser | undefined {
  const user = idsOf(name);
  return user && user.uid !== 0 ? user : undefined;
}

/** The user an operator named: refused plainly when missing or root. */
function lookUpUser(name: string): SandboxUser {
  const user = idsOf(name);
  if (!user) throw new SandboxUnavailableError(`BROWSER_SANDBOX_USER ${name} is not a user on this machine`);
  if (user.uid === 0) throw new SandboxUnavailableError(`BROWSER_SANDBOX_USER ${name} is root`);
  return user;
}

/**
 * What Chromium's namespace sandbox does first: a new user, PID and network namespace, made by an
 * unprivileged process (the user it will run as). Undefined when that works, else the reason.
 */
export function probeNamespaces(as: SandboxUser | undefined): string | undefined {
  const unshare = ["unshare", "--user", "--pid", "--net", "--fork", "true"];
  const [cmd, ...args] = as
    ? ["setpriv", `--reuid=${as.uid}`, `--regid=${as.gid}`, "--clear-groups", "--", ...unshare]
    : unshare;
  const r = spawnSync(cmd as string, args, { encoding: "utf8", timeout: 10_000 });
  if (r.error) return `${cmd}: ${r.error.message}`;
  if (r.status !== 0) return (r.stderr.trim().split("\n").at(-1) ?? "").trim() || `exit ${r.status}`;
  return undefined;
}

/**
 * An executable that starts Chromium as `user` (for Playwright, which can only name an executable): it
 * hands Playwright's profile folder to that user, then drops to it. Playwright's pipes (fds 3 and 4) pass
 * through the exec.
 */
export function runAsLauncher(chromiumPath: string, user: SandboxUser): string {
  const dir = mkdtempSync(join(tmpdir(), "browserfleet-chromium-"));
  const path = join(dir, "chromium");
  const q = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  writeFileSync(
    path,
    [
      "#!/bin/sh",
      `# Chromium as ${user.name}, sandboxed (Chromium refuses its sandbox as root).`,
      'for a in "$@"; do',
      '  case "$a" in --user-data-dir=*) d=$(printf %s "$a" | cut -d= -f2-)',
      `    chown -R ${user.uid}:${user.gid} "$d"; export HOME="$d" ;; esac`,
      "done",
      `exec setpriv --reuid=${user.uid} --regid=${user.gid} --clear-groups -- ${q(chromiumPath)} "$@"`,
      "",
    ].join("\n"),
  );
  chmodSync(path, 0o755);
  return path;
}

/** The line a start prints about it. */
export function describeSandbox(plan: SandboxPlan): string {
  return plan.on
    ? `Chromium sandbox: on (${plan.why})`
    : `Chromium sandbox: OFF, pages run in unsandboxed renderers: ${plan.why}`;
}

/** The plan once Chromium's sandbox failed to start although the machine seemed to allow it. */
export function sandboxFailed(plan: SandboxPlan, err: unknown): SandboxPlan {
  // Playwright's error carries Chromium's log: its own ERROR or FATAL line says why (dbus's do not).
  const log = stripVTControlCharacters(err instanceof Error ? err.message : String(err));
  const said = [...log.matchAll(/\[err\].*?:(FATAL|ERROR):[^\]]*\]\s*(.+)/g)]
    .filter((m) => !/dbus/i.test(m[0]))
    .sort((a, b) => (a[1] === b[1] ? 0 : a[1] === "FATAL" ? -1 : 1));
  const line = said[0]?.[2] ?? log.split("\n")[0];
  const { runAs } = plan;
  return {
    on: false,
    ...(runAs ? { runAs } : {}),
    why: `Chromium's sandbox failed to start here (${(line ?? "").trim().slice(0, 300)}); is the seccomp profile the chart's?`,
  };
}
