/**
 * Conversion off the event loop, under a hard time budget. A small pool of worker threads runs
 * htmlToMarkdown; a page that takes longer than the budget (or crashes or exhausts its worker's memory)
 * has its thread terminated and replaced, and is converted by the cheap text-only converter instead,
 * with `degraded` set. The caller's event loop only ever copies the HTML to a thread.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { HtmlToMarkdownOptions, HtmlToMarkdownResult } from "./convert.ts";
import { MarkdownOptionError } from "./selectors.ts";
import { htmlToTextAsync } from "./text-only.ts";

/** Budget of one conversion once a thread runs it. */
export const DEFAULT_TIME_BUDGET_MS = 5_000;
/** A thread that is not ready this long after it was started is given up on. */
const STARTUP_TIMEOUT_MS = 30_000;

export interface MarkdownPoolOptions {
  /** Worker threads, started on demand (default: 2, or 1 on a single CPU). */
  size?: number;
  /** Milliseconds one conversion may run before it is cut off and degraded (default 5000). */
  timeBudgetMs?: number;
  /** Heap limit of each worker thread in MB (default 1024); exceeding it degrades that page. */
  maxHeapMb?: number;
  /**
   * Young generation of each worker thread in MB (default 64). A conversion builds a whole page's DOM
   * in a few dozen milliseconds; with V8's smaller default, much of it survives two scavenges, is
   * promoted, and costs the next pages full collections: about 10% more time per page, median and p95.
   */
  maxYoungMb?: number;
}

export interface PooledMarkdownResult extends HtmlToMarkdownResult {
  /** Set when the conversion ran out of time or failed, and `markdown` is the page's plain text instead. */
  degraded?: "timeout" | "failed";
}

export interface WorkerTask {
  id: number;
  html: string;
  options: HtmlToMarkdownOptions;
}

export type WorkerReply =
  | { ready: true; id?: undefined }
  | { id: number; ok: true; result: HtmlToMarkdownResult }
  | { id: number; ok: false; error: { message: string; code?: string } };

interface Job {
  task: WorkerTask;
  resolve: (result: PooledMarkdownResult) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job?: Job;
  timer?: NodeJS.Timeout;
}

const entry = new URL("./worker-entry.mjs", import.meta.url);

/** The cheap conversion, in slices so the caller's event loop stays free. */
function degrade(job: Job, reason: "timeout" | "failed"): void {
  htmlToTextAsync(job.task.html).then(
    (markdown) => job.resolve({ markdown, degraded: reason }),
    (err: unknown) => job.reject(err as Error),
  );
}

export class MarkdownPool {
  private readonly size: number;
  private readonly budget: number;
  private readonly maxHeapMb: number;
  private readonly maxYoungMb: number;
  private readonly slots = new Set<Slot>();
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(opts: MarkdownPoolOptions = {}) {
    this.size = Math.max(1, opts.size ?? Math.min(2, availableParallelism()));
    this.budget = Math.max(1, opts.timeBudgetMs ?? DEFAULT_TIME_BUDGET_MS);
    this.maxHeapMb = opts.maxHeapMb ?? 1024;
    this.maxYoungMb = opts.maxYoungMb ?? 64;
  }

  /**
   * htmlToMarkdown in a worker thread. Resolves with a degraded plain-text result when the budget runs
   * out or the thread fails; rejects only for bad options (MarkdownOptionError) or a closed pool.
   */
  convert(html: string, options: HtmlToMarkdownOptions): Promise<PooledMarkdownResult> {
    if (this.closed) return Promise.reject(new Error("the markdown pool is closed"));
    return new Promise((resolve, reject) => {
      this.queue.push({ task: { id: this.nextId++, html, options }, resolve, reject });
      this.dispatch();
    });
  }

  /** Terminates every thread; queued conversions are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error("the markdown pool is closed"));
    await Promise.all(
      [...this.slots].map((slot) => {
        this.slots.delete(slot);
        clearTimeout(slot.timer);
        slot.job?.reject(new Error("the markdown pool is closed"));
        return slot.worker.terminate();
      }),
    );
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = [...this.slots].find((s) => s.ready && !s.job);
      if (!slot) {
        // Threads start one at a time; each one that comes up dispatches again.
        if (this.slots.size < this.size && ![...this.slots].some((s) => !s.ready)) this.spawn();
        return;
      }
      const job = this.queue.shift() as Job;
      slot.job = job;
      slot.worker.ref();
      slot.timer = setTimeout(() => this.fail(slot, "timeout"), this.budget);
      slot.worker.postMessage(job.task);
    }
  }

  private spawn(): void {
    const worker = new Worker(entry, {
      resourceLimits: {
        maxOldGenerationSizeMb: this.maxHeapMb,
        maxYoungGenerationSizeMb: this.maxYoungMb,
      },
    });
    const slot: Slot = { worker, ready: false };
    this.slots.add(slot);
    // Not ready in time: the thread is dropped; a later conversion starts another one.
    slot.timer = setTimeout(() => this.fail(slot, "failed"), STARTUP_TIMEOUT_MS);
    worker.on("message", (reply: WorkerReply) => this.onReply(slot, reply));
    worker.on("error", () => this.fail(slot, "failed"));
    worker.on("exit", () => this.fail(slot, "failed"));
  }

  private onReply(slot: Slot, reply: WorkerReply): void {
    if (reply.id === undefined) {
      clearTimeout(slot.timer);
      slot.ready = true;
      slot.worker.unref();
      this.dispatch();
      return;
    }
    const job = slot.job;
    if (!job || job.task.id !== reply.id) return;
    clearTimeout(slot.timer);
    slot.job = undefined;
    slot.worker.unref();
    if (reply.ok) job.resolve(reply.result);
    else if (reply.error.code) job.reject(new MarkdownOptionError(reply.error.code, reply.error.message));
    else degrade(job, "failed");
    this.dispatch();
  }

  /** The slot's thread is gone or hopeless: replace it, and degrade the page it held. */
  private fail(slot: Slot, reason: "timeout" | "failed"): void {
    if (!this.slots.delete(slot)) return;
    clearTimeout(slot.timer);
    void slot.worker.terminate();
    const job = slot.job;
    slot.job = undefined;
    if (job) degrade(job, reason);
    else if (!slot.ready) {
      // The thread never came up: whatever waits would wait for nothing, so it degrades too.
      for (const queued of this.queue.splice(0)) degrade(queued, "failed");
    }
    if (!this.closed) this.dispatch();
  }
}

let shared: MarkdownPool | undefined;

/** One pool per process, for callers that convert pages as they come (the browser worker). */
export function sharedMarkdownPool(): MarkdownPool {
  shared ??= new MarkdownPool();
  return shared;
}
