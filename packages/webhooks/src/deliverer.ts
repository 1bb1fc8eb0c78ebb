import type { Db } from "@browserfleet/db";
import type { AllowList } from "@browserfleet/ssrf";
import { claimDue, type EventRow, nextDue, recordAttempt, stopGoneEvents } from "./outbox.ts";
import { postEvent } from "./post.ts";
import { type AttemptOutcome, DEFAULT_RETRY, type NextStep, nextStep, type RetryPolicy } from "./retry.ts";
import { signedHeaders } from "./sign.ts";

/** How often events left pending behind a receiver's 410 are stopped (claims skip them meanwhile). */
const STOP_SWEEP_MS = 5_000;

export interface DelivererOptions {
  db: Db;
  /** The secrets that sign an account's deliveries now (WebhookSecrets.signing). */
  signing(accountId: string): Promise<string[]>;
  allow: AllowList;
  /** Deliveries in flight at once (each a different stream). */
  concurrency: number;
  timeoutMs: number;
  /** The longest wait between looks at the outbox when nothing wakes the deliverer. */
  pollMs: number;
  retry?: RetryPolicy;
  log(msg: string): void;
  /** Told of every attempt (metrics). */
  onAttempt?(event: EventRow, outcome: AttemptOutcome, next: NextStep): void;
}

/**
 * Sends the outbox's events: claims the due ones (the head of each stream), signs and POSTs each, records
 * the attempt and what follows. Woken at once by `poke` (an event was just committed here) and otherwise
 * looks again at the next retry time or after `pollMs`, whichever comes first. Several deliverers (one per
 * jobs replica) share the outbox; a claim they died holding is taken again once its hold passes.
 */
export class Deliverer {
  private running = false;
  private wake: (() => void) | undefined;
  private poked = false;
  private loop: Promise<void> | undefined;

  constructor(private readonly opts: DelivererOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Look at the outbox now. */
  poke(): void {
    this.poked = true;
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.poke();
    await this.loop;
  }

  private async run(): Promise<void> {
    const { db, concurrency, timeoutMs, pollMs, log } = this.opts;
    // A claim outlives the slowest attempt, so a live deliverer never loses its events to another.
    const holdMs = timeoutMs * 2 + 5_000;
    let lastStopSweep = 0;
    while (this.running) {
      this.poked = false;
      let claimed: EventRow[] = [];
      try {
        if (Date.now() - lastStopSweep > STOP_SWEEP_MS) {
          lastStopSweep = Date.now();
          await stopGoneEvents(db);
        }
        claimed = await claimDue(db, concurrency, holdMs);
        await Promise.all(claimed.map((e) => this.deliver(e)));
      } catch (err) {
        log(`webhook deliveries: ${(err as Error).message}`);
      }
      if (claimed.length > 0 || this.poked || !this.running) continue;
      let waitMs = pollMs;
      try {
        const due = await nextDue(db);
        if (due) waitMs = Math.max(0, Math.min(pollMs, due.getTime() - Date.now()));
      } catch {}
      if (this.poked) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  private async deliver(event: EventRow): Promise<void> {
    const { db, allow, timeoutMs, log } = this.opts;
    let outcome: AttemptOutcome;
    try {
      const secrets = await this.opts.signing(event.accountId);
      const headers = {
        ...(event.headers ?? {}),
        ...signedHeaders(secrets, event.msgId, new Date(), event.body),
      };
      outcome = await postEvent(event.url, headers, event.body, { allow, timeoutMs });
    } catch (err) {
      outcome = { kind: "unanswered", error: (err as Error).message, ms: 0 };
    }
    const next = nextStep(
      outcome,
      { attempts: event.attempts + 1, createdAt: event.createdAt },
      this.opts.retry ?? DEFAULT_RETRY,
    );
    try {
      await recordAttempt(db, event, outcome, next);
    } catch (err) {
      log(`webhook ${event.msgId}: the attempt could not be recorded: ${(err as Error).message}`);
    }
    this.opts.onAttempt?.(event, outcome, next);
  }
}
