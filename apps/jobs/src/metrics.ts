import { Counter, Gauge, Histogram, Registry } from "prom-client";

export function createJobsMetrics() {
  const registry = new Registry();
  const jobs = new Gauge({
    name: "fleet_jobs",
    help: "Batch and crawl jobs by status (every replica reports the same database counts)",
    labelNames: ["status"],
    registers: [registry],
  });
  const pages = new Counter({
    name: "fleet_job_pages_total",
    help: "Job pages finished by this replica, by job kind and outcome (completed, failed)",
    labelNames: ["kind", "outcome"],
    registers: [registry],
  });
  const dispatched = new Counter({
    name: "fleet_job_pages_dispatched_total",
    help: "Page tasks sent to the browser queue (a retry counts again)",
    labelNames: ["kind"],
    registers: [registry],
  });
  const queueDepth = new Gauge({
    name: "fleet_queue_depth",
    help: "Messages waiting plus held unacked, per JetStream stream",
    labelNames: ["stream"],
    registers: [registry],
  });
  const crawlRate = new Gauge({
    name: "fleet_crawl_pages_per_second",
    help: "Crawl pages finished per second by this replica over the last 30 s",
    registers: [registry],
  });
  const jobsEnded = new Counter({
    name: "fleet_jobs_ended_total",
    help: "Jobs that ended, by kind and final status",
    labelNames: ["kind", "status"],
    registers: [registry],
  });
  const cachedPages = new Counter({
    name: "fleet_job_pages_cached_total",
    help: "Job pages served wholly from the render cache (maxAge) instead of a browser",
    labelNames: ["kind"],
    registers: [registry],
  });
  const malformedResults = new Counter({
    name: "fleet_job_results_malformed_total",
    help: "Page results on the results stream that did not match the contract (a page that names itself is recorded failed)",
    registers: [registry],
  });
  const webhookAttempts = new Counter({
    name: "fleet_webhook_attempts_total",
    help: "Webhook delivery attempts by this replica, by event type and outcome (delivered, retry, failed, stopped)",
    labelNames: ["event", "outcome"],
    registers: [registry],
  });
  const webhookEvents = new Gauge({
    name: "fleet_webhook_events",
    help: "Webhook events in the outbox by state (pending, delivered, failed, stopped); every replica reports the same database counts",
    labelNames: ["state"],
    registers: [registry],
  });
  const webhookLatency = new Histogram({
    name: "fleet_webhook_delivery_seconds",
    help: "From an event being made to the receiver acknowledging it, retries included",
    labelNames: ["event"],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 60, 300, 3600, 86400],
    registers: [registry],
  });
  return {
    registry,
    webhookAttempts,
    webhookEvents,
    webhookLatency,
    jobs,
    pages,
    dispatched,
    queueDepth,
    crawlRate,
    jobsEnded,
    cachedPages,
    malformedResults,
  };
}
export type JobsMetrics = ReturnType<typeof createJobsMetrics>;

/** Events per second over a sliding window. */
export class RateWindow {
  #times: number[] = [];
  constructor(private readonly windowMs: number) {}
  hit(now = Date.now()): void {
    this.#times.push(now);
  }
  perSecond(now = Date.now()): number {
    const from = now - this.windowMs;
    while (this.#times.length > 0 && (this.#times[0] as number) < from) this.#times.shift();
    return this.#times.length / (this.windowMs / 1000);
  }
}
