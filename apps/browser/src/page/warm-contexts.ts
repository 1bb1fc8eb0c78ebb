import type { Browser, BrowserContext, Page } from "playwright-core";

/** A context made ahead of time with one blank page in it; nobody has used either yet. */
export interface WarmContext {
  context: BrowserContext;
  page: Page;
}

export type WarmFactory = (browser: Browser) => Promise<WarmContext>;

interface Entry {
  browser: Browser;
  made: Promise<WarmContext | undefined>;
  done: boolean;
  /** Closed without being handed out (its browser retired, too many ready, the worker stopping). */
  discarded: boolean;
}

/**
 * Fresh browser contexts, each with a blank page, made ahead of time for the free slots, so a call takes
 * one instead of waiting while one is made (a context and a page cost a renderer process). A context
 * leaves the pool as it is handed out: it serves exactly one caller, who closes it afterwards, and it is
 * never handed out twice. Callers take one only when their request's context options are the defaults
 * the pool makes contexts with.
 */
export class WarmContexts {
  private readonly ready: Entry[] = [];
  private stopped = false;
  /** Contexts made, and handed out, since the start. */
  made = 0;
  served = 0;

  constructor(
    private readonly make: WarmFactory,
    /** How many to keep ready now (the free slots). */
    private readonly want: () => number,
  ) {}

  /** Whether every free slot has its ready context (or one being made). */
  full(): boolean {
    return this.stopped || this.ready.length >= this.want();
  }

  /** Contexts ready or being made. */
  size(): number {
    return this.ready.length;
  }

  /**
   * Keep want() contexts ready on `browser`: close extra ones, and (unless `make` is false) make the missing
   * ones in the background.
   */
  fill(browser: Browser, make = true): void {
    if (this.stopped || !browser.isConnected()) return;
    for (const e of [...this.ready]) if (e.browser !== browser) this.discard(e);
    const want = Math.max(0, this.want());
    while (this.ready.length > want) {
      const idle = this.ready.find((e) => e.done) ?? this.ready[this.ready.length - 1]!;
      this.discard(idle);
    }
    while (make && this.ready.length < want) {
      const entry: Entry = { browser, made: Promise.resolve(undefined), done: false, discarded: false };
      entry.made = this.make(browser).then(
        (w) => {
          entry.done = true;
          this.made++;
          if (entry.discarded) {
            void w.context.close().catch(() => {});
            return undefined;
          }
          return w;
        },
        () => {
          entry.done = true;
          this.remove(entry);
          return undefined;
        },
      );
      this.ready.push(entry);
    }
  }

  /**
   * A never-used context of `browser`, out of the pool for good; one still being made is waited for (it is
   * already under way). Undefined when there is none.
   */
  async take(browser: Browser): Promise<WarmContext | undefined> {
    for (;;) {
      const mine = this.ready.filter((e) => e.browser === browser);
      const entry = mine.find((e) => e.done) ?? mine[0];
      if (!entry) return undefined;
      this.remove(entry);
      const w = await entry.made;
      if (w && !w.page.isClosed() && browser.isConnected()) {
        this.served++;
        return w;
      }
      if (w) void w.context.close().catch(() => {});
    }
  }

  /** Close the ready contexts of `browser` (it is being retired), or of every browser. */
  drop(browser?: Browser): void {
    for (const e of [...this.ready]) if (!browser || e.browser === browser) this.discard(e);
  }

  /** Close every ready context and make no more (the worker is stopping). */
  async closeAll(): Promise<void> {
    this.stopped = true;
    const all = this.ready.splice(0);
    for (const e of all) e.discarded = true;
    await Promise.all(all.map((e) => e.made.then((w) => w?.context.close().catch(() => {}))));
  }

  private discard(e: Entry): void {
    e.discarded = true;
    this.remove(e);
    void e.made.then((w) => w?.context.close().catch(() => {}));
  }

  private remove(e: Entry): void {
    const i = this.ready.indexOf(e);
    if (i >= 0) this.ready.splice(i, 1);
  }
}
