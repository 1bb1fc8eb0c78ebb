/**
 * Which queued pages to send to the browsers now: round-robin across jobs (so one large crawl cannot
 * starve a small batch), at most `jobConcurrency` pages of a job in flight, and per host at most
 * `hostConcurrency` in flight and one start per host delay, counted across all jobs: a site sees the
 * same politeness however many callers crawl it. Pure: the dispatcher feeds it the state.
 */
export interface Candidate {
  pageId: number;
  host: string;
}

export interface JobQueue {
  jobId: string;
  /** Pages of this job in flight now. */
  inFlight: number;
  /** Queued pages in the order they should go. */
  candidates: Candidate[];
  /** Least ms between two starts on one host of this job (the configured delay or robots' Crawl-delay). */
  hostDelayMs: number;
}

export interface ScheduleLimits {
  jobConcurrency: number;
  hostConcurrency: number;
  /** The most pages to dispatch in this round across all jobs (free room in the browser queue). */
  budget: number;
}

export interface Pick {
  jobId: string;
  pageId: number;
  host: string;
}

/** Last start per host, kept by the dispatcher between rounds. */
export type LastStarts = Map<string, number>;

/** `hostInFlight`: pages in flight per host now, all jobs together. */
export function pickDispatches(
  queues: JobQueue[],
  limits: ScheduleLimits,
  lastStarts: LastStarts,
  now: number,
  hostInFlight: ReadonlyMap<string, number> = new Map(),
): Pick[] {
  const picks: Pick[] = [];
  const hosts = new Map(hostInFlight);
  const state = queues.map((q) => ({ q, inFlight: q.inFlight, next: 0, done: false }));
  let budget = limits.budget;
  while (budget > 0) {
    let progressed = false;
    // Fewest in flight first, so a job that just started catches up with the ones already running.
    state.sort((a, b) => a.inFlight - b.inFlight);
    for (const s of state) {
      if (budget <= 0) break;
      if (s.done || s.inFlight >= limits.jobConcurrency) continue;
      let chosen: Candidate | undefined;
      for (let i = s.next; i < s.q.candidates.length; i++) {
        const c = s.q.candidates[i] as Candidate;
        if ((hosts.get(c.host) ?? 0) >= limits.hostConcurrency) continue;
        const last = lastStarts.get(c.host);
        if (last !== undefined && s.q.hostDelayMs > 0 && now - last < s.q.hostDelayMs) continue;
        chosen = c;
        s.q.candidates.splice(i, 1);
        break;
      }
      if (!chosen) {
        s.done = true;
        continue;
      }
      picks.push({ jobId: s.q.jobId, pageId: chosen.pageId, host: chosen.host });
      s.inFlight++;
      hosts.set(chosen.host, (hosts.get(chosen.host) ?? 0) + 1);
      if (s.q.hostDelayMs > 0) lastStarts.set(chosen.host, now);
      budget--;
      progressed = true;
    }
    if (!progressed) break;
  }
  return picks;
}
