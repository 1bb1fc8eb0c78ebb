import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { entryNames, generatedFiles, staleFiles } from "../scripts/build-injected.ts";
import cssPath from "../src/injected/generated/css-path.ts";

const SRC = fileURLToPath(new URL("../src/", import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sourceFiles(join(dir, d.name)) : d.name.endsWith(".ts") ? [join(dir, d.name)] : [],
  );
}

describe("in-page code (src/injected)", () => {
  it("every generated bundle is the one its entry builds today", async () => {
    assert.deepEqual(
      staleFiles(await generatedFiles()),
      [],
      "run npm run build:injected -w @browserfleet/browser",
    );
  });

  it("every entry has a bundle, and a bundle is one function expression the page can parse", async () => {
    const files = await generatedFiles();
    assert.deepEqual(
      files.map((f) => f.name),
      entryNames(),
    );
    for (const f of files) {
      const source = f.text.match(/inPage<typeof run>\("[^"]+", (".*")\);/)?.[1];
      assert.ok(source, f.name);
      assert.equal(typeof new Function(`return (${JSON.parse(source)})`)(), "function", f.name);
    }
  });

  it("a bundle called in Node says it is for a page", () => {
    assert.throws(() => (cssPath as unknown as () => void)(), /css-path runs in a page/);
  });

  it("no code outside src/injected hands a function or source text of its own to the page", () => {
    // evaluate/evaluateAll/evaluateHandle/addInitScript/waitForFunction and selector engines must be given
    // a bundle (an identifier imported from injected/generated), never an inline function or string.
    const offenders: string[] = [];
    const call =
      /(?:\.(?:evaluate|evaluateAll|evaluateHandle|addInitScript|waitForFunction|\$eval|\$\$eval)\(|(?<!function )registerSelectorEngine\([^,]+,)\s*([^\s,)]+)/g;
    for (const file of sourceFiles(SRC)) {
      if (file.includes(`${join("src", "injected")}`)) continue;
      const text = readFileSync(file, "utf8");
      const bundles = new Set(
        [...text.matchAll(/import (\w+) from "[./]+(?:[\w-]+\/)*injected\/generated\/[\w-]+\.ts"/g)].map(
          (m) => m[1],
        ),
      );
      for (const m of text.matchAll(call)) {
        if (bundles.has(m[1]!)) continue;
        const line = text.slice(0, m.index).split("\n").length;
        offenders.push(`${file.slice(SRC.length)}:${line} ${m[0].replace(/\s+/g, " ")}`);
      }
    }
    assert.deepEqual(offenders, []);
  });
});
