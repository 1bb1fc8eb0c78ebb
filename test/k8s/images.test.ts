/**
 * The images, without a Docker engine: the one Dockerfile is multi-stage with a target per program, each
 * target runs as non-root and carries its own program's bundle only; the four programs are bundled here
 * with the very esbuild command the Dockerfile runs, and each bundle is then started to show that its
 * whole module graph loads (it stops at its configuration check). skaffold.yaml builds every target and
 * hands every image to the chart. (test/containers builds and runs the real images.)
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import yaml from "js-yaml";
import { DOCKERFILE, PROGRAMS as TARGETS } from "../../scripts/images.ts";
import { type Json, ROOT } from "../helpers/kube.ts";

const PROGRAMS = [
  { name: "api", port: 8080, refuses: /DATABASE_URL|NATS_URL|failed to start/ },
  { name: "jobs", port: 9465, refuses: /NATS_URL and DATABASE_URL are required/ },
  { name: "browser", port: 9464, refuses: /NATS_URL is required/ },
  { name: "operator", port: 8081, refuses: /bad configuration: NATS_URL/ },
] as const;

interface Stage {
  from: string;
  name: string;
  /** The stage's instructions, continuation lines joined, comments left out. */
  lines: string[];
}

/** The Dockerfile's stages, in order. */
function stages(text: string): Stage[] {
  const out: Stage[] = [];
  const logical = text
    .replace(/\\\n/g, " ")
    .split("\n")
    .filter((l) => l.trim() !== "" && !l.startsWith("#"));
  for (const line of logical) {
    const from = /^FROM (\S+)(?: AS (\S+))?$/.exec(line);
    if (from) out.push({ from: from[1]!, name: from[2] ?? "", lines: [] });
    else out.at(-1)?.lines.push(line);
  }
  return out;
}

/**
 * A target's instructions, its parent stages' first (what the image is made of); a `COPY --from=<stage>
 * /app /app` stands for that stage's own copies into /app.
 */
function chain(all: Stage[], name: string): string[] {
  const stage = all.find((s) => s.name === name);
  assert.ok(stage, `the Dockerfile has a stage ${name}`);
  const own = stage.lines.flatMap((l) => {
    const whole = /^COPY --from=(\S+) \/app \/app$/.exec(l);
    return whole ? chain(all, whole[1]!).filter((c) => c.startsWith("COPY ")) : [l];
  });
  return [...(all.some((s) => s.name === stage.from) ? chain(all, stage.from) : []), ...own];
}

function exec(cmd: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv }) {
  return new Promise<{ code: number; out: string }>((resolve) => {
    execFile(cmd, args, { ...opts, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

describe("images", { timeout: 300_000 }, () => {
  const text = readFileSync(join(ROOT, DOCKERFILE), "utf8");
  const all = stages(text);
  let out: string;

  before(async () => {
    out = await mkdtemp(join(tmpdir(), "bf-images-"));
  });
  after(async () => {
    await rm(out, { recursive: true, force: true });
  });

  it("one multi-stage Dockerfile on Node 24 with a target per program", () => {
    assert.deepEqual(Object.values(TARGETS).sort(), PROGRAMS.map((p) => p.name).sort());
    for (const p of PROGRAMS)
      assert.ok(
        all.some((s) => s.name === p.name),
        `a target ${p.name}`,
      );
    // Node 24 by default (Node 20's life ended in April 2026), the base still overridable.
    assert.match(text, /^ARG NODE_IMAGE=node:24-bookworm-slim$/m);
    assert.match(text, /target: 'node24'/);
    assert.match(text, /--omit=dev/);
    // The dependencies are installed with npm's cache mounted, once for the build and once for run time.
    assert.equal((text.match(/^RUN --mount=type=cache,target=\/root\/\.npm npm ci /gm) ?? []).length, 2);
    // One bundle step for all four programs.
    assert.equal((text.match(/import\('esbuild'\)/g) ?? []).length, 1);
  });

  it("the bundle step bundles every program into its own folder", async () => {
    const script = /RUN node -e "(.+?)"\n\n/s
      .exec(text)?.[1]
      ?.replace(/\\\n\s*/g, "")
      .replace(/\\"/g, '"');
    assert.ok(script, "the bundle step");
    const build = await exec(
      process.execPath,
      ["-e", script.replace("outdir: 'dist'", `outdir: ${JSON.stringify(out)}`)],
      { cwd: ROOT },
    );
    assert.equal(build.code, 0, build.out);
    for (const p of PROGRAMS) {
      const main = join(out, p.name, "main.mjs");
      assert.ok(existsSync(main), `dist/${p.name}/main.mjs`);
      assert.ok(existsSync(`${main}.map`), `dist/${p.name}/main.mjs.map`);
      // packages/markdown's pool starts its worker threads from worker-entry.mjs beside the bundle.
      if (readFileSync(main, "utf8").includes("worker-entry.mjs"))
        assert.ok(
          existsSync(join(out, p.name, "worker-entry.mjs")),
          `the markdown worker entry of ${p.name}`,
        );
    }
    // The patched linkedom and turndown are bundled (the runtime's unpatched copies are never loaded).
    const worker = join(out, "browser", "worker-entry.mjs");
    const sources: string[] = JSON.parse(readFileSync(`${worker}.map`, "utf8")).sources;
    for (const dep of ["linkedom", "turndown"]) {
      assert.ok(
        sources.some((f) => f.includes(`node_modules/${dep}/`)),
        `${dep} bundled`,
      );
      assert.doesNotMatch(readFileSync(worker, "utf8"), new RegExp(`from "${dep}"`));
    }
  });

  for (const p of PROGRAMS) {
    it(`${p.name}: non-root on a read-only root, its own bundle only, and its bundle loads`, async () => {
      const image = chain(all, p.name);
      assert.ok(image.includes("USER 10001:10001"), "runs as user 10001");
      assert.ok(
        image.some((l) => /^ENV .*\bHOME=\/tmp\b/.test(l) && /\bDATA_DIR=\/tmp\//.test(l)),
        "a read-only root needs HOME and DATA_DIR on the writable /tmp",
      );
      assert.ok(image.includes(`COPY --from=build /src/dist/${p.name} dist`), "its own bundle");
      assert.deepEqual(
        image.filter((l) => /^COPY --from=build \/src\/dist/.test(l)),
        [`COPY --from=build /src/dist/${p.name} dist`],
        "no other program's bundle",
      );
      assert.ok(image.includes("WORKDIR /app"), "runs in /app");
      assert.ok(image.includes("COPY --from=deps /app/node_modules node_modules"), "production dependencies");
      // packages/db finds its migrations at ../migrations from the bundle.
      assert.ok(image.includes("COPY --from=build /src/packages/db/migrations migrations"), "the migrations");
      assert.ok(image.includes(`EXPOSE ${p.port}`), `exposes ${p.port}`);
      assert.equal(
        image.filter((l) => l.startsWith("CMD ")).at(-1),
        'CMD ["node", "--enable-source-maps", "dist/main.mjs"]',
      );
      const chromium = image.some((l) => /chromium fonts-liberation .* tini/.test(l));
      assert.equal(chromium, p.name === "browser", "Chromium, fonts and tini in the browser image only");

      const dist = join(out, p.name);
      assert.ok(existsSync(join(dist, "main.mjs")), "bundled by the test before");
      // The image's layout: dist/ beside node_modules.
      await symlink(join(ROOT, "node_modules"), join(dist, "node_modules"));
      const run = await exec(process.execPath, [join(dist, "main.mjs")], {
        cwd: dist,
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
    });
  }

  it("skaffold.yaml builds every target and deploys the chart with those images", () => {
    const s = yaml.load(readFileSync(join(ROOT, "skaffold.yaml"), "utf8")) as Json;
    assert.equal(s.apiVersion, "skaffold/v4beta11");
    const artifacts: Json[] = s.build.artifacts;
    for (const a of artifacts) {
      assert.equal(a.context, ".");
      assert.equal(a.docker.dockerfile, DOCKERFILE);
      assert.equal(a.image, `browserfleet/${a.docker.target}`);
    }
    assert.deepEqual(artifacts.map((a) => a.docker.target).sort(), PROGRAMS.map((p) => p.name).sort());
    const release = s.deploy.helm.releases[0];
    assert.ok(existsSync(join(ROOT, release.chartPath, "Chart.yaml")), "the chart");
    const values = yaml.load(readFileSync(join(ROOT, release.chartPath, "values.yaml"), "utf8")) as Json;
    for (const a of artifacts) {
      const name = a.image.split("/").pop();
      assert.ok(values.images[name], `the chart has images.${name}`);
      assert.match(release.setValueTemplates[`images.${name}.repository`], /IMAGE_REPO_/);
      assert.match(release.setValueTemplates[`images.${name}.tag`], /IMAGE_TAG_/);
    }
    assert.ok(
      s.profiles.some((p: Json) => p.name === "dev"),
      "a dev profile",
    );
  });
});
