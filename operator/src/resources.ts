import { createHash } from "node:crypto";
import type {
  V1Deployment,
  V1OwnerReference,
  V1PodDisruptionBudget,
  V1PodTemplateSpec,
  V1Service,
} from "@kubernetes/client-node";
import { API_VERSION, type BrowserPool, type BrowserPoolSpec, GROUP, KIND } from "./spec.ts";

export const FIELD_MANAGER = "browserfleet-operator";
export const POOL_LABEL = `${GROUP}/pool`;
export const HASH_ANNOTATION = `${GROUP}/applied-hash`;
export const DELETION_COST_ANNOTATION = "controller.kubernetes.io/pod-deletion-cost";

/** Labels on everything the operator creates for a pool. */
export function poolLabels(pool: string): Record<string, string> {
  return {
    "app.kubernetes.io/name": "browserfleet",
    "app.kubernetes.io/component": "browser",
    "app.kubernetes.io/instance": pool,
    "app.kubernetes.io/managed-by": FIELD_MANAGER,
    [POOL_LABEL]: pool,
  };
}

export function selectorLabels(pool: string): Record<string, string> {
  return { "app.kubernetes.io/component": "browser", [POOL_LABEL]: pool };
}

export const selectorString = (pool: string) =>
  Object.entries(selectorLabels(pool))
    .map(([k, v]) => `${k}=${v}`)
    .join(",");

export const deploymentName = (pool: string) => `${pool}-browser`;

export function ownerRef(pool: BrowserPool): V1OwnerReference {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    name: pool.metadata.name,
    uid: pool.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** A short hash of what the operator writes (without the size), to skip writes that change nothing. */
export function specHash(obj: unknown): string {
  return createHash("sha256").update(JSON.stringify(obj)).digest("hex").slice(0, 16);
}

const quantities = (q?: Record<string, string | number>) =>
  q ? Object.fromEntries(Object.entries(q).map(([k, v]) => [k, String(v)])) : undefined;

/** The Deployment of a pool's browser pods, at `replicas`. */
export function browserDeployment(pool: BrowserPool, spec: BrowserPoolSpec, replicas: number): V1Deployment {
  const name = pool.metadata.name;
  const labels = poolLabels(name);
  const template: V1PodTemplateSpec = {
    metadata: {
      labels: { ...spec.podLabels, ...labels },
      annotations: {
        "prometheus.io/scrape": "true",
        "prometheus.io/port": String(spec.metricsPort),
        "prometheus.io/path": "/metrics",
        ...spec.podAnnotations,
      },
    },
    spec: {
      serviceAccountName: spec.serviceAccountName,
      // Browser pods never talk to the Kubernetes API.
      automountServiceAccountToken: false,
      terminationGracePeriodSeconds: spec.terminationGracePeriodSeconds,
      enableServiceLinks: false,
      nodeSelector: spec.nodeSelector,
      tolerations: spec.tolerations,
      // Spread over nodes, so a node drained or lost takes a share of the pool's slots, not all of them;
      // preferred only, so a pool still grows on a node that is free. By hostname alone: the scheduler
      // ignores a soft constraint's preference on nodes that lack any of its keys, so adding a zone key
      // would undo the spread on clusters whose nodes have no zone label.
      topologySpreadConstraints: [
        {
          maxSkew: 1,
          topologyKey: "kubernetes.io/hostname",
          whenUnsatisfiable: "ScheduleAnyway",
          labelSelector: { matchLabels: selectorLabels(name) },
        },
      ],
      securityContext: {
        runAsNonRoot: true,
        runAsUser: 10001,
        runAsGroup: 10001,
        fsGroup: 10001,
        ...podConfinement(spec.sandbox),
      },
      containers: [
        {
          name: "browser",
          image: spec.image,
          imagePullPolicy: spec.imagePullPolicy,
          env: [
            { name: "WORKER_ID", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
            { name: "BROWSER_SLOTS", value: String(spec.slotsPerPod) },
            { name: "BROWSER_METRICS_PORT", value: String(spec.metricsPort) },
            { name: "SESSION_IDLE_TIMEOUT_MS", value: String(spec.sessionIdleTimeoutSeconds * 1000) },
            { name: "HOME", value: "/tmp" },
            { name: "BROWSER_SANDBOX", value: spec.sandbox.mode },
            ...(spec.env ?? []),
          ],
          envFrom: spec.envFrom,
          ports: [{ name: "metrics", containerPort: spec.metricsPort, protocol: "TCP" }],
          // /healthz answers 503 while the worker drains, so a draining pod leaves the Service and goes
          // first when the ReplicaSet shrinks; liveness only asks whether the process still listens.
          readinessProbe: {
            httpGet: { path: "/healthz", port: "metrics" },
            periodSeconds: 5,
            failureThreshold: 2,
          },
          livenessProbe: { tcpSocket: { port: "metrics" }, periodSeconds: 20, failureThreshold: 3 },
          resources: {
            requests: quantities(spec.resources.requests),
            limits: quantities(spec.resources.limits),
          },
          securityContext: {
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ["ALL"] },
          },
          volumeMounts: [
            { name: "tmp", mountPath: "/tmp" },
            { name: "dshm", mountPath: "/dev/shm" },
          ],
        },
      ],
      volumes: [
        { name: "tmp", emptyDir: { sizeLimit: "1Gi" } },
        { name: "dshm", emptyDir: { medium: "Memory", sizeLimit: "512Mi" } },
      ],
    },
  };
  const hash = specHash({ template, labels });
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      ...ownedMetadata(pool),
      annotations: { [HASH_ANNOTATION]: hash },
    },
    spec: {
      replicas,
      selector: { matchLabels: selectorLabels(name) },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: 0 } },
      template,
    },
  };
}

/** Name, namespace, labels and owner of everything the operator makes for a pool (all share one name). */
function ownedMetadata(pool: BrowserPool) {
  return {
    name: deploymentName(pool.metadata.name),
    namespace: pool.metadata.namespace,
    labels: poolLabels(pool.metadata.name),
    ownerReferences: [ownerRef(pool)],
  };
}

/** A headless Service over the pool's pods: their /metrics for Prometheus. */
export function browserService(pool: BrowserPool, spec: BrowserPoolSpec): V1Service {
  const name = pool.metadata.name;
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: ownedMetadata(pool),
    spec: {
      clusterIP: "None",
      selector: selectorLabels(name),
      ports: [{ name: "metrics", port: spec.metricsPort, targetPort: "metrics", protocol: "TCP" }],
    },
  };
}

/** At most one browser pod evicted at a time (node drains), so sessions move off slowly. */
export function browserPdb(pool: BrowserPool): V1PodDisruptionBudget {
  const name = pool.metadata.name;
  return {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: ownedMetadata(pool),
    spec: { maxUnavailable: 1, selector: { matchLabels: selectorLabels(name) } },
  };
}

/**
 * The pods' seccomp (and AppArmor) profile: the sandbox's own Localhost profile when the pool names one and
 * the sandbox is not off, else RuntimeDefault.
 */
export function podConfinement(sandbox: BrowserPoolSpec["sandbox"]): {
  seccompProfile: { type: "RuntimeDefault" } | { type: "Localhost"; localhostProfile: string };
  appArmorProfile?:
    | { type: "RuntimeDefault" | "Unconfined" }
    | { type: "Localhost"; localhostProfile: string };
} {
  const seccompProfile =
    sandbox.mode !== "off" && sandbox.seccompProfile
      ? { type: "Localhost" as const, localhostProfile: sandbox.seccompProfile }
      : { type: "RuntimeDefault" as const };
  const a = sandbox.appArmorProfile;
  if (a === undefined || sandbox.mode === "off") return { seccompProfile };
  const appArmorProfile =
    a === "Unconfined" || a === "RuntimeDefault"
      ? { type: a as "Unconfined" | "RuntimeDefault" }
      : { type: "Localhost" as const, localhostProfile: a };
  return { seccompProfile, appArmorProfile };
}
