/**
 * Each workspace declares what it imports: `npm run lint` (part of `npm test`) runs biome's
 * noUndeclaredDependencies, which reads the package.json nearest to each file. These tests run the
 * repository's biome.json on a throwaway workspace, so they fail if the rule is switched off or its
 * dev-only globs stop telling shipped code from tests.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";

const ROOT = resolve(import.meta.dirname, "../..");
const BIOME = join(ROOT, "node_modules", ".bin", "biome");

function writeJson(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

describe("an import its package.json does not declare", () => {
  let dir: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), "bf-declared-deps-"));
    const config = JSON.parse(readFileSync(join(ROOT, "biome.json"), "utf8"));
    // The throwaway folder is not a git checkout.
    writeJson(join(dir, "biome.json"), { ...config, vcs: { enabled: false } });
    writeJson(join(dir, "package.json"), {
      name: "fake-root",
      private: true,
      workspaces: ["packages/*"],
      devDependencies: { tsx: "*" },
    });
    writeJson(join(dir, "packages/widget/package.json"), {
      name: "@browserfleet/widget",
      private: true,
      type: "module",
      dependencies: { "@browserfleet/contracts": "*", zod: "*" },
      devDependencies: { esbuild: "*" },
    });
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Lints one file holding `source` with the repository's rules; the diagnostics when it fails. */
  function lint(file: string, source: string): { ok: boolean; output: string } {
    const path = join(dir, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, source);
    const run = spawnSync(BIOME, ["lint", "--colors=off", file], { cwd: dir, encoding: "utf8" });
    rmSync(path);
    return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
  }

  it("passes when the workspace declares the package, the workspace ones included", () => {
    const result = lint(
      "packages/widget/src/ok.ts",
      'import { contracts } from "@browserfleet/contracts";\nimport { z } from "zod";\n\nexport const both = [contracts, z];\n',
    );
    assert.ok(result.ok, result.output);
  });

  it("fails on a package no package.json declares", () => {
    const result = lint(
      "packages/widget/src/server.ts",
      'import express from "express";\n\nexport const app = express();\n',
    );
    assert.equal(result.ok, false, "the lint passed");
    assert.match(result.output, /Dependency express isn't specified in packages\/widget\/package\.json/);
  });

  it("fails on a sibling workspace the package does not declare", () => {
    const result = lint(
      "packages/widget/src/bus.ts",
      'import { connect } from "@browserfleet/bus";\n\nexport const bus = connect;\n',
    );
    assert.equal(result.ok, false, "the lint passed");
    assert.match(result.output, /Dependency @browserfleet\/bus isn't specified/);
  });

  it("fails on a package only the root declares: the root does not speak for a workspace", () => {
    const result = lint(
      "packages/widget/src/loader.ts",
      'import { register } from "tsx/esm/api";\n\nregister();\n',
    );
    assert.equal(result.ok, false, "the lint passed");
    assert.match(result.output, /Dependency tsx isn't specified in packages\/widget\/package\.json/);
  });

  it("fails when shipped code (src/) imports a devDependency, which the images do not install", () => {
    const result = lint(
      "packages/widget/src/bundle.ts",
      'import { build } from "esbuild";\n\nexport const b = build;\n',
    );
    assert.equal(result.ok, false, "the lint passed");
    assert.match(result.output, /esbuild/);
  });

  it("lets a test import the workspace's devDependency", () => {
    const result = lint(
      "packages/widget/test/bundle.test.ts",
      'import { build } from "esbuild";\n\nexport const b = build;\n',
    );
    assert.ok(result.ok, result.output);
  });

  it("counts a type-only import and a re-export as imports", () => {
    const typeOnly = lint(
      "packages/widget/src/types.ts",
      'import type { Page } from "playwright-core";\n\nexport type P = Page;\n',
    );
    assert.equal(typeOnly.ok, false, "the lint passed");
    const reExport = lint("packages/widget/src/again.ts", 'export { Agent } from "undici";\n');
    assert.equal(reExport.ok, false, "the lint passed");
  });
});

describe("the repository's package.json files", () => {
  const manifests = [
    "package.json",
    ...["apps", "packages"].flatMap((group) =>
      readdirSync(join(ROOT, group)).map((name) => join(group, name, "package.json")),
    ),
    "operator/package.json",
  ].map((file) => ({ file, json: JSON.parse(readFileSync(join(ROOT, file), "utf8")) }));

  it("give a package the same version range wherever they declare it (one copy of zod, one prom-client registry)", () => {
    const declared = new Map<string, { range: string; file: string }[]>();
    for (const { file, json } of manifests) {
      for (const section of ["dependencies", "devDependencies", "optionalDependencies"]) {
        for (const [name, range] of Object.entries<string>(json[section] ?? {})) {
          declared.set(name, [...(declared.get(name) ?? []), { range, file }]);
        }
      }
    }
    const differing = [...declared]
      .filter(([, places]) => new Set(places.map((p) => p.range)).size > 1)
      .map(([name, places]) => `${name}: ${places.map((p) => `${p.range} in ${p.file}`).join(", ")}`);
    assert.deepEqual(differing, []);
  });
});
