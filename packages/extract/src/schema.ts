import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: true });
addFormats.default(ajv);

/** Compiled validators by the schema's JSON, so a batch of pages compiles its schema once. */
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 500;

/** A validator for a caller's JSON Schema (draft 2020-12, which also reads draft-07 style schemas). */
export function validatorFor(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  let v = compiled.get(key);
  if (!v) {
    v = ajv.compile(schema);
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value as string);
    compiled.set(key, v);
  }
  return v;
}

/** Why a caller's schema cannot be used, or undefined when it can. */
export function schemaProblem(schema: Record<string, unknown>): string | undefined {
  try {
    validatorFor(schema);
    return undefined;
  } catch (err) {
    return `json.schema is not a usable JSON Schema: ${(err as Error).message}`;
  }
}

/** The first few validation errors, as one readable line. */
export function describeErrors(v: ValidateFunction): string {
  return (v.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || "(root)"} ${e.message ?? "is invalid"}`)
    .join("; ");
}
