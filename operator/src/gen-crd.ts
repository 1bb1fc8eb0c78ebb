/**
 * Writes the BrowserPool CRD, generated from the operator's zod schema, to crds/ and to the chart.
 * operator/test/crd.test.ts fails when the checked-in files differ from what this writes.
 *
 *   node --import tsx operator/src/gen-crd.ts
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import yaml from "js-yaml";
import { browserPoolCrd, CRD_NAME } from "./spec.ts";

export const CRD_FILES = [`crds/${CRD_NAME}.yaml`, `charts/browserfleet/crds/${CRD_NAME}.yaml`];

export function crdYaml(): string {
  return `# Generated from operator/src/spec.ts by operator/src/gen-crd.ts; do not edit.\n${yaml.dump(browserPoolCrd(), { lineWidth: 120, noRefs: true })}`;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const root = resolve(import.meta.dirname, "../..");
  for (const f of CRD_FILES) {
    writeFileSync(resolve(root, f), crdYaml());
    console.log(`wrote ${f}`);
  }
}
