/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned to 0.1.13, the last
 * release that runs on Node 20) against our /mcp, for the server scenarios that apply to a product
 * server: the others need tools, prompts or resources made for the suite (`test_simple_text`, …).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type Stack, startStack } from "../helpers/stack.ts";

const require = createRequire(import.meta.url);
const cli = join(dirname(require.resolve("@modelcontextprotocol/conformance/package.json")), "dist/index.js");

const SCENARIOS = [
  "server-initialize",
  "ping",
  "tools-list",
  "logging-set-level",
  "tools-call-error",
  "dns-rebinding-protection",
];

let stack: Stack;
before(async () => {
  stack = await startStack({ jobs: false });
});
after(async () => {
  await stack?.stop();
});

function runScenario(scenario: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [cli, "server", "--url", `${stack.api.url}/mcp`, "--scenario", scenario],
      {
        env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
      },
    );
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe("MCP conformance (official suite)", () => {
  for (const scenario of SCENARIOS) {
    test(scenario, async () => {
      const { code, output } = await runScenario(scenario);
      assert.equal(code, 0, `${scenario} failed:\n${output}`);
      assert.match(output, /Passed: (\d+)\/\1, 0 failed/);
    });
  }
});
