import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, it } from "node:test";
import yaml from "js-yaml";
import { CRD_FILES, crdYaml } from "../src/gen-crd.ts";
import { browserPoolCrd, CROSS_FIELD_RULES, parseSpec } from "../src/spec.ts";

const root = resolve(import.meta.dirname, "../..");
// biome-ignore lint/suspicious/noExplicitAny: walking a JSON schema
type Schema = any;

/** What the API server does with `default`: fill absent fields, then descend (structural defaulting). */
function applyDefaults(schema: Schema, value: unknown): unknown {
  if (schema?.type !== "object" || !schema.properties) return value;
  const obj = { ...(value as Record<string, unknown>) };
  for (const [key, sub] of Object.entries<Schema>(schema.properties)) {
    if (obj[key] === undefined && sub.default !== undefined) obj[key] = structuredClone(sub.default);
    if (obj[key] !== undefined) obj[key] = applyDefaults(sub, obj[key]);
  }
  return obj;
}

const specSchema = (): Schema =>
  (browserPoolCrd() as Schema).spec.versions[0].schema.openAPIV3Schema.properties.spec;

describe("BrowserPool CRD", () => {
  it("is checked in exactly as generated from the zod schema (run operator/src/gen-crd.ts)", () => {
    for (const f of CRD_FILES) assert.equal(readFileSync(resolve(root, f), "utf8"), crdYaml(), f);
    assert.deepEqual(yaml.load(crdYaml()), browserPoolCrd());
  });

  it("defaults a minimal spec to exactly what the operator's zod schema makes of it", () => {
    const minimal = { image: "browserfleet/browser:1" };
    const parsed = parseSpec(minimal);
    assert.ok(parsed.ok);
    assert.deepEqual(applyDefaults(specSchema(), minimal), parsed.spec);
  });

  it("has the same fields, required fields and bounds as zod", () => {
    const s = specSchema();
    assert.deepEqual(s.required, ["image"]);
    for (const [name, prop] of Object.entries<Schema>(s.properties)) {
      if (prop.type !== "integer") continue;
      // One below the minimum and one above the maximum are refused by zod as by the CRD.
      const base = { image: "x", minReplicas: 0, maxReplicas: 1000 };
      if (prop.minimum !== undefined)
        assert.equal(parseSpec({ ...base, [name]: prop.minimum - 1 }).ok, false, `${name} < ${prop.minimum}`);
      if (prop.maximum !== undefined)
        assert.equal(parseSpec({ ...base, [name]: prop.maximum + 1 }).ok, false, `${name} > ${prop.maximum}`);
    }
  });

  it("carries every cross-field rule as CEL, and zod applies the same rule", () => {
    assert.deepEqual(
      specSchema()["x-kubernetes-validations"],
      CROSS_FIELD_RULES.map((r) => ({ rule: r.cel, message: r.message })),
    );
    const bad = parseSpec({ image: "x", minReplicas: 5, maxReplicas: 2 });
    assert.equal(bad.ok, false);
    assert.match(bad.ok ? "" : bad.message, /minReplicas must not be greater than maxReplicas/);
  });

  it("is a structural schema: no JSON-Schema-only keywords the API server refuses", () => {
    const text = JSON.stringify(browserPoolCrd());
    for (const word of ["$schema", "propertyNames", '"anyOf"', '"oneOf"', '"const"', "$ref"])
      assert.ok(!text.includes(word), `CRD contains ${word}`);
    const crd = browserPoolCrd() as Schema;
    const v = crd.spec.versions[0];
    assert.deepEqual(v.subresources.status, {});
    assert.ok(v.additionalPrinterColumns.some((c: Schema) => c.name === "Backlog"));
  });
});
