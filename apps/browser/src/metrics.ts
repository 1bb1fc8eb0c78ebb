import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

export function createBrowserMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "fleet_browser_" });
  /** Read when /metrics is scraped; the worker sets them once it has what they read. */
  const readers: {
    chromiumPss?: () => number;
    contextsReady?: () => number;
    sandboxed?: () => boolean;
  } = {};
  return {
    registry,
    readers,
    slotsTotal: new Gauge({
      name: "fleet_browser_slots",
      help: "Browser slots (contexts) this worker runs",
      registers: [registry],
    }),
    memoryLimit: new Gauge({
      name: "fleet_browser_memory_limit_bytes",
      help: "The memory limit of this worker's container (its cgroup); absent where there is none",
      registers: [registry],
    }),
    memoryWorkingSet: new Gauge({
      name: "fleet_browser_memory_working_set_bytes",
      help: "This worker's container working set (usage less inactive page cache), as counted against its limit",
      registers: [registry],
    }),
    memoryPressure: new Gauge({
      name: "fleet_browser_memory_pressure",
      help: "1 while the worker takes no new task because its working set is near its memory limit (BROWSER_MEMORY_HIGH_PERCENT), else 0",
      registers: [registry],
    }),
    memoryPauses: new Counter({
      name: "fleet_browser_memory_pauses_total",
      help: "Times the worker stopped taking tasks because its working set neared its memory limit",
      registers: [registry],
    }),
    slotsBusy: new Gauge({
      name: "fleet_browser_slots_busy",
      help: "Browser slots busy with a task",
      registers: [registry],
    }),
    tasks: new Counter({
      name: "fleet_browser_tasks_total",
      help: "Browser tasks handled, by kind and outcome",
      labelNames: ["kind", "outcome"],
      registers: [registry],
    }),
    tasksRefused: new Counter({
      name: "fleet_browser_tasks_refused_total",
      help: "Messages on the task queue refused without running: by task kind (other when it names none this worker knows) and reason (not_json, unknown_kind, malformed)",
      labelNames: ["kind", "reason"],
      registers: [registry],
    }),
    formatDuration: new Histogram({
      name: "fleet_scrape_format_duration_seconds",
      help: "Time to render one format of a page",
      labelNames: ["format", "outcome"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    taskDuration: new Histogram({
      name: "fleet_browser_task_duration_seconds",
      help: "Time a browser task held a slot",
      labelNames: ["kind"],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    sessionsOpen: new Gauge({
      name: "fleet_sessions_open",
      help: "Live sessions this worker holds (each holds a slot)",
      registers: [registry],
    }),
    sessionsOpened: new Counter({
      name: "fleet_sessions_opened_total",
      help: "Sessions opened on this worker",
      registers: [registry],
    }),
    sessionsClosed: new Counter({
      name: "fleet_sessions_closed_total",
      help: "Sessions ended, by reason (closed, idle, max_lifetime, browser_lost, worker_stopping)",
      labelNames: ["reason"],
      registers: [registry],
    }),
    liveStreams: new Gauge({
      name: "fleet_live_streams",
      help: "Sessions on this worker streaming their tab to at least one live viewer",
      registers: [registry],
    }),
    liveFrames: new Counter({
      name: "fleet_live_frames_total",
      help: "Frames of live views sent (one per change of the page, at most 5 a second per session)",
      registers: [registry],
    }),
    liveInputs: new Counter({
      name: "fleet_live_inputs_total",
      help: "Clicks, keys and scrolls of interactive live viewers, by outcome (ok, failed, refused)",
      labelNames: ["outcome"],
      registers: [registry],
    }),
    recordingBytes: new Counter({
      name: "fleet_recording_bytes_total",
      help: "Bytes of session recordings (compressed) stored by the api",
      registers: [registry],
    }),
    recordingParts: new Counter({
      name: "fleet_recording_parts_total",
      help: "Parts of session recordings sent, by outcome (stored; retried: kept to send again; dropped: lost after the worker's buffer filled or the session ended; refused: the api said stop)",
      labelNames: ["outcome"],
      registers: [registry],
    }),
    actDuration: new Histogram({
      name: "fleet_act_duration_seconds",
      help: "Time of one act call on the worker: its actions and the formats after them",
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers: [registry],
    }),
    actsUnrendered: new Counter({
      name: "fleet_acts_unrendered_total",
      help: "Acts answered without their formats: the page did not settle and render within ACT_FINISH_MS after the actions (a starved or frozen browser)",
      registers: [registry],
    }),
    egressTasks: new Counter({
      name: "fleet_egress_tasks_total",
      help: "Scrapes, job pages and sessions by the way they went out: direct, pool (with its name) or own (a caller's proxy)",
      labelNames: ["way", "pool"] as const,
      registers: [registry],
    }),
    actions: new Counter({
      name: "fleet_actions_total",
      help: "Actions run, by action type and outcome",
      labelNames: ["action", "outcome"],
      registers: [registry],
    }),
    contexts: new Counter({
      name: "fleet_browser_contexts_total",
      help: "Contexts scrapes ran in, by origin: warm (made ahead of time for a free slot, never used before) or made (for this call: its context options differ from the defaults, or none was ready)",
      labelNames: ["origin"],
      registers: [registry],
    }),
    contextsReady: new Gauge({
      name: "fleet_browser_contexts_ready",
      help: "Contexts made ahead of time and waiting for a call (with the ones being made)",
      registers: [registry],
      collect() {
        if (readers.contextsReady) this.set(readers.contextsReady());
      },
    }),
    chromiumRecycled: new Counter({
      name: "fleet_chromium_recycled_total",
      help: "Browsers replaced by a fresh one, by reason: tasks (served BROWSER_RECYCLE_TASKS) or memory (past BROWSER_RECYCLE_PSS_MB)",
      labelNames: ["reason"],
      registers: [registry],
    }),
    chromiumPss: new Gauge({
      name: "fleet_chromium_pss_bytes",
      help: "Proportional set size of the current browser's processes (browser, renderers, utilities)",
      registers: [registry],
      collect() {
        if (readers.chromiumPss) this.set(readers.chromiumPss());
      },
    }),
    chromiumSandbox: new Gauge({
      name: "fleet_chromium_sandbox",
      help: "1 when Chromium's renderers run in its sandbox (namespaces and seccomp), 0 when they do not (BROWSER_SANDBOX, the worker's log says why)",
      registers: [registry],
      collect() {
        if (readers.sandboxed) this.set(readers.sandboxed() ? 1 : 0);
      },
    }),
    chromiumRestarts: new Counter({
      name: "fleet_chromium_restarts_total",
      help: "Times Chromium died and was relaunched",
      registers: [registry],
    }),
  };
}
export type BrowserMetrics = ReturnType<typeof createBrowserMetrics>;
