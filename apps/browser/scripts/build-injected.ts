/**
 * Bundles each in-page program (src/injected/entries/<name>.ts, its default export) into
 * src/injected/generated/<name>.ts: one self-contained function expression with the entry's imports
 * inlined, wrapped by `inPage` so host code passes it to Playwright like a function.
 *
 *   npm run build:injected -w @browserfleet/browser            write the generated files
 *   npm run build:injected -w @browserfleet/browser -- --check exit 1 when one is stale
 *
 * The generated files are committed, so `tsx` in development, the image's esbuild bundle and the tests
 * all run the same text; test/injected-bundles.test.ts fails when one is stale.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const INJECTED = fileURLToPath(new URL("../src/injected/", import.meta.url));
const ENTRIES = join(INJECTED, "entries");
const GENERATED = join(INJECTED, "generated");
/** Chromium as Playwright ships it and Debian's; both are far newer than this. */
const TARGET = "chrome120";
const GLOBAL = "__bfEntry";

export interface GeneratedFile {
  name: string;
  path: string;
  text: string;
}

export function entryNames(): string[] {
  return readdirSync(ENTRIES)
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
    .map((f) => basename(f, ".ts"))
    .sort();
}

/** The function expression the page runs: the bundle, then a call of its default export with every argument. */
async function bundle(name: string): Promise<string> {
  const out = await build({
    entryPoints: [join(ENTRIES, `${name}.ts`)],
    bundle: true,
    write: false,
    format: "iife",
    globalName: GLOBAL,
    platform: "browser",
    target: TARGET,
    minify: true,
    legalComments: "none",
    charset: "utf8",
  });
  // A "use strict" directive is a syntax error in a function with a rest parameter; page code runs as written.
  const code = out.outputFiles[0]!.text.trim().replace(/^"use strict";/, "");
  return `(...a)=>{${code}return ${GLOBAL}.default(...a)}`;
}

export async function generatedFiles(): Promise<GeneratedFile[]> {
  return Promise.all(
    entryNames().map(async (name) => ({
      name,
      path: join(GENERATED, `${name}.ts`),
      text: [
        `// Generated from ../entries/${name}.ts by \`npm run build:injected -w @browserfleet/browser\`. Do not edit.`,
        `import type run from "../entries/${name}.ts";`,
        `import { inPage } from "../in-page.ts";`,
        "",
        `export default inPage<typeof run>(${JSON.stringify(name)}, ${JSON.stringify(await bundle(name))});`,
        "",
      ].join("\n"),
    })),
  );
}

export function staleFiles(files: GeneratedFile[]): string[] {
  const wanted = new Set(files.map((f) => `${f.name}.ts`));
  const extra = readdirSync(GENERATED).filter((f) => f.endsWith(".ts") && !wanted.has(f));
  const stale = files.filter((f) => {
    try {
      return readFileSync(f.path, "utf8") !== f.text;
    } catch {
      return true;
    }
  });
  return [...stale.map((f) => f.name), ...extra.map((f) => `${f} (no entry)`)];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = await generatedFiles();
  if (process.argv.includes("--check")) {
    const stale = staleFiles(files);
    if (stale.length) {
      console.error(
        `stale in-page bundles: ${stale.join(", ")}; run npm run build:injected -w @browserfleet/browser`,
      );
      process.exit(1);
    }
  } else {
    for (const f of readdirSync(GENERATED)) if (f.endsWith(".ts")) rmSync(join(GENERATED, f));
    for (const f of files) writeFileSync(f.path, f.text);
    console.log(`${files.length} in-page bundles written`);
  }
}
