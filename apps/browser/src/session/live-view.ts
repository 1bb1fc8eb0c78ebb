import { decodeJson, encodeJson, sessionSubject } from "@browserfleet/bus";
import {
  type Action,
  LIVE_MAX_FPS,
  LIVE_WATCH_EVERY_MS,
  type LiveEvent,
  type LiveInput,
  type LiveInputReply,
  liveControl,
} from "@browserfleet/contracts";
import type { Msg, NatsConnection, Subscription } from "@nats-io/transport-node";
import type { BrowserContext, CDPSession, Page } from "playwright-core";
import type { BrowserMetrics } from "../metrics.ts";
import { describeForViewer } from "./live-actions.ts";
import type { SessionTabs } from "./tabs.ts";

/** A viewer not heard from for this long has gone (its api stopped saying it watches). */
const VIEWER_GONE_MS = 3 * LIVE_WATCH_EVERY_MS;
/** How often a streaming session checks its viewers, its active tab, and the tab's URL and title. */
const TICK_MS = 1000;
/**
 * An act longer than this is shown as it runs (a navigation, a wait); a shorter one only by its result,
 * so watching costs the agent's acts nothing (see pause).
 */
const PAUSE_AT_MOST_MS = 1000;
/** Frames no larger than this (CSS pixels scaled down): enough to read a page, small on the bus. */
const MAX_FRAME_SIDE = 1280;
const JPEG_QUALITY = 60;

const CAST_OPTIONS = {
  format: "jpeg",
  quality: JPEG_QUALITY,
  maxWidth: MAX_FRAME_SIDE,
  maxHeight: MAX_FRAME_SIDE,
  everyNthFrame: 1,
} as const;

interface Screencast {
  page: Page;
  cdp: CDPSession;
  /** Set up (streaming, or paused for an act). */
  started?: boolean;
  /** Counted in fleet_live_streams. */
  counted?: boolean;
}

/**
 * One session's live view on the worker that holds it. Nothing is captured until a viewer watches; then
 * the active tab is streamed with Chromium's screencast (a JPEG only when the compositor drew something
 * new, acknowledged no faster than LIVE_MAX_FPS so an animated page costs a bounded share of CPU), with
 * the tab's URL and title and each action as it runs. Three missed heartbeats from the viewers' apis and
 * it stops. In interactive mode the viewer's clicks, keys and scrolls go to the active tab.
 */
export class LiveView {
  readonly #viewers = new Map<string, number>();
  readonly #sub: Subscription;
  #cast: Screencast | undefined;
  #starting: Promise<void> | undefined;
  #tick: NodeJS.Timeout | undefined;
  #lastFrame: LiveEvent | undefined;
  #lastPage = "";
  #closed = false;
  #paused = false;
  #resumeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly sessionId: string,
    private readonly context: BrowserContext,
    private readonly tabs: SessionTabs,
    private readonly interactive: boolean,
    private readonly metrics: BrowserMetrics,
  ) {
    this.#sub = nc.subscribe(sessionSubject(sessionId, "live"), {
      callback: (_e, msg) => void this.#onControl(msg),
    });
  }

  get watched(): boolean {
    return this.#viewers.size > 0;
  }

  /** An action of an act ran: viewers see it in the log beside the picture. */
  action(a: Action, ok: boolean): void {
    if (!this.watched) return;
    this.#publish({ kind: "action", ...describeForViewer(a), ok, at: Date.now() });
  }

  /**
   * An act starts: capturing frames while it runs would take the CPU its actions, settle and read need
   * (screencast frames are composited, read back and encoded on the same cores). The screencast stops
   * until the act ends, or for PAUSE_AT_MOST_MS, and then sends the page as the act left it.
   */
  pause(): void {
    if (this.#paused || !this.#cast?.started) return;
    this.#paused = true;
    const cdp = this.#cast.cdp;
    cdp.send("Page.stopScreencast").catch(() => {});
    this.#resumeTimer = setTimeout(() => this.resume(), PAUSE_AT_MOST_MS);
    this.#resumeTimer.unref();
  }

  /** The act ended (or ran long): stream again, starting with the page as it is now. */
  resume(): void {
    clearTimeout(this.#resumeTimer);
    if (!this.#paused) return;
    this.#paused = false;
    const cast = this.#cast;
    if (cast?.started) cast.cdp.send("Page.startScreencast", CAST_OPTIONS).catch(() => {});
  }

  /** The session ended: tell the viewers, stop streaming, stop listening. */
  async close(reason: string): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#sub.unsubscribe();
    if (this.watched) this.#publish({ kind: "ended", reason });
    this.#viewers.clear();
    await this.#stop();
  }

  async #onControl(msg: Msg): Promise<void> {
    let parsed: ReturnType<typeof liveControl.safeParse>;
    try {
      parsed = liveControl.safeParse(decodeJson(msg.data));
    } catch {
      return;
    }
    if (!parsed.success || this.#closed) return;
    const c = parsed.data;
    if (c.kind === "watch") {
      const isNew = !this.#viewers.has(c.viewer);
      this.#viewers.set(c.viewer, Date.now());
      msg.respond(encodeJson({ ok: true, interactive: this.interactive }));
      if (isNew) {
        // A viewer that joins a running stream sees the last picture and the page at once.
        if (this.#lastFrame) this.#publish(this.#lastFrame);
        this.#lastPage = "";
        await this.#start();
        await this.#checkPage();
      }
    } else if (c.kind === "leave") {
      this.#viewers.delete(c.viewer);
      if (!this.watched) await this.#stop();
    } else {
      const reply = await this.#input(c.input);
      this.metrics.liveInputs.inc({ outcome: reply.ok ? "ok" : this.interactive ? "failed" : "refused" });
      msg.respond(encodeJson(reply));
    }
  }

  async #input(input: LiveInput): Promise<LiveInputReply> {
    if (!this.interactive) return { ok: false, message: "this session's live view is view-only" };
    const page = this.tabs.active;
    try {
      if (input.type === "click") await page.mouse.click(input.x, input.y, { button: input.button });
      else if (input.type === "text") await page.keyboard.type(input.text);
      else if (input.type === "press") await page.keyboard.press(input.key);
      else await page.mouse.wheel(input.dx, input.dy);
      return { ok: true };
    } catch (err) {
      return { ok: false, message: (err as Error).message.split("\n")[0] ?? "the input failed" };
    }
  }

  #publish(e: LiveEvent): void {
    if (this.nc.isClosed()) return;
    this.nc.publish(sessionSubject(this.sessionId, "view"), encodeJson(e));
  }

  async #start(): Promise<void> {
    this.#tick ??= setInterval(() => void this.#onTick(), TICK_MS);
    this.#tick.unref();
    if (this.#cast?.page === this.tabs.active) return;
    // One start at a time: a viewer joining while the screencast starts waits for it.
    this.#starting ??= this.#restart().finally(() => {
      this.#starting = undefined;
    });
    await this.#starting;
  }

  async #restart(): Promise<void> {
    await this.#stopCast();
    const page = this.tabs.active;
    if (page.isClosed() || !this.watched) return;
    let cdp: CDPSession;
    try {
      cdp = await this.context.newCDPSession(page);
    } catch {
      return;
    }
    const cast: Screencast = { page, cdp };
    this.#cast = cast;
    let lastAt = 0;
    cdp.on("Page.screencastFrame", (f) => {
      if (this.#cast !== cast) return;
      const now = Date.now();
      const frame: LiveEvent = {
        kind: "frame",
        data: f.data,
        width: Math.round(f.metadata.deviceWidth),
        height: Math.round(f.metadata.deviceHeight),
        at: now,
      };
      this.#lastFrame = frame;
      this.#publish(frame);
      this.metrics.liveFrames.inc();
      // Chromium sends the next frame only once this one is acknowledged: acknowledging no sooner than
      // 1/LIVE_MAX_FPS after the previous frame caps the rate, whatever the page animates.
      const wait = Math.max(0, lastAt + 1000 / LIVE_MAX_FPS - now);
      lastAt = now + wait;
      setTimeout(() => {
        if (this.#cast === cast)
          cdp.send("Page.screencastFrameAck", { sessionId: f.sessionId }).catch(() => {});
      }, wait).unref();
    });
    try {
      cast.started = true;
      if (!this.#paused) await cdp.send("Page.startScreencast", CAST_OPTIONS);
      cast.counted = true;
      this.metrics.liveStreams.inc();
    } catch {
      if (this.#cast === cast) this.#cast = undefined;
      await cdp.detach().catch(() => {});
    }
  }

  async #onTick(): Promise<void> {
    const now = Date.now();
    for (const [viewer, seen] of this.#viewers) if (now - seen > VIEWER_GONE_MS) this.#viewers.delete(viewer);
    if (!this.watched) return this.#stop();
    // The agent (or the viewer) switched tabs, or the tab went: stream the one actions now go to.
    if (this.#cast?.page !== this.tabs.active) await this.#start();
    await this.#checkPage();
  }

  async #checkPage(): Promise<void> {
    const page = this.tabs.active;
    if (page.isClosed()) return;
    const title = await page.title().catch(() => "");
    const key = `${this.tabs.activeId}\n${page.url()}\n${title}`;
    if (key === this.#lastPage) return;
    this.#lastPage = key;
    this.#publish({ kind: "page", url: page.url(), title, tab: this.tabs.activeId });
  }

  async #stopCast(): Promise<void> {
    const cast = this.#cast;
    this.#cast = undefined;
    if (!cast) return;
    if (cast.counted) this.metrics.liveStreams.dec();
    await cast.cdp.send("Page.stopScreencast").catch(() => {});
    await cast.cdp.detach().catch(() => {});
  }

  async #stop(): Promise<void> {
    clearInterval(this.#tick);
    this.#tick = undefined;
    this.#lastFrame = undefined;
    await this.#stopCast();
  }
}
