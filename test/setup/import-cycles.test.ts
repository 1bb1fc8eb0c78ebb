/**
 * No runtime import cycle in the service's own code. A cycle makes the order modules load in decide
 * whether a value is there yet (a `const` read before its module ran is a TDZ error, or undefined in a
 * bundle), and it means two folders cannot be understood apart. Type-only imports are left out: they
 * are erased before anything runs.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function tsFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory()
      ? tsFiles(join(dir, d.name))
      : /\.m?ts$/.test(d.name) && !d.name.endsWith(".d.ts")
        ? [join(dir, d.name)]
        : [],
  );
}

/** `@browserfleet/<x>` → the file its package.json exports as ".". */
function workspaceEntries(): Map<string, string> {
  const out = new Map<string, string>();
  for (const parent of ["packages", "apps"])
    for (const d of readdirSync(join(ROOT, parent))) {
      const manifest = join(ROOT, parent, d, "package.json");
      if (!existsSync(manifest)) continue;
      const pkg = JSON.parse(readFileSync(manifest, "utf8")) as {
        name: string;
        exports?: unknown;
        main?: string;
      };
      const dot =
        typeof pkg.exports === "string" ? pkg.exports : (pkg.exports as Record<string, unknown>)?.["."];
      const target = typeof dot === "string" ? dot : pkg.main;
      if (target) out.set(pkg.name, resolve(ROOT, parent, d, target));
    }
  return out;
}

/** The modules `file` loads when it runs: imports and re-exports that are not type-only. */
function runtimeImports(file: string): string[] {
  const src = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  for (const st of src.statements) {
    if (ts.isImportDeclaration(st)) {
      const c = st.importClause;
      if (c?.isTypeOnly) continue;
      const named = c?.namedBindings;
      const onlyTypes =
        c &&
        !c.name &&
        named &&
        ts.isNamedImports(named) &&
        named.elements.length > 0 &&
        named.elements.every((e) => e.isTypeOnly);
      if (!onlyTypes) out.push((st.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(st) && st.moduleSpecifier && !st.isTypeOnly) {
      const named = st.exportClause;
      if (
        named &&
        ts.isNamedExports(named) &&
        named.elements.length > 0 &&
        named.elements.every((e) => e.isTypeOnly)
      )
        continue;
      out.push((st.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return out;
}

/** Strongly connected components with more than one module (or a module importing itself). */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return found;
}

describe("module structure", () => {
  it("has no runtime import cycle in apps/, packages/ or operator/", () => {
    const entries = workspaceEntries();
    const files = [
      ...readdirSync(join(ROOT, "apps")).flatMap((d) => tsFiles(join(ROOT, "apps", d, "src"))),
      ...readdirSync(join(ROOT, "packages")).flatMap((d) => tsFiles(join(ROOT, "packages", d, "src"))),
      ...tsFiles(join(ROOT, "operator", "src")),
    ];
    assert.ok(files.length > 100, `found ${files.length} source files`);
    const graph = new Map<string, string[]>();
    for (const file of files) {
      const deps: string[] = [];
      for (const spec of runtimeImports(file)) {
        const target = spec.startsWith(".") ? resolve(dirname(file), spec) : entries.get(spec);
        if (target && existsSync(target)) deps.push(target);
      }
      graph.set(file, deps);
    }
    const rel = (f: string) => relative(ROOT, f);
    assert.deepEqual(
      cycles(graph).map((c) => c.map(rel)),
      [],
      "modules that import each other at run time (directly or through others)",
    );
  });
});
