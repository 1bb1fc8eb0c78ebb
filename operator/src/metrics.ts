import { Counter, Gauge, Histogram, Registry } from "prom-client";

/** The operator's Prometheus metrics (served on /metrics of its metrics port). */
export function createOperatorMetrics() {
  const registry = new Registry();
  const pool = ["namespace", "pool"] as const;
  return {
    registry,
    reconciles: new Counter({
      name: "browserfleet_operator_reconciles_total",
      help: "Reconciles of BrowserPools by result (success, invalid_spec, error)",
      labelNames: ["result"] as const,
      registers: [registry],
    }),
    reconcileDuration: new Histogram({
      name: "browserfleet_operator_reconcile_duration_seconds",
      help: "Time one BrowserPool reconcile takes",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    desired: new Gauge({
      name: "browserfleet_operator_pool_desired_replicas",
      help: "Browser pods the operator wants for the pool",
      labelNames: pool,
      registers: [registry],
    }),
    actual: new Gauge({
      name: "browserfleet_operator_pool_replicas",
      help: "Browser pods the pool's Deployment has",
      labelNames: pool,
      registers: [registry],
    }),
    ready: new Gauge({
      name: "browserfleet_operator_pool_ready_replicas",
      help: "Ready browser pods of the pool",
      labelNames: pool,
      registers: [registry],
    }),
    backlog: new Gauge({
      name: "browserfleet_operator_pool_backlog",
      help: "Browser tasks waiting or running (JetStream pending + ack pending) as the operator saw them",
      labelNames: pool,
      registers: [registry],
    }),
    busySlots: new Gauge({
      name: "browserfleet_operator_pool_busy_slots",
      help: "Busy browser slots of the pool's pods",
      labelNames: pool,
      registers: [registry],
    }),
    slots: new Gauge({
      name: "browserfleet_operator_pool_slots",
      help: "Browser slots of the pool's live pods",
      labelNames: pool,
      registers: [registry],
    }),
    sessions: new Gauge({
      name: "browserfleet_operator_pool_sessions",
      help: "Live sessions held by the pool's pods",
      labelNames: pool,
      registers: [registry],
    }),
    scaleDecisions: new Counter({
      name: "browserfleet_operator_scale_decisions_total",
      help: "Size changes written, by direction (up, down) and reason",
      labelNames: ["namespace", "pool", "direction", "reason"] as const,
      registers: [registry],
    }),
    lastScale: new Gauge({
      name: "browserfleet_operator_last_scale_decision",
      help: "1 for the last size change of each pool, labelled with its direction, reason and the size written",
      labelNames: ["namespace", "pool", "direction", "reason", "replicas"] as const,
      registers: [registry],
    }),
    lastScaleTime: new Gauge({
      name: "browserfleet_operator_last_scale_timestamp_seconds",
      help: "When the last size change of the pool was written (unix seconds)",
      labelNames: pool,
      registers: [registry],
    }),
    drains: new Counter({
      name: "browserfleet_operator_drain_requests_total",
      help: "Drain requests sent to browser pods before a scale-down, by outcome (acked, no_answer)",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    leader: new Gauge({
      name: "browserfleet_operator_leader",
      help: "1 while this replica holds the leader Lease",
      registers: [registry],
    }),
  };
}

export type OperatorMetrics = ReturnType<typeof createOperatorMetrics>;
