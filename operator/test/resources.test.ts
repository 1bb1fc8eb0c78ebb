import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  browserDeployment,
  browserPdb,
  browserService,
  HASH_ANNOTATION,
  selectorLabels,
  selectorString,
} from "../src/resources.ts";
import { type BrowserPool, parseSpec } from "../src/spec.ts";

const pool: BrowserPool = {
  apiVersion: "browserfleet.dev/v1alpha1",
  kind: "BrowserPool",
  metadata: { name: "web", namespace: "fleet", uid: "uid-1", generation: 1 },
  spec: { image: "browserfleet/browser:1", slotsPerPod: 3, sessionIdleTimeoutSeconds: 60 },
};
const spec = () => {
  const r = parseSpec(pool.spec);
  assert.ok(r.ok);
  return r.spec;
};

describe("what the operator writes for a pool", () => {
  it("a Deployment of browser pods whose worker id is the pod name", () => {
    const d = browserDeployment(pool, spec(), 3);
    assert.equal(d.metadata?.name, "web-browser");
    assert.equal(d.spec?.replicas, 3);
    assert.deepEqual(d.spec?.selector.matchLabels, selectorLabels("web"));
    const pod = d.spec!.template.spec!;
    const c = pod.containers[0]!;
    const env = Object.fromEntries(
      (c.env ?? []).map((e) => [e.name, e.value ?? e.valueFrom?.fieldRef?.fieldPath]),
    );
    assert.equal(env.WORKER_ID, "metadata.name");
    assert.equal(env.BROWSER_SLOTS, "3");
    assert.equal(env.SESSION_IDLE_TIMEOUT_MS, "60000");
    assert.equal(pod.automountServiceAccountToken, false);
    assert.equal(pod.securityContext?.runAsNonRoot, true);
    assert.equal(c.securityContext?.readOnlyRootFilesystem, true);
    assert.deepEqual(c.securityContext?.capabilities?.drop, ["ALL"]);
    assert.equal(c.readinessProbe?.httpGet?.path, "/healthz");
    assert.deepEqual(c.resources?.requests, { cpu: "500m", memory: "1Gi" });
    // Spread over nodes, preferred: a drained node takes a share of the pool, not all of it.
    const byHost = pod.topologySpreadConstraints?.find((t) => t.topologyKey === "kubernetes.io/hostname");
    assert.equal(byHost?.whenUnsatisfiable, "ScheduleAnyway");
    assert.deepEqual(byHost?.labelSelector?.matchLabels, selectorLabels("web"));
  });

  it("sandboxed pods run the pool's seccomp profile, with no privilege and no capability added", () => {
    const withSpec = (sandbox: object) => {
      const r = parseSpec({ ...pool.spec, sandbox });
      assert.ok(r.ok);
      const pod = browserDeployment(pool, r.spec, 1).spec!.template.spec!;
      const c = pod.containers[0]!;
      const env = Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]));
      return { pod, c, mode: env.BROWSER_SANDBOX };
    };
    const plain = withSpec({});
    assert.equal(plain.mode, "auto");
    assert.deepEqual(plain.pod.securityContext?.seccompProfile, { type: "RuntimeDefault" });
    const on = withSpec({
      mode: "on",
      seccompProfile: "browserfleet/chromium-v1.json",
      appArmorProfile: "Unconfined",
    });
    assert.equal(on.mode, "on");
    assert.deepEqual(on.pod.securityContext?.seccompProfile, {
      type: "Localhost",
      localhostProfile: "browserfleet/chromium-v1.json",
    });
    assert.deepEqual(on.pod.securityContext?.appArmorProfile, { type: "Unconfined" });
    assert.equal(on.c.securityContext?.privileged, undefined);
    assert.equal(on.c.securityContext?.allowPrivilegeEscalation, false);
    assert.deepEqual(on.c.securityContext?.capabilities, { drop: ["ALL"] });
    const off = withSpec({ mode: "off", seccompProfile: "browserfleet/chromium-v1.json" });
    assert.deepEqual(off.pod.securityContext?.seccompProfile, { type: "RuntimeDefault" });
  });

  it("owner references on everything, pointing at the pool as controller", () => {
    for (const o of [browserDeployment(pool, spec(), 1), browserService(pool, spec()), browserPdb(pool)]) {
      assert.deepEqual(o.metadata?.ownerReferences, [
        {
          apiVersion: "browserfleet.dev/v1alpha1",
          kind: "BrowserPool",
          name: "web",
          uid: "uid-1",
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      assert.equal(o.metadata?.namespace, "fleet");
    }
  });

  it("a hash that ignores the size and follows the pod template", () => {
    const a = browserDeployment(pool, spec(), 1).metadata?.annotations?.[HASH_ANNOTATION];
    const b = browserDeployment(pool, spec(), 7).metadata?.annotations?.[HASH_ANNOTATION];
    assert.equal(a, b);
    const other = parseSpec({ ...pool.spec, image: "browserfleet/browser:2" });
    assert.ok(other.ok);
    assert.notEqual(browserDeployment(pool, other.spec, 1).metadata?.annotations?.[HASH_ANNOTATION], a);
  });

  it("a headless metrics Service and a PDB over the same pods", () => {
    assert.equal(browserService(pool, spec()).spec?.clusterIP, "None");
    assert.deepEqual(browserPdb(pool).spec?.selector?.matchLabels, selectorLabels("web"));
    assert.equal(selectorString("web"), "app.kubernetes.io/component=browser,browserfleet.dev/pool=web");
  });
});
