import { KubeConfig } from "@kubernetes/client-node";

/** Kubeconfig from KUBECONFIG or ~/.kube/config, or the pod's service account inside a cluster. */
export function loadKubeConfig(path?: string): KubeConfig {
  const kc = new KubeConfig();
  if (path) kc.loadFromFile(path);
  else kc.loadFromDefault();
  return kc;
}

/** An API error with this HTTP status (ApiException of @kubernetes/client-node). */
export function isStatus(err: unknown, code: number): boolean {
  const e = err as { code?: number; statusCode?: number; response?: { statusCode?: number } };
  return e?.code === code || e?.statusCode === code || e?.response?.statusCode === code;
}

/** The API server's message for an error, in one line. */
export function errorText(err: unknown): string {
  const e = err as { body?: unknown; message?: string };
  if (typeof e?.body === "string") {
    try {
      const parsed = JSON.parse(e.body) as { message?: string };
      if (parsed.message) return parsed.message;
    } catch {
      // not JSON
    }
  }
  const body = e?.body as { message?: string } | undefined;
  return body?.message ?? e?.message ?? String(err);
}
