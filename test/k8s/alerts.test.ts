/** The chart's alert rules, checked and unit-tested by promtool (Debian: apt-get install prometheus). */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import yaml from "js-yaml";
import { ROOT, run } from "../helpers/kube.ts";

const promtool = process.env.PROMTOOL_BIN ?? "promtool";
let missing: string | undefined;
try {
  execFileSync(promtool, ["--version"], { stdio: "ignore" });
} catch {
  missing = "promtool is not installed (Debian: apt-get install prometheus)";
}

describe("alert rules", { skip: missing, timeout: 120_000 }, () => {
  it("are valid rules (promtool check rules)", async () => {
    const { stdout } = await run(promtool, ["check", "rules", "charts/browserfleet/files/alerts.yaml"]);
    assert.match(stdout, /SUCCESS: \d+ rules found/);
  });

  it("fire when they should and stay quiet otherwise (promtool test rules)", async () => {
    const { stdout } = await run(promtool, ["test", "rules", "test/k8s/alerts.promtool.yaml"]);
    assert.match(stdout, /SUCCESS/);
  });

  it("every alert has a test", () => {
    const rules = yaml.load(readFileSync(join(ROOT, "charts/browserfleet/files/alerts.yaml"), "utf8")) as {
      groups: { rules: { alert: string }[] }[];
    };
    const tests = readFileSync(join(ROOT, "test/k8s/alerts.promtool.yaml"), "utf8");
    for (const r of rules.groups.flatMap((g) => g.rules))
      assert.ok(tests.includes(`alertname: ${r.alert}`), `${r.alert} has no promtool test`);
  });
});
