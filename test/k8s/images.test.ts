/**
 * The images, without a Docker engine: each Dockerfile is multi-stage, runs as non-root and bundles its
 * program with the very esbuild command the Dockerfile runs; the bundle is then started here to show
 * that its whole module graph loads (it stops at its configuration check). skaffold.yaml builds every
 * Dockerfile and hands every image to the chart.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import yaml from "js-yaml";
import { type Json, ROOT } from "../helpers/kube.ts";

const PROGRAMS = [
  { name: "api", dockerfile: "apps/api/Dockerfile", refuses: /DATABASE_URL|NATS_URL|failed to start/ },
  { name: "jobs", dockerfile: "apps/jobs/Dockerfile", refuses: /NATS_URL and DATABASE_URL are required/ },
  { name: "browser", dockerfile: "apps/browser/Dockerfile", refuses: /NATS_URL is required/ },
  { name: "operator", dockerfile: "operator/Dockerfile", refuses: /bad configuration: NATS_URL/ },
];

function exec(cmd: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv }) {
  return new Promise<{ code: number; out: string }>((resolve) => {
    execFile(cmd, args, { ...opts, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

describe("images", { timeout: 300_000 }, () => {
  for (const p of PROGRAMS) {
    it(`${p.name}: multi-stage, non-root, and its bundle loads`, async () => {
      const text = readFileSync(join(ROOT, p.dockerfile), "utf8");
      assert.ok((text.match(/^FROM /gm) ?? []).length >= 3, "multi-stage");
      assert.match(text, /^USER 10001:10001$/m);
      // Node 24 by default (Node 20's life ended in April 2026), the base still overridable.
      assert.match(text, /^ARG NODE_IMAGE=node:24-bookworm-slim$/m);
      assert.match(text, /target: 'node24'/);
      assert.match(text, /HOME=\/tmp/, "a read-only root needs HOME on the writable /tmp");
      assert.match(text, /--omit=dev/);
      if (p.name === "browser") assert.match(text, /chromium fonts-liberation/);
      const env = Object.fromEntries(
        [...text.matchAll(/^ENV (.+)$/gm)].flatMap((m) =>
          m[1]!.split(/\s+/).map((kv) => kv.split("=") as [string, string]),
        ),
      );
      const script = /RUN node -e "(.+?)"\n\nFROM/s
        .exec(text)?.[1]
        ?.replace(/\\\n\s*/g, "")
        .replace(/\\"/g, '"');
      assert.ok(script && env.ENTRY, "the bundle step and its entry");
      const out = await mkdtemp(join(tmpdir(), `bf-image-${p.name}-`));
      try {
        const build = await exec(
          process.execPath,
          ["-e", script.replace("outdir: 'dist'", `outdir: ${JSON.stringify(out)}`)],
          {
            cwd: ROOT,
            env: { ...process.env, ENTRY: env.ENTRY, WORKER: env.WORKER ?? "" },
          },
        );
        assert.equal(build.code, 0, build.out);
        assert.ok(existsSync(join(out, "main.mjs")));
        if (env.WORKER) assert.ok(existsSync(join(out, "worker-entry.mjs")), "the markdown worker entry");
        // The image's layout: dist/ beside node_modules.
        await symlink(join(ROOT, "node_modules"), join(out, "node_modules"));
        const run = await exec(process.execPath, [join(out, "main.mjs")], {
          cwd: out,
          env: {
            PATH: process.env.PATH,
            ...(p.name === "api"
              ? { NATS_URL: "nats://127.0.0.1:1", DATABASE_URL: "postgres://x:y@127.0.0.1:1/z", PORT: "0" }
              : {}),
          },
        });
        assert.notEqual(run.code, 0);
        assert.match(run.out, p.refuses);
        assert.doesNotMatch(run.out, /ERR_MODULE_NOT_FOUND|Cannot find (module|package)/);
      } finally {
        await rm(out, { recursive: true, force: true });
      }
    });
  }

  it("skaffold.yaml builds every Dockerfile and deploys the chart with those images", () => {
    const s = yaml.load(readFileSync(join(ROOT, "skaffold.yaml"), "utf8")) as Json;
    assert.equal(s.apiVersion, "skaffold/v4beta11");
    const artifacts: Json[] = s.build.artifacts;
    assert.deepEqual(
      artifacts.map((a) => a.docker.dockerfile).sort(),
      PROGRAMS.map((p) => p.dockerfile).sort(),
    );
    const release = s.deploy.helm.releases[0];
    assert.ok(existsSync(join(ROOT, release.chartPath, "Chart.yaml")));
    const values = yaml.load(readFileSync(join(ROOT, release.chartPath, "values.yaml"), "utf8")) as Json;
    for (const a of artifacts) {
      const name = a.image.split("/").pop();
      assert.ok(values.images[name], `the chart has images.${name}`);
      assert.match(release.setValueTemplates[`images.${name}.repository`], /IMAGE_REPO_/);
      assert.match(release.setValueTemplates[`images.${name}.tag`], /IMAGE_TAG_/);
    }
    assert.ok(s.profiles.some((p: Json) => p.name === "dev"));
  });
});
