import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "@browserfleet/bus";
import { createPermit2ApprovalTx, PERMIT2_ADDRESS, x402UptoPermit2ProxyAddress } from "@x402/evm";
import solc from "solc";
import {
  type Abi,
  type Address,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeAbiParameters,
  type Hex,
  hashDomain,
  http,
  type PublicClient,
  parseAbi,
  toHex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { waitFor } from "./wait-for.ts";

/** Base mainnet USDC: the asset @x402/evm's default tables know for eip155:8453. */
export const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" as const;
/** Where Multicall3 lives on every public chain; the x402 facilitator reads through it. */
export const MULTICALL3 = "0xcA11bde05977b3631167028862bE2a173976CA11" as const;

/**
 * Anvil's default dev accounts (mnemonic "test test test test test test test test test test test junk"),
 * each funded with 10000 ETH. Public knowledge; only ever valid on a local chain.
 */
const DEV_KEYS = {
  deployer: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  facilitator: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  payer: "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3e0f3f1d9d9a0d8e",
  payTo: "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
} as const satisfies Record<string, Hex>;

/** Where Permit2 lives on every public chain; the x402 `upto` scheme pays through it. */
export const PERMIT2 = PERMIT2_ADDRESS;
/** Where the x402 upto proxy lives (the Permit2 spender the payer signs for); @x402/evm hard-codes it. */
export const UPTO_PROXY = x402UptoPermit2ProxyAddress;

/** What startChain() mints the payer: 10 USDC. */
export const PAYER_START_MICROS = 10_000_000n;

export interface Chain {
  rpcUrl: string;
  chainId: 8453;
  usdc: typeof BASE_USDC;
  /** Pays gas for settlements (an anvil dev account). */
  facilitatorKey: Hex;
  /** Holds PAYER_START_MICROS of USDC after startChain(). */
  payerKey: Hex;
  payer: Address;
  /** Receives payments; starts with no USDC. */
  payTo: Address;
  mint(to: Address, micros: bigint): Promise<void>;
  balanceOf(a: Address): Promise<bigint>;
  /**
   * What a wallet does once before paying with the `upto` scheme: approve Permit2 to move its USDC (the
   * transaction @x402/evm's createPermit2ApprovalTx builds), with a little ETH given first for its gas.
   */
  approvePermit2(key: Hex): Promise<void>;
  stop(): Promise<void>;
}

export class AnvilMissingError extends Error {}

// A liveness bound, not a speed check: the first run of a freshly installed 60 MB binary on a loaded
// machine (a fresh clone's CI, image builds beside it) once took longer than 20 s to answer.
const START_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 5_000;

/** The api's settings for wallet payments settled by its own facilitator on `chain`. */
export const walletEnv = (chain: Chain) => ({
  X402_PAY_TO: chain.payTo,
  X402_FACILITATOR_PRIVATE_KEY: chain.facilitatorKey,
  X402_RPC_URL: chain.rpcUrl,
});

/**
 * An offline local chain that looks like Base to x402: anvil with chain id 8453, an EIP-3009 test token
 * (name "USD Coin", version "2", 6 decimals) at the real Base USDC address, Multicall3, Permit2 and the
 * x402 upto proxy at their canonical addresses. The payer gets PAYER_START_MICROS of USDC. `host`: the
 * address its RPC listens on (default 127.0.0.1; a real node's pods reach the node's own address).
 * `blockTimeSeconds`: mine a block that often, as a live chain does, so its clock moves on without
 * transactions (what decides that an authorization has expired); by default a block per transaction.
 */
export async function startChain(opts: { host?: string; blockTimeSeconds?: number } = {}): Promise<Chain> {
  const bin = anvilBinary();
  const compiled = compileContracts(); // starts now; awaited once anvil answers
  compiled.catch(() => {});
  const permit2 = permit2Runtime(8453);
  permit2.catch(() => {});
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    let anvil: Anvil | undefined;
    try {
      anvil = await spawnAnvil(bin, port, opts.host ?? "127.0.0.1", opts.blockTimeSeconds);
      return await setUp(anvil, await compiled, await permit2);
    } catch (err) {
      lastError = err;
      await anvil?.stop();
      // Another process may have taken the port between freePort() and anvil's bind: try a new one.
      if (err instanceof AnvilMissingError || !/address already in use|AddrInUse/i.test(String(err)))
        throw err;
    }
  }
  throw lastError;
}

async function setUp(anvil: Anvil, compiled: Compiled, permit2: Hex): Promise<Chain> {
  const chain = defineChain({
    id: 8453,
    name: "anvil (Base)",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [anvil.rpcUrl] } },
  });
  const transport = http(anvil.rpcUrl, { timeout: 10_000, retryCount: 0 });
  const publicClient: PublicClient = createPublicClient({ chain, transport });
  const deployer = createWalletClient({ chain, transport, account: privateKeyToAccount(DEV_KEYS.deployer) });

  await publicClient.request({
    method: "anvil_setCode" as never,
    params: [BASE_USDC, compiled.token.runtime] as never,
  });
  await publicClient.request({
    method: "anvil_setCode" as never,
    params: [MULTICALL3, compiled.multicall.runtime] as never,
  });
  await publicClient.request({ method: "anvil_setCode" as never, params: [PERMIT2, permit2] as never });
  await publicClient.request({
    method: "anvil_setCode" as never,
    params: [UPTO_PROXY, compiled.uptoProxy.runtime] as never,
  });
  // Permit2 checks every signature against this; it must be the domain @x402/evm signs under.
  const separator = await publicClient.readContract({
    address: PERMIT2,
    abi: parseAbi(["function DOMAIN_SEPARATOR() view returns (bytes32)"]),
    functionName: "DOMAIN_SEPARATOR",
  });
  if (separator !== permit2DomainSeparator(8453)) {
    throw new Error(`Permit2 at ${PERMIT2} answers domain separator ${separator}`);
  }

  const abi = compiled.token.abi;
  const balanceOf = async (a: Address): Promise<bigint> =>
    (await publicClient.readContract({
      address: BASE_USDC,
      abi,
      functionName: "balanceOf",
      args: [a],
    })) as bigint;
  const mint = async (to: Address, micros: bigint): Promise<void> => {
    const hash = await deployer.writeContract({
      address: BASE_USDC,
      abi,
      functionName: "mint",
      args: [to, micros],
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: 10_000 });
    if (receipt.status !== "success") throw new Error(`mint(${to}, ${micros}) reverted in ${hash}`);
  };

  // The token must answer as USDC does, or the @x402 EIP-712 domain would not match what it signs.
  const [name, version] = await Promise.all([
    publicClient.readContract({ address: BASE_USDC, abi, functionName: "name" }),
    publicClient.readContract({ address: BASE_USDC, abi, functionName: "version" }),
  ]);
  if (name !== "USD Coin" || version !== "2") {
    throw new Error(`test token answers name=${String(name)} version=${String(version)}`);
  }

  const approvePermit2 = async (key: Hex): Promise<void> => {
    const account = privateKeyToAccount(key);
    await publicClient.request({
      method: "anvil_setBalance" as never,
      params: [account.address, toHex(10n ** 17n)] as never,
    });
    const wallet = createWalletClient({ chain, transport, account });
    const hash = await wallet.sendTransaction(createPermit2ApprovalTx(BASE_USDC));
    const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: 10_000 });
    if (receipt.status !== "success") throw new Error(`${account.address}'s Permit2 approval reverted`);
  };

  const payer = privateKeyToAccount(DEV_KEYS.payer).address;
  const payTo = privateKeyToAccount(DEV_KEYS.payTo).address;
  await mint(payer, PAYER_START_MICROS);

  return {
    rpcUrl: anvil.rpcUrl,
    chainId: 8453,
    usdc: BASE_USDC,
    facilitatorKey: DEV_KEYS.facilitator,
    payerKey: DEV_KEYS.payer,
    payer,
    payTo,
    mint,
    balanceOf,
    approvePermit2,
    stop: () => anvil.stop(),
  };
}

// --- anvil process ---------------------------------------------------------------------------------------

interface Anvil {
  rpcUrl: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

function anvilBinary(): string {
  const fromEnv = process.env.ANVIL_BIN;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new AnvilMissingError(`ANVIL_BIN=${fromEnv} does not exist`);
    return fromEnv;
  }
  const pkg = "@foundry-rs/anvil-linux-amd64";
  let pkgJson: string;
  try {
    pkgJson = createRequire(import.meta.url).resolve(`${pkg}/package.json`);
  } catch {
    throw new AnvilMissingError(
      `anvil was not found: the optional npm package ${pkg} is not installed (it only exists for linux x64). ` +
        "Install foundry's anvil and set ANVIL_BIN to its path.",
    );
  }
  const bin = join(dirname(pkgJson), "bin", "anvil");
  if (!existsSync(bin)) throw new AnvilMissingError(`${pkg} is installed but ${bin} is missing`);
  return bin;
}

async function spawnAnvil(bin: string, port: number, host: string, blockTime?: number): Promise<Anvil> {
  const args = ["--chain-id", "8453", "--host", host, "--port", String(port)];
  if (blockTime) args.push("--block-time", String(blockTime));
  const child = spawn(bin, args, {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (d: Buffer) => {
    output = (output + String(d)).slice(-4000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);

  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    child.once("exit", () => resolve());
    child.once("error", () => resolve());
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };

  const failed = new Promise<never>((_, reject) => {
    child.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        err.code === "ENOENT" ? new AnvilMissingError(`could not run anvil at ${bin}: ${err.message}`) : err,
      ),
    );
    child.once("exit", (code, signal) =>
      reject(new Error(`anvil exited early (code ${code}, signal ${signal}): ${output.trim()}`)),
    );
  });
  failed.catch(() => {});

  const rpcUrl = `http://${host}:${port}`;
  try {
    await Promise.race([waitForRpc(rpcUrl, START_TIMEOUT_MS, () => output), failed]);
  } catch (err) {
    await stop();
    throw err;
  }
  return { rpcUrl, process: child, stop };
}

async function waitForRpc(rpcUrl: string, timeoutMs: number, output: () => string): Promise<void> {
  await waitFor(
    `anvil to answer JSON-RPC at ${rpcUrl}`,
    async () => {
      const res = await fetch(rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
        signal: AbortSignal.timeout(1_000),
      });
      const body = (await res.json()) as { result?: string };
      if (body.result !== "0x2105") throw new Error(`eth_chainId answered ${JSON.stringify(body)}`); // 8453
      return true;
    },
    timeoutMs,
    100,
  ).catch((err: Error) => {
    throw new Error(`${err.message}. Output: ${output().trim()}`);
  });
}

// --- contracts -------------------------------------------------------------------------------------------

interface Contract {
  abi: Abi;
  runtime: Hex;
}
interface Compiled {
  token: Contract;
  multicall: Contract;
  uptoProxy: Contract;
}

let compiledOnce: Promise<Compiled> | undefined;

/**
 * Compile test/helpers/eip3009-token.sol and upto-permit2-proxy.sol with solc-js (no download: the wasm
 * compiler ships with the package).
 */
function compileContracts(): Promise<Compiled> {
  compiledOnce ??= (async () => {
    const here = dirname(fileURLToPath(import.meta.url));
    const file = "eip3009-token.sol";
    const proxyFile = "upto-permit2-proxy.sol";
    const input = {
      language: "Solidity",
      sources: {
        [file]: { content: await readFile(join(here, file), "utf8") },
        [proxyFile]: { content: await readFile(join(here, proxyFile), "utf8") },
      },
      settings: {
        evmVersion: "cancun",
        optimizer: { enabled: true, runs: 200 },
        outputSelection: { "*": { "*": ["abi", "evm.deployedBytecode.object"] } },
      },
    };
    const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
      errors?: { severity: string; formattedMessage: string }[];
      contracts?: Record<string, Record<string, { abi: Abi; evm: { deployedBytecode: { object: string } } }>>;
    };
    const errors = (output.errors ?? []).filter((e) => e.severity === "error");
    if (errors.length > 0) {
      throw new Error(`solc ${solc.version()} failed:\n${errors.map((e) => e.formattedMessage).join("\n")}`);
    }
    const pick = (name: string, from = file): Contract => {
      const c = output.contracts?.[from]?.[name];
      if (!c?.evm.deployedBytecode.object) throw new Error(`solc output has no ${name}`);
      // No constructor and no immutables, so the runtime code can be installed as-is with anvil_setCode.
      return { abi: c.abi, runtime: `0x${c.evm.deployedBytecode.object}` };
    };
    return {
      token: pick("TestUSDC"),
      multicall: pick("Multicall3"),
      uptoProxy: pick("UptoPermit2Proxy", proxyFile),
    };
  })();
  compiledOnce.catch(() => {
    compiledOnce = undefined;
  });
  return compiledOnce;
}

// --- Permit2 ---------------------------------------------------------------------------------------------

/** Uniswap's Permit2, as the @uniswap/v4-periphery package ships its source (lib/permit2, MIT; solmate AGPL). */
const PERMIT2_PACKAGE = "@uniswap/v4-periphery";
/** Permit2's own build settings (its foundry.toml), under the compiler version it pins. */
const PERMIT2_SETTINGS = {
  viaIR: true,
  optimizer: { enabled: true, runs: 1_000_000 },
  metadata: { bytecodeHash: "none" },
  evmVersion: "london",
} as const;

export function permit2DomainSeparator(chainId: number): Hex {
  return hashDomain({
    domain: { name: "Permit2", chainId: BigInt(chainId), verifyingContract: PERMIT2 },
    types: {
      EIP712Domain: [
        { name: "name", type: "string" },
        { name: "chainId", type: "uint256" },
        { name: "verifyingContract", type: "address" },
      ],
    },
  });
}

const permit2Once = new Map<number, Promise<Hex>>();

/**
 * Permit2's runtime code as it runs at its canonical address on `chainId`, compiled from its source with
 * solc 0.8.17 (the version its pragma pins) and cached on disk (the via-IR build takes a while in wasm).
 *
 * Permit2 keeps its EIP-712 domain separator and chain id in immutables, computed by its constructor
 * from address(this). The code is installed with anvil_setCode, so no constructor runs at the canonical
 * address: the two immutables are written into the runtime code here, with the values the constructor
 * would have computed there (setUp reads DOMAIN_SEPARATOR() back to check).
 */
function permit2Runtime(chainId: number): Promise<Hex> {
  let once = permit2Once.get(chainId);
  if (!once) {
    once = buildPermit2Runtime(chainId);
    once.catch(() => permit2Once.delete(chainId));
    permit2Once.set(chainId, once);
  }
  return once;
}

async function buildPermit2Runtime(chainId: number): Promise<Hex> {
  const require = createRequire(import.meta.url);
  const root = join(dirname(require.resolve(`${PERMIT2_PACKAGE}/package.json`)), "lib", "permit2");
  const compiler = require("solc-0.8.17") as typeof solc;
  const pkgVersion = (
    JSON.parse(await readFile(join(root, "..", "..", "package.json"), "utf8")) as {
      version: string;
    }
  ).version;
  const key = createHash("sha256")
    .update(JSON.stringify([PERMIT2_PACKAGE, pkgVersion, compiler.version(), PERMIT2_SETTINGS, chainId]))
    .digest("hex")
    .slice(0, 16);
  const cacheDir = fileURLToPath(new URL("../../node_modules/.cache/browserfleet-chain/", import.meta.url));
  const cacheFile = join(cacheDir, `permit2-${key}.hex`);
  const cached = await readFile(cacheFile, "utf8").catch(() => undefined);
  if (cached?.startsWith("0x")) return cached.trim() as Hex;

  const entry = "src/Permit2.sol";
  const input = {
    language: "Solidity",
    sources: { [entry]: { content: await readFile(join(root, entry), "utf8") } },
    settings: {
      ...PERMIT2_SETTINGS,
      outputSelection: {
        "src/EIP712.sol": { "": ["ast"] },
        [entry]: { Permit2: ["evm.deployedBytecode.object", "evm.deployedBytecode.immutableReferences"] },
      },
    },
  };
  // Permit2 imports solmate as "solmate/src/..."; its remapping puts that in lib/solmate.
  const findImport = (path: string) => {
    const file = join(root, path.startsWith("solmate/") ? `lib/${path}` : path);
    try {
      return { contents: readFileSync(file, "utf8") };
    } catch (err) {
      return { error: `cannot read ${file}: ${(err as Error).message}` };
    }
  };
  const output = JSON.parse(compiler.compile(JSON.stringify(input), { import: findImport })) as {
    errors?: { severity: string; formattedMessage: string }[];
    sources?: Record<string, { ast: unknown }>;
    contracts?: Record<
      string,
      Record<
        string,
        {
          evm: {
            deployedBytecode: {
              object: string;
              immutableReferences: Record<string, { start: number; length: number }[]>;
            };
          };
        }
      >
    >;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length > 0) {
    throw new Error(
      `solc ${compiler.version()} failed on Permit2:\n${errors.map((e) => e.formattedMessage).join("\n")}`,
    );
  }
  const deployed = output.contracts?.[entry]?.Permit2?.evm.deployedBytecode;
  const ast = output.sources?.["src/EIP712.sol"]?.ast;
  if (!deployed || !ast) throw new Error("solc output has no Permit2 runtime code or EIP712 AST");

  const ids = immutableIds(ast);
  const values: Record<string, Hex> = {
    _CACHED_DOMAIN_SEPARATOR: permit2DomainSeparator(chainId),
    _CACHED_CHAIN_ID: encodeAbiParameters([{ type: "uint256" }], [BigInt(chainId)]),
  };
  let code = deployed.object;
  for (const [name, value] of Object.entries(values)) {
    const id = ids.get(name);
    const refs = id === undefined ? undefined : deployed.immutableReferences[String(id)];
    if (!refs?.length) throw new Error(`Permit2's runtime code has no immutable ${name}`);
    for (const { start, length } of refs) {
      if (length !== 32) throw new Error(`Permit2's immutable ${name} is ${length} bytes, not 32`);
      code = code.slice(0, start * 2) + value.slice(2) + code.slice((start + length) * 2);
    }
  }
  if (Object.keys(deployed.immutableReferences).length !== Object.keys(values).length) {
    throw new Error("Permit2 has immutables this helper does not know how to fill");
  }
  const runtime = `0x${code}` as Hex;
  // Keyed by the package version (whose sources never change under it), compiler and settings. A cache
  // that cannot be written only costs the next run the compile.
  const tmp = `${cacheFile}.${process.pid}.tmp`;
  await mkdir(cacheDir, { recursive: true })
    .then(() => writeFile(tmp, `${runtime}\n`))
    .then(() => rename(tmp, cacheFile))
    .catch(() => {});
  return runtime;
}

/** Immutable state variables of an AST, by name: their ids key solc's immutableReferences. */
function immutableIds(ast: unknown): Map<string, number> {
  const ids = new Map<string, number>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) for (const n of node) walk(n);
    else if (node && typeof node === "object") {
      const n = node as { nodeType?: string; mutability?: string; name?: string; id?: number };
      if (
        n.nodeType === "VariableDeclaration" &&
        n.mutability === "immutable" &&
        n.name &&
        n.id !== undefined
      )
        ids.set(n.name, n.id);
      for (const v of Object.values(node)) walk(v);
    }
  };
  walk(ast);
  return ids;
}
