import { hostname } from "node:os";
import { z } from "zod";

const ms = (def: number, min = 1) => z.coerce.number().int().min(min).default(def);

/** The operator's settings, from the environment. */
export const operatorConfigSchema = z.object({
  NATS_URL: z.string().min(1),
  /** A kubeconfig file; without it: KUBECONFIG, ~/.kube/config or the in-cluster service account. */
  KUBECONFIG_PATH: z.string().optional(),
  /** Watch only this namespace (empty: every namespace). */
  WATCH_NAMESPACE: z.string().optional(),
  /** Where the leader Lease lives (in a pod: its own namespace). */
  POD_NAMESPACE: z.string().default("default"),
  LEASE_NAME: z.string().default("browserfleet-operator"),
  /** This replica's name in the Lease. */
  POD_NAME: z.string().default(`${hostname()}-${process.pid}`),
  LEADER_ELECTION: z.enum(["true", "false"]).default("true"),
  LEASE_DURATION_MS: ms(15_000, 1000),
  LEASE_RETRY_MS: ms(2_000, 100),
  LEASE_RENEW_DEADLINE_MS: ms(10_000, 500),
  /** Every pool is reconciled at least this often; load changes wake the operator sooner. */
  RECONCILE_PERIOD_MS: ms(5_000, 100),
  /** How long the operator gathers NATS signals before it reconciles. */
  SIGNAL_DEBOUNCE_MS: ms(100, 0),
  METRICS_PORT: z.coerce.number().int().min(0).default(8081),
  METRICS_HOST: z.string().default("0.0.0.0"),
});

export type OperatorConfig = z.infer<typeof operatorConfigSchema>;

export function loadOperatorConfig(env: NodeJS.ProcessEnv = process.env): OperatorConfig {
  const r = operatorConfigSchema.safeParse(env);
  if (!r.success) throw new Error(r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "));
  return r.data;
}
