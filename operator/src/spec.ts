import { z } from "zod";

/** The BrowserPool custom resource: its API group, version and names. */
export const GROUP = "browserfleet.dev";
export const VERSION = "v1alpha1";
export const API_VERSION = `${GROUP}/${VERSION}`;
export const KIND = "BrowserPool";
export const PLURAL = "browserpools";
export const SINGULAR = "browserpool";
export const SHORT_NAMES = ["bp", "bpool"];
export const CRD_NAME = `${PLURAL}.${GROUP}`;

const int = (min: number, max: number) => z.number().int().min(min).max(max);
/** A Kubernetes quantity ("500m", "1Gi", 2). */
const quantity = z.union([z.string().regex(/^[0-9.]+[a-zA-Z]*$/), z.number()]);

const scaleUp = z
  .object({
    /** At most this many pods are added in one decision. */
    maxStepPods: int(1, 1000).default(4),
    /** Scale up to the lowest recommendation of this window (0: at once). */
    stabilizationSeconds: int(0, 3600).default(0),
  })
  .meta({ description: "How fast the pool grows." });

const scaleDown = z
  .object({
    /** At most this many pods are removed in one decision. */
    maxStepPods: int(1, 1000).default(2),
    /** Scale down only to the highest recommendation of this window. */
    stabilizationSeconds: int(0, 86_400).default(300),
  })
  .meta({ description: "How fast the pool shrinks; it never shrinks below the peak of the window." });

const toleration = z.object({
  key: z.string().optional(),
  operator: z.enum(["Exists", "Equal"]).optional(),
  value: z.string().optional(),
  effect: z.enum(["NoSchedule", "PreferNoSchedule", "NoExecute"]).optional(),
  tolerationSeconds: z.number().int().optional(),
});

const envVar = z.object({ name: z.string().min(1), value: z.string().default("") });
const envFrom = z.object({
  secretRef: z.object({ name: z.string().min(1), optional: z.boolean().optional() }).optional(),
  configMapRef: z.object({ name: z.string().min(1), optional: z.boolean().optional() }).optional(),
});

/**
 * Rules across fields. Each is checked by zod (in the operator) and by the API server (as a CEL rule in
 * the CRD), from this one list.
 */
export const CROSS_FIELD_RULES = [
  {
    cel: "self.minReplicas <= self.maxReplicas",
    message: "minReplicas must not be greater than maxReplicas",
    path: ["minReplicas"],
    check: (s: { minReplicas: number; maxReplicas: number }) => s.minReplicas <= s.maxReplicas,
  },
] as const;

const specObject = z.object({
  /** The browser worker image (apps/browser). */
  image: z.string().min(1),
  imagePullPolicy: z.enum(["Always", "IfNotPresent", "Never"]).default("IfNotPresent"),
  /** Browser slots (contexts) per pod: BROWSER_SLOTS of each worker. */
  slotsPerPod: int(1, 64).default(4),
  minReplicas: int(0, 1000).default(1),
  maxReplicas: int(1, 1000).default(10),
  /** The share of slots the pool aims to keep busy, in percent. */
  targetUtilizationPercent: int(1, 100).default(80),
  scaleUp: scaleUp.prefault({}),
  scaleDown: scaleDown.prefault({}),
  /** Live sessions close after this long without an act (SESSION_IDLE_TIMEOUT_MS of the worker). */
  sessionIdleTimeoutSeconds: int(1, 86_400).default(300),
  /** Seconds a pod has to finish its tasks after SIGTERM. */
  terminationGracePeriodSeconds: int(1, 86_400).default(120),
  resources: z
    .object({
      requests: z.record(z.string(), quantity).optional(),
      limits: z.record(z.string(), quantity).optional(),
    })
    .default({ requests: { cpu: "500m", memory: "1Gi" }, limits: { memory: "2Gi" } }),
  nodeSelector: z.record(z.string(), z.string()).optional(),
  tolerations: z.array(toleration).optional(),
  /** Extra environment of the workers (NATS_URL usually comes from envFrom, a Secret of the chart). */
  env: z.array(envVar).optional(),
  envFrom: z.array(envFrom).optional(),
  serviceAccountName: z.string().optional(),
  /** Extra labels and annotations for the browser pods. */
  podLabels: z.record(z.string(), z.string()).optional(),
  podAnnotations: z.record(z.string(), z.string()).optional(),
  /** Port of the worker's /metrics and /healthz. */
  metricsPort: int(1, 65_535).default(9464),
  /**
   * Chromium's sandbox in the pods (BROWSER_SANDBOX of the workers). It needs a seccomp profile that lets
   * an unprivileged process make user, PID and network namespaces, which RuntimeDefault does not:
   * `seccompProfile` names one in the kubelet's seccomp folder (the chart installs its own on every node).
   * Without one the pods run RuntimeDefault, and `auto` runs Chromium unsandboxed, saying so in the log.
   */
  sandbox: z
    .object({
      mode: z.enum(["auto", "on", "off"]).default("auto"),
      /** A Localhost profile, relative to the kubelet's seccomp folder, e.g. browserfleet/chromium-v1.json. */
      seccompProfile: z.string().min(1).optional(),
      /**
       * AppArmor for the pods (Kubernetes 1.30+): nodes whose kernel forbids unprivileged user namespaces to
       * confined processes (Ubuntu 24.04) need Unconfined or a Localhost profile that allows `userns`.
       */
      appArmorProfile: z.string().min(1).optional(),
    })
    .prefault({}),
});

export const browserPoolSpecSchema = CROSS_FIELD_RULES.reduce(
  (schema, rule) => schema.refine(rule.check, { message: rule.message, path: [...rule.path] }),
  specObject as z.ZodType<z.output<typeof specObject>, z.input<typeof specObject>>,
);

export type BrowserPoolSpec = z.output<typeof specObject>;
export type BrowserPoolSpecInput = z.input<typeof specObject>;

const condition = z.object({
  type: z.string(),
  status: z.enum(["True", "False", "Unknown"]),
  reason: z.string(),
  message: z.string(),
  lastTransitionTime: z.string(),
  observedGeneration: z.number().int().optional(),
});
export type Condition = z.infer<typeof condition>;

export const browserPoolStatusSchema = z.object({
  observedGeneration: z.number().int().optional(),
  /** Pods the Deployment has, ready pods, and the size the operator wants. */
  replicas: z.number().int().optional(),
  readyReplicas: z.number().int().optional(),
  desiredReplicas: z.number().int().optional(),
  slots: z.number().int().optional(),
  busySlots: z.number().int().optional(),
  /** Browser tasks waiting or running (JetStream pending + ack pending). */
  backlog: z.number().int().optional(),
  sessions: z.number().int().optional(),
  lastScaleTime: z.string().optional(),
  lastScaleReason: z.string().optional(),
  selector: z.string().optional(),
  conditions: z.array(condition).optional(),
});
export type BrowserPoolStatus = z.infer<typeof browserPoolStatusSchema>;

export interface BrowserPool {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    generation?: number;
    resourceVersion?: string;
    deletionTimestamp?: string | Date;
    labels?: Record<string, string>;
  };
  spec: BrowserPoolSpecInput;
  status?: BrowserPoolStatus;
}

/** Parse a pool's spec; the error lists every problem in words. */
export function parseSpec(
  spec: unknown,
): { ok: true; spec: BrowserPoolSpec } | { ok: false; message: string } {
  const r = browserPoolSpecSchema.safeParse(spec ?? {});
  if (r.success) return { ok: true, spec: r.data };
  return {
    ok: false,
    message: r.error.issues.map((i) => `${i.path.join(".") || "spec"}: ${i.message}`).join("; "),
  };
}

// ---------------------------------------------------------------------------------------------------------
// The CRD, generated from the zod schemas above.

type Json = { [k: string]: unknown };

/**
 * JSON Schema (draft 2020-12, from zod) to the structural OpenAPI v3 subset the API server accepts:
 * no `$schema`, no `additionalProperties: false` (unknown fields are pruned anyway), boolean exclusive
 * bounds, quantities as int-or-string, no `anyOf` at the top of a property.
 */
export function toStructural(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toStructural);
  if (!node || typeof node !== "object") return node;
  const n = { ...(node as Json) };
  delete n.$schema;
  delete n.id;
  delete n.propertyNames;
  if (n.additionalProperties === false) delete n.additionalProperties;
  // Quantity: a string or a number becomes int-or-string.
  const alts = (n.anyOf ?? n.oneOf) as Json[] | undefined;
  if (alts && alts.length === 2) {
    const types = alts.map((a) => a.type).sort();
    if (types[0] === "number" && types[1] === "string") {
      const out: Json = { "x-kubernetes-int-or-string": true };
      if (n.description) out.description = n.description;
      return out;
    }
  }
  for (const key of ["exclusiveMinimum", "exclusiveMaximum"] as const) {
    if (typeof n[key] === "number") {
      n[key === "exclusiveMinimum" ? "minimum" : "maximum"] = n[key];
      n[key] = true;
    }
  }
  if (n.type === "integer" && n.maximum === Number.MAX_SAFE_INTEGER) delete n.maximum;
  if (n.type === "integer" && n.minimum === Number.MIN_SAFE_INTEGER) delete n.minimum;
  if (n.properties) {
    const props: Json = {};
    for (const [k, v] of Object.entries(n.properties as Json)) props[k] = toStructural(v);
    n.properties = props;
  }
  if (n.items) n.items = toStructural(n.items);
  if (n.additionalProperties && typeof n.additionalProperties === "object")
    n.additionalProperties = toStructural(n.additionalProperties);
  return n;
}

/** The OpenAPI v3 schema of spec, as the API server gets it (defaults included). */
export function specOpenApi(): Json {
  const js = z.toJSONSchema(specObject, { io: "input", unrepresentable: "any" }) as Json;
  const out = toStructural(js) as Json;
  out.description = "Capacity of a pool of browser pods, and how the operator sizes it.";
  out["x-kubernetes-validations"] = CROSS_FIELD_RULES.map((r) => ({
    rule: r.cel,
    message: r.message,
  }));
  return out;
}

export function statusOpenApi(): Json {
  const js = z.toJSONSchema(browserPoolStatusSchema, { io: "input" }) as Json;
  const out = toStructural(js) as Json;
  const props = out.properties as Json;
  props.conditions = {
    ...(props.conditions as Json),
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": ["type"],
  };
  return out;
}

/** The CustomResourceDefinition of BrowserPool (crds/ and the chart carry this, checked by a test). */
export function browserPoolCrd(): Json {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: CRD_NAME },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: {
        kind: KIND,
        listKind: `${KIND}List`,
        plural: PLURAL,
        singular: SINGULAR,
        shortNames: SHORT_NAMES,
      },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          // Status only: the operator decides the size, so there is no scale subresource for an HPA to fight over.
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: "Min", type: "integer", jsonPath: ".spec.minReplicas" },
            { name: "Max", type: "integer", jsonPath: ".spec.maxReplicas" },
            { name: "Desired", type: "integer", jsonPath: ".status.desiredReplicas" },
            { name: "Ready", type: "integer", jsonPath: ".status.readyReplicas" },
            { name: "Busy", type: "integer", jsonPath: ".status.busySlots" },
            { name: "Slots", type: "integer", jsonPath: ".status.slots" },
            { name: "Backlog", type: "integer", jsonPath: ".status.backlog" },
            { name: "Sessions", type: "integer", jsonPath: ".status.sessions" },
            { name: "Status", type: "string", jsonPath: ".status.conditions[?(@.type=='Ready')].reason" },
            { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
          ],
          schema: {
            openAPIV3Schema: {
              type: "object",
              description:
                "A pool of browser worker pods (Chromium + Playwright) that the Browserfleet operator sizes from the task backlog and slot use.",
              required: ["spec"],
              properties: {
                apiVersion: { type: "string" },
                kind: { type: "string" },
                metadata: { type: "object" },
                spec: specOpenApi(),
                status: statusOpenApi(),
              },
            },
          },
        },
      ],
    },
  };
}
