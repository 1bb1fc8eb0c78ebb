import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  type Informer,
  type KubeConfig,
  type KubernetesObject,
  makeInformer,
  type ObjectCache,
  type V1Deployment,
  type V1Pod,
} from "@kubernetes/client-node";
import { errorText } from "./kube.ts";
import { FIELD_MANAGER, POOL_LABEL } from "./resources.ts";
import { type BrowserPool, GROUP, PLURAL, VERSION } from "./spec.ts";

export type Cached<T extends KubernetesObject> = Informer<T> & ObjectCache<T>;

export interface PoolInformers {
  pools: Cached<BrowserPool & KubernetesObject>;
  /** The Deployments the operator manages. */
  deployments: Cached<V1Deployment>;
  /** Pods that carry a pool label. */
  pods: Cached<V1Pod>;
}

/** Watched caches of the pools and what the operator made for them, in one namespace or all. */
export function poolInformers(kc: KubeConfig, namespace: string | undefined): PoolInformers {
  const core = kc.makeApiClient(CoreV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const apps = kc.makeApiClient(AppsV1Api);
  const ns = namespace;
  const managed = `app.kubernetes.io/managed-by=${FIELD_MANAGER}`;
  return {
    pools: makeInformer(
      kc,
      ns ? `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${PLURAL}` : `/apis/${GROUP}/${VERSION}/${PLURAL}`,
      () =>
        ns
          ? custom.listNamespacedCustomObject({
              group: GROUP,
              version: VERSION,
              namespace: ns,
              plural: PLURAL,
            })
          : custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL }),
    ),
    deployments: makeInformer(
      kc,
      ns ? `/apis/apps/v1/namespaces/${ns}/deployments` : "/apis/apps/v1/deployments",
      () =>
        ns
          ? apps.listNamespacedDeployment({ namespace: ns, labelSelector: managed })
          : apps.listDeploymentForAllNamespaces({ labelSelector: managed }),
      managed,
    ),
    pods: makeInformer(
      kc,
      ns ? `/api/v1/namespaces/${ns}/pods` : "/api/v1/pods",
      () =>
        ns
          ? core.listNamespacedPod({ namespace: ns, labelSelector: POOL_LABEL })
          : core.listPodForAllNamespaces({ labelSelector: POOL_LABEL }),
      POOL_LABEL,
    ),
  };
}

/**
 * Starts the informers. A watch that fails (API server restart, network) starts again, from its last
 * resourceVersion or with a new list; while the API server is away, with a growing pause (1 s .. 30 s).
 */
export async function startInformers(
  informers: PoolInformers,
  o: { stopped: () => boolean; log: (msg: string) => void },
): Promise<void> {
  const all: [string, Informer<KubernetesObject>][] = [
    ["browserpools", informers.pools],
    ["deployments", informers.deployments],
    ["pods", informers.pods],
  ];
  for (const [name, inf] of all) {
    const restart = (delay: number) =>
      setTimeout(() => {
        if (o.stopped()) return;
        inf.start().catch((e: unknown) => {
          o.log(`restarting the watch of ${name}: ${errorText(e)}`);
          restart(Math.min(delay * 2, 30_000));
        });
      }, delay).unref();
    inf.on("error", (err: unknown) => {
      if (o.stopped()) return;
      o.log(`watch of ${name} ended (${errorText(err)}); restarting it`);
      restart(1000);
    });
  }
  await Promise.all(all.map(([, inf]) => inf.start()));
}

export async function stopInformers(informers: PoolInformers): Promise<void> {
  await Promise.allSettled(Object.values(informers).map((inf: Informer<KubernetesObject>) => inf.stop()));
}
