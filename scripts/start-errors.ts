/**
 * Why `npm start` could not start, in one line that names the setting at fault. The checks here run before
 * anything is started (settings, ports), and explain() turns whatever failed later into such a line.
 */
import { connect, createServer } from "node:net";
import { ChromiumMissingError } from "@browserfleet/browser";
import { MissingBinaryError } from "@browserfleet/bus";
import { type Config, configSchema } from "@browserfleet/config";
import { PostgresSetupError } from "@browserfleet/db";

/** A failure whose message is already the one line to show. */
export class StartError extends Error {}

/** The settings from the environment; a bad value names its variable. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const name = String(issue.path[0]);
    return `${name}=${JSON.stringify(env[name] ?? "")} is not valid (${issue.message.replace(/^Invalid input: /, "")})`;
  });
  const names = [...new Set(parsed.error.issues.map((i) => String(i.path[0])))];
  throw new StartError(`${problems.join("; ")}: fix ${names.join(", ")}`);
}

/** Wallet payments need somewhere to settle: caught before anything starts. */
export function checkWalletPayments(config: Config): void {
  if (!config.X402_PAY_TO) return;
  const selfHosted = config.X402_FACILITATOR_PRIVATE_KEY && config.X402_RPC_URL;
  if (config.X402_FACILITATOR_URL || selfHosted) return;
  throw new StartError(
    "X402_PAY_TO is set but no facilitator is: set X402_FACILITATOR_URL (or X402_FACILITATOR_PRIVATE_KEY and X402_RPC_URL), or unset X402_PAY_TO",
  );
}

/** The ports this process listens on, by the setting that chooses each. */
function listenPorts(config: Config): { name: string; port: number; host: string }[] {
  return [
    { name: "PORT", port: config.PORT, host: config.HOST },
    { name: "BROWSER_METRICS_PORT", port: config.BROWSER_METRICS_PORT, host: "0.0.0.0" },
    { name: "JOBS_METRICS_PORT", port: config.JOBS_METRICS_PORT, host: "0.0.0.0" },
  ];
}

/** Each port free and distinct, so a taken port stops the start before anything runs. */
export async function checkPortsFree(config: Config): Promise<void> {
  const seen = new Map<number, string>();
  for (const { name, port, host } of listenPorts(config)) {
    if (port === 0) continue; // any free port
    const other = seen.get(port);
    if (other) throw new StartError(`${other} and ${name} are both ${port}: give ${name} a port of its own`);
    seen.set(port, name);
    await new Promise<void>((resolve, reject) => {
      const probe = createServer();
      probe.once("error", (err) => reject(portError(err as NodeJS.ErrnoException, name, port) ?? err));
      probe.listen(port, host, () => probe.close(() => resolve()));
    });
  }
}

function portError(err: NodeJS.ErrnoException, name: string, port: number): StartError | undefined {
  if (err.code === "EADDRINUSE")
    return new StartError(`${name} ${port} is already in use: set ${name} to a free port`);
  if (err.code === "EACCES")
    return new StartError(
      `${name} ${port} needs privileges this user lacks: set ${name} to a port above 1023`,
    );
  return undefined;
}

/** Can a TCP connection reach host:port within a few seconds? The error code when not. */
function reach(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 5000 });
    socket.once("connect", () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once("timeout", () => {
      socket.destroy();
      resolve("no answer within 5 s");
    });
    socket.once("error", (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

/** A NATS_URL or DATABASE_URL that nothing answers at stops the start before anything runs. */
export async function checkReachable(config: Config): Promise<void> {
  const servers = [
    ...(config.NATS_URL
      ? [
          {
            name: "NATS_URL",
            urls: config.NATS_URL.split(","),
            port: 4222,
            or: "unset it to run a local nats-server",
          },
        ]
      : []),
    ...(config.DATABASE_URL
      ? [
          {
            name: "DATABASE_URL",
            urls: [config.DATABASE_URL],
            port: 5432,
            or: "unset it for the embedded PostgreSQL",
          },
        ]
      : []),
  ];
  for (const { name, urls, port, or } of servers) {
    const problems: string[] = [];
    for (const raw of urls) {
      let url: URL;
      try {
        url = new URL(raw.includes("://") || name !== "NATS_URL" ? raw.trim() : `nats://${raw.trim()}`);
      } catch {
        throw new StartError(`${name} is not a URL: fix ${name} or ${or}`);
      }
      const problem = await reach(url.hostname.replace(/^\[|\]$/g, ""), Number(url.port || port));
      if (problem) problems.push(`${url.hostname}:${url.port || port} (${problem})`);
    }
    // One server that answers is enough: a NATS client tries the others.
    if (problems.length === urls.length) {
      throw new StartError(
        `${name} points at ${problems.join(", ")}, which does not answer: fix ${name} or ${or}`,
      );
    }
  }
}

/** The x402 settings by the names the api's payment module gives them. */
const X402_NAMES: Record<string, string> = {
  facilitatorUrl: "X402_FACILITATOR_URL",
  facilitatorPrivateKey: "X402_FACILITATOR_PRIVATE_KEY",
  rpcUrl: "X402_RPC_URL",
  payTo: "X402_PAY_TO",
  network: "X402_NETWORK",
  asset: "X402_ASSET",
  assetName: "X402_ASSET_NAME",
  assetVersion: "X402_ASSET_VERSION",
  maxTimeoutSeconds: "X402_MAX_TIMEOUT_SECONDS",
};

export function oneLine(text: string, max = 400): string {
  const line = text.replace(/\s*\n\s*/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A program that could not be run, by its path, with what to do about it. */
function spawnFailure(e: NodeJS.ErrnoException & { path?: string }, during?: string): string {
  const what = `${during ? `${during}: ` : ""}${e.path ?? "a program"}`;
  if (e.code === "ENOENT")
    return `${what} was not found: reinstall the dependencies with \`npm ci\` (or install the program)`;
  if (e.code === "EACCES")
    return `${what} cannot be run by this user (permission denied): check the mode of the file and of every folder on its path`;
  return `${what} could not be run (${e.code ?? e.message})`;
}

/** One line for a failure during start-up; `during` names the part that was starting. */
export function explain(err: unknown, config: Config | undefined, during?: string): string {
  if (
    err instanceof StartError ||
    err instanceof ChromiumMissingError ||
    err instanceof MissingBinaryError ||
    err instanceof PostgresSetupError
  )
    return oneLine(err.message);
  const e = err as NodeJS.ErrnoException & { port?: number; path?: string };
  if (e?.syscall?.startsWith("spawn")) return spawnFailure(e, during);
  if ((e?.code === "EADDRINUSE" || e?.code === "EACCES") && config) {
    const setting = [
      ...listenPorts(config),
      { name: "POSTGRES_PORT", port: config.POSTGRES_PORT, host: "" },
    ].find((p) => p.port === e.port);
    const known = setting && portError(e, setting.name, setting.port);
    if (known) return known.message;
  }
  const message = err instanceof Error ? err.message : String(err);
  if (message.startsWith("x402 settings: ")) {
    return oneLine(message.replace(/\b[a-zA-Z]+\b/g, (word) => X402_NAMES[word] ?? word));
  }
  if (message.startsWith("x402: the facilitator")) {
    const fix = message.includes("(in-process)")
      ? "check X402_RPC_URL and X402_FACILITATOR_PRIVATE_KEY"
      : "check X402_FACILITATOR_URL";
    return `${oneLine(message)}: ${fix}`;
  }
  const pg = /^PostgreSQL did not start on [\d.]+:(\d+)/.exec(message);
  if (pg) {
    if (/Address already in use/.test(message))
      return `POSTGRES_PORT ${pg[1]} is already in use: set POSTGRES_PORT to a free port (or DATABASE_URL to a running PostgreSQL)`;
    return `${oneLine(message.split("; its last words")[0] ?? message)} (DEBUG=1 shows its log)`;
  }
  return oneLine(during ? `${during}: ${message}` : message);
}
