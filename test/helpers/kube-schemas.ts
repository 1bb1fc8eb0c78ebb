/**
 * JSON schemas for kubeconform, offline: generated from the test API server's own OpenAPI document (the
 * Kubernetes release the tests run), plus our CRD, in kubeconform's file naming
 * (`<kind>-<group>-<version>.json`, `-strict`: no unknown fields).
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { KubeCluster } from "./kube.ts";

// biome-ignore lint/suspicious/noExplicitAny: JSON schema documents
type Json = any;

export function kindFile(kind: string, apiVersion: string): string {
  const [groupOrVersion, version] = apiVersion.split("/");
  const suffix = version
    ? `-${groupOrVersion!.split(".")[0]!.toLowerCase()}-${version.toLowerCase()}`
    : `-${groupOrVersion!.toLowerCase()}`;
  return `${kind.toLowerCase()}${suffix}.json`;
}

const INT_OR_STRING = { oneOf: [{ type: "string" }, { type: "integer" }] };
const QUANTITY = { oneOf: [{ type: "string" }, { type: "number" }] };

/** Inline every $ref (standalone schemas), with strict objects, int-or-string and quantities. */
function standalone(defs: Record<string, Json>, node: Json, depth = 0, seen: string[] = []): Json {
  if (Array.isArray(node)) return node.map((n) => standalone(defs, n, depth, seen));
  if (!node || typeof node !== "object") return node;
  if (typeof node.$ref === "string") {
    const name = node.$ref.replace("#/definitions/", "");
    if (name === "io.k8s.apimachinery.pkg.util.intstr.IntOrString") return INT_OR_STRING;
    if (name === "io.k8s.apimachinery.pkg.api.resource.Quantity") return QUANTITY;
    // A recursive type (JSONSchemaProps) ends in "anything" after the first round.
    if (seen.includes(name) || depth > 40) return {};
    return standalone(defs, defs[name] ?? {}, depth + 1, [...seen, name]);
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "x-kubernetes-group-version-kind" || k.startsWith("x-kubernetes-patch")) continue;
    out[k] = typeof v === "object" ? standalone(defs, v, depth, seen) : v;
  }
  if (out.format === "int-or-string") return INT_OR_STRING;
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

/** A CRD version's openAPIV3Schema as a strict JSON schema. */
export function crdJsonSchema(schema: Json): Json {
  const walk = (n: Json): Json => {
    if (Array.isArray(n)) return n.map(walk);
    if (!n || typeof n !== "object") return n;
    if (n["x-kubernetes-int-or-string"]) return INT_OR_STRING;
    const out: Json = {};
    for (const [k, v] of Object.entries(n)) if (!k.startsWith("x-kubernetes")) out[k] = walk(v);
    if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
    return out;
  };
  const s = walk(schema);
  s.properties.metadata = { type: "object" };
  return s;
}

/**
 * Write the schemas of every kind the API server serves into `dir` (once; reused when present). Returns
 * the kubeconform -schema-location template for it.
 */
export async function writeKubeconformSchemas(
  cluster: KubeCluster,
  dir: string,
  crds: Json[],
): Promise<string> {
  await mkdir(dir, { recursive: true });
  if (!existsSync(join(dir, "deployment-apps-v1.json"))) {
    const r = await cluster.api("GET", "/openapi/v2");
    if (r.status !== 200) throw new Error(`GET /openapi/v2: ${r.status}`);
    const defs: Record<string, Json> = r.body.definitions;
    for (const def of Object.values(defs)) {
      const gvks: Json[] = def["x-kubernetes-group-version-kind"] ?? [];
      for (const gvk of gvks) {
        const apiVersion = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
        const s = standalone(defs, def);
        s.$schema = "http://json-schema.org/schema#";
        await writeFile(join(dir, kindFile(gvk.kind, apiVersion)), JSON.stringify(s));
      }
    }
  }
  for (const crd of crds)
    for (const v of crd.spec.versions)
      await writeFile(
        join(dir, kindFile(crd.spec.names.kind, `${crd.spec.group}/${v.name}`)),
        JSON.stringify(crdJsonSchema(v.schema.openAPIV3Schema)),
      );
  return `${dir}/{{ .ResourceKind }}{{ .KindSuffix }}.json`;
}
