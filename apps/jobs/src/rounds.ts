/**
 * When dispatch rounds run: at once when woken (a job was created, a page finished), one at a time, and
 * at the latest `pollMs` after the last one ended, for what no event announces (a host delay that ran
 * out, a robots.txt that arrived, a lost page, a deadline). A busy crawl wakes a round after every
 * result, so the timer then never fires: it no longer adds a round of its own every `pollMs` beside
 * those (each a transaction of several queries, most of them finding nothing new).
 */
export class Rounds {
  readonly #run: () => Promise<void>;
  readonly #pollMs: number;
  readonly #log: (msg: string) => void;
  #timer: NodeJS.Timeout | undefined;
  /** The rounds running now (one, and those its wakes asked for), until they end. */
  #current: Promise<void> | undefined;
  #again = false;
  #stopping = false;

  constructor(run: () => Promise<void>, pollMs: number, log: (msg: string) => void) {
    this.#run = run;
    this.#pollMs = pollMs;
    this.#log = log;
  }

  get running(): boolean {
    return this.#current !== undefined;
  }

  /** Run a round now, or right after the one running (wakes during it are one round, not many). */
  wake(): void {
    if (this.#stopping) return;
    if (this.#current) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#current = (async () => {
      // A microtask later: #current is set before the round runs, so a wake from within it is seen.
      await Promise.resolve();
      do {
        this.#again = false;
        try {
          await this.#run();
        } catch (err) {
          this.#log(`dispatch round failed: ${(err as Error).message}`);
        }
      } while (this.#again && !this.#stopping);
      this.#current = undefined;
      if (!this.#stopping) this.#timer = setTimeout(() => this.wake(), this.#pollMs);
    })();
  }

  /** No round starts after this; resolves once the one running (if any) ended. */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#timer);
    await this.#current;
  }
}
