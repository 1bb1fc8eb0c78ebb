/**
 * Bundles the pages the api serves to people (src/web-ui/pages/<name>.ts and <name>.css: the live view,
 * later the console) into src/web-ui/generated/assets.ts: each file's text, type and content hash, so the
 * api serves them from memory with no CDN and no build at start.
 *
 *   npm run build:web-ui -w @browserfleet/api            write the generated file
 *   npm run build:web-ui -w @browserfleet/api -- --check exit 1 when it is stale
 *
 * The generated file is committed, so `tsx`, the image's bundle and the tests serve the same bytes;
 * test/web-ui-bundles.test.ts fails when it is stale.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const UI = fileURLToPath(new URL("../src/web-ui/", import.meta.url));
const PAGES = join(UI, "pages");
export const GENERATED = join(UI, "generated", "assets.ts");
/** Browsers of the last few years (people open these pages, not only our Chromium). */
const TARGET = ["chrome111", "firefox111", "safari16"];

export interface BuiltAsset {
  name: string;
  type: string;
  body: string;
}

async function bundle(file: string): Promise<string> {
  const out = await build({
    entryPoints: [join(PAGES, file)],
    bundle: true,
    write: false,
    format: extname(file) === ".ts" ? "iife" : undefined,
    platform: "browser",
    target: TARGET,
    minify: true,
    legalComments: "none",
    charset: "utf8",
    jsx: "preserve",
  });
  return out.outputFiles[0]!.text;
}

export async function builtAssets(): Promise<BuiltAsset[]> {
  const files = readdirSync(PAGES)
    .filter((f) => f.endsWith(".ts") || f.endsWith(".css"))
    .sort();
  return Promise.all(
    files.map(async (f) => ({
      name: `${basename(f, extname(f))}.${f.endsWith(".ts") ? "js" : "css"}`,
      type: f.endsWith(".ts") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8",
      body: await bundle(f),
    })),
  );
}

export function generatedText(assets: BuiltAsset[]): string {
  const entries = assets.map((a) => {
    const hash = createHash("sha256").update(a.body).digest("base64url").slice(0, 16);
    return `  ${JSON.stringify(a.name)}: { type: ${JSON.stringify(a.type)}, hash: ${JSON.stringify(hash)}, body: ${JSON.stringify(a.body)} },`;
  });
  return [
    "// Generated from ../pages by `npm run build:web-ui -w @browserfleet/api`. Do not edit.",
    "export const ASSETS: Record<string, { type: string; hash: string; body: string }> = {",
    ...entries,
    "};",
    "",
  ].join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const text = generatedText(await builtAssets());
  if (process.argv.includes("--check")) {
    let now = "";
    try {
      now = readFileSync(GENERATED, "utf8");
    } catch {}
    if (now !== text) {
      console.error("src/web-ui/generated/assets.ts is stale: run npm run build:web-ui -w @browserfleet/api");
      process.exit(1);
    }
  } else writeFileSync(GENERATED, text);
}
