import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

export interface LoadSource {
  backlog(): Promise<{ pending: number; ackPending: number }>;
  slots(): { total: number; busy: number; workers: number; sessions: number };
}

export function createApiMetrics(load: LoadSource) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "fleet_api_" });
  return {
    registry,
    httpDuration: new Histogram({
      name: "fleet_http_request_duration_seconds",
      help: "HTTP request duration by route and status",
      labelNames: ["method", "route", "status"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    scrapeDuration: new Histogram({
      name: "fleet_scrape_duration_seconds",
      help: "End-to-end scrape duration as the caller sees it, by outcome",
      labelNames: ["outcome"],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    recordingParts: new Counter({
      name: "fleet_recording_parts_saved_total",
      help: "Parts of session recordings workers sent, by outcome (stored, full: past RECORDING_MAX_BYTES, refused: no recorded session of that id, failed: not stored)",
      labelNames: ["outcome"],
      registers: [registry],
    }),
    liveViewers: new Gauge({
      name: "fleet_live_viewers",
      help: "Live views of sessions open on this api (each relays its session's frames to one page)",
      registers: [registry],
    }),
    charged: new Counter({
      name: "fleet_charged_micros_total",
      help: "Money captured for calls, in micro-dollars, by route and payer kind (account or wallet)",
      labelNames: ["route", "payer"],
      registers: [registry],
    }),
    refunded: new Counter({
      name: "fleet_refunded_micros_total",
      help: "Money held for calls and given back (work that failed or came out cheaper than quoted), in micro-dollars, by route",
      labelNames: ["route"],
      registers: [registry],
    }),
    walletClaimsRecovered: new Counter({
      name: "fleet_wallet_claims_recovered_total",
      help: "Wallet payments settled on chain but not recorded by their call (the api died, or PostgreSQL failed, in between; or the settlement's outcome was unknown), found on chain by the stale-claim sweep and recorded in the ledger, by scheme (exact, upto)",
      labelNames: ["scheme"],
      registers: [registry],
    }),
    walletClaimsUnresolved: new Gauge({
      name: "fleet_wallet_claims_unresolved",
      help: "Stale wallet claims the last sweep kept pending for an operator: the nonce is spent on chain but its transaction was not found, or the chain could not be asked",
      registers: [registry],
    }),
    formatsRendered: new Counter({
      name: "fleet_scrape_formats_total",
      help: "Formats requested in scrapes, by format and outcome",
      labelNames: ["format", "outcome"],
      registers: [registry],
    }),
    tasksPending: new Gauge({
      name: "fleet_tasks_pending",
      help: "Browser tasks waiting in the work queue plus those held by workers",
      labelNames: ["state"],
      registers: [registry],
      async collect() {
        try {
          const b = await load.backlog();
          this.set({ state: "pending" }, b.pending);
          this.set({ state: "ack_pending" }, b.ackPending);
        } catch {
          // NATS unreachable: leave the last values.
        }
      },
    }),
    slots: new Gauge({
      name: "fleet_browser_slots_total",
      help: "Browser slots across live workers",
      registers: [registry],
      collect() {
        this.set(load.slots().total);
      },
    }),
    slotsBusy: new Gauge({
      name: "fleet_browser_slots_busy_total",
      help: "Busy browser slots across live workers",
      registers: [registry],
      collect() {
        this.set(load.slots().busy);
      },
    }),
    sessionsOpenTotal: new Gauge({
      name: "fleet_sessions_open_total",
      help: "Live sessions across live workers",
      registers: [registry],
      collect() {
        this.set(load.slots().sessions);
      },
    }),
    sessionsEnded: new Counter({
      name: "fleet_sessions_ended_total",
      help: "Sessions ended, by status (closed, expired, lost)",
      labelNames: ["status"],
      registers: [registry],
    }),
    profilesSaved: new Counter({
      name: "fleet_profiles_saved_total",
      help: "Profile saves asked for by workers, by reason (action, closed, idle, max_lifetime, worker_stopping) and outcome (saved, overwrote: saved over another session's save, failed)",
      labelNames: ["reason", "outcome"],
      registers: [registry],
    }),
    malformedMessages: new Counter({
      name: "fleet_bus_malformed_messages_total",
      help: "Messages from browser workers that did not match the contracts, by kind: a task kind for a task's reply (answered 500 internal), act and close for a session's replies, session_ended for its end event (ignored), profile_save for a save request (refused)",
      labelNames: ["kind"],
      registers: [registry],
    }),
    feedback: new Counter({
      name: "fleet_feedback_total",
      help: "Feedback reports received, by category",
      labelNames: ["category"],
      registers: [registry],
    }),
    searchCalls: new Counter({
      name: "fleet_search_calls_total",
      help: "Web search calls by provider and outcome (ok, empty, provider_error, refused: payment, allowance or an api error)",
      labelNames: ["provider", "outcome"],
      registers: [registry],
    }),
    searchProviderDuration: new Histogram({
      name: "fleet_search_provider_duration_seconds",
      help: "Time waiting for a search provider (all pages of one call), by provider and outcome (ok, error)",
      labelNames: ["provider", "outcome"],
      buckets: [0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30],
      registers: [registry],
    }),
    workers: new Gauge({
      name: "fleet_browser_workers",
      help: "Live browser workers",
      registers: [registry],
      collect() {
        this.set(load.slots().workers);
      },
    }),
  };
}
export type ApiMetrics = ReturnType<typeof createApiMetrics>;
