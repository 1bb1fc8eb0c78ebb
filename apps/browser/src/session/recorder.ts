import { randomBytes } from "node:crypto";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import { decodeJson, RECORDING_SAVE_SUBJECT } from "@browserfleet/bus";
import { type Action, checkReceived, RECORDING_HEADERS, recordingPartSaved } from "@browserfleet/contracts";
import { headers, type NatsConnection } from "@nats-io/transport-node";
import type { BrowserContext, Page } from "playwright-core";
import type { RecorderNames } from "../injected/entries/record-init.ts";
import recordInit from "../injected/generated/record-init.ts";
import recordSnapshot from "../injected/generated/record-snapshot.ts";
import type { BrowserMetrics } from "../metrics.ts";
import { describeForViewer } from "./live-actions.ts";
import { ActiveTabStream, type Batch, EventBatch, eventHead, RRWEB, slices } from "./recording-parts.ts";
import type { SessionTabs } from "./tabs.ts";

const gzipped = promisify(gzip);

/** Parts go out this often while a session runs, so a worker that dies loses a few seconds at most. */
const FLUSH_EVERY_MS = 3000;
/** ...or as soon as this much waits (a full snapshot of a large page): parts stay small on the bus. */
const FLUSH_BYTES = 64 * 1024;
/** What waits unsent (the api is away) before new events are dropped, and a snapshot resumes the stream. */
const MAX_UNSENT_BYTES = 16 * 1024 * 1024;
/** Room kept in a bus message for its headers. */
const HEADER_ROOM = 4096;
const SEND_TIMEOUT_MS = 10_000;

interface Part {
  seq: number;
  body: Uint8Array;
  events: number;
  from: number;
  to: number;
  final: boolean;
}

/**
 * A recorded session's recording on its worker. rrweb runs in each document of the session's context
 * (record-init), handing its events to a binding; the events of the active tab are kept (see
 * ActiveTabStream), with each action of an act as an rrweb custom event, and sent every few seconds as a
 * gzip part to an api replica (RECORDING_SAVE_SUBJECT), which stores it with the artifacts. A part the api
 * could not take is sent again; the api says stop when the recording reached its size limit.
 */
export class SessionRecorder {
  readonly #stream = new ActiveTabStream();
  readonly #batch = new EventBatch();
  readonly #unsent: Part[] = [];
  #unsentBytes = 0;
  #seq = 0;
  #stopped = false;
  #pumping: Promise<void> | undefined;
  #cutting: Promise<void> = Promise.resolve();
  #activeTab = "t1";
  #activeSince = 0;
  readonly #timer: NodeJS.Timeout;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly sessionId: string,
    private readonly tabs: SessionTabs,
    private readonly names: RecorderNames,
    private readonly metrics: BrowserMetrics,
  ) {
    this.#timer = setInterval(() => void this.flush(), FLUSH_EVERY_MS);
    this.#timer.unref();
  }

  /** Installs the recorder in the context: before its first page, so the recording starts with it. */
  static async attach(
    nc: NatsConnection,
    sessionId: string,
    context: BrowserContext,
    tabs: SessionTabs,
    metrics: BrowserMetrics,
  ): Promise<SessionRecorder> {
    const names: RecorderNames = {
      binding: `__bf${randomBytes(8).toString("hex")}`,
      snapshotEvent: `bf${randomBytes(8).toString("hex")}`,
    };
    const r = new SessionRecorder(nc, sessionId, tabs, names, metrics);
    await context.exposeBinding(names.binding, (source, json: unknown) => {
      if (typeof json === "string") r.#take(source.page, json);
    });
    await context.addInitScript(recordInit, names);
    return r;
  }

  /**
   * The session's first page was written with page.setContent (html): document.open() took the recorder's
   * observers away with the blank page's, so it starts again on the page as written.
   */
  async restartIn(page: Page): Promise<void> {
    await page.evaluate(recordInit, { ...this.names, blank: true }).catch(() => {});
  }

  /** An action of an act ran: a step of the replay. Typed text only by its length, as the live view. */
  action(a: Action, ok: boolean): void {
    this.#active();
    this.#add(
      JSON.stringify({
        type: RRWEB.custom,
        data: { tag: "action", payload: { ...describeForViewer(a), ok } },
        timestamp: Date.now(),
      }),
      Date.now(),
    );
  }

  /** After an act: when the agent switched tabs, the new active tab is asked for a full snapshot. */
  followActiveTab(): void {
    if (this.#stopped) return;
    const active = this.#active();
    if (this.#stream.needsSnapshot(active)) this.#askSnapshot(this.tabs.active);
  }

  /**
   * Sends what is left, marked final, within the deadline. What could not be sent by then is lost (the
   * session's context is closing).
   */
  async close(reason: string, deadline: number): Promise<void> {
    clearInterval(this.#timer);
    if (this.#stopped) return;
    this.#add(
      JSON.stringify({
        type: RRWEB.custom,
        data: { tag: "ended", payload: { reason } },
        timestamp: Date.now(),
      }),
      Date.now(),
    );
    await this.#cut(true);
    await Promise.race([this.#pump(), new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now())))]);
    this.#stopped = true;
    if (this.#unsent.length) this.metrics.recordingParts.inc({ outcome: "dropped" }, this.#unsent.length);
    this.#unsent.length = 0;
  }

  /** The session did not open after all: nothing is sent. */
  discard(): void {
    clearInterval(this.#timer);
    this.#stopped = true;
  }

  /** Cuts what waits into a part and sends what is unsent. */
  async flush(): Promise<void> {
    if (this.#stopped) return;
    await this.#cut(false);
    await this.#pump();
  }

  /** A batch of events from a page: JSON lines. */
  #take(page: Page, lines: string): void {
    if (this.#stopped) return;
    const tab = this.tabs.idOf(page);
    const active = this.#active();
    for (const json of lines.split("\n")) {
      const head = eventHead(json);
      if (!head) continue;
      const admitted = this.#stream.admit(tab, active, head.type, head.timestamp, this.#activeSince);
      if (admitted === "snapshot") this.#askSnapshot(page);
      if (admitted === "keep") this.#add(json, head.timestamp);
    }
  }

  /** The active tab, and since when (as first seen here: never earlier than it became active). */
  #active(): string {
    const id = this.tabs.activeId;
    if (id !== this.#activeTab) {
      this.#activeTab = id;
      this.#activeSince = Date.now();
    }
    return id;
  }

  #add(json: string, at: number): void {
    if (this.#stopped) return;
    if (this.#unsentBytes + this.#batch.bytes + json.length > MAX_UNSENT_BYTES) {
      // The api has not taken parts for a while: drop, and start again from a snapshot once it does.
      this.#stream.gap();
      return;
    }
    this.#batch.add(json, at);
    if (this.#batch.bytes >= FLUSH_BYTES) void this.flush();
  }

  #askSnapshot(page: Page): void {
    page.evaluate(recordSnapshot, this.names.snapshotEvent).catch(() => {});
  }

  /** Cuts what waits into parts (in order: each cut after the one before, whatever gzip takes). */
  #cut(final: boolean): Promise<void> {
    if (this.#batch.size > 0 || final) {
      const batch = this.#batch.take();
      this.#cutting = this.#cutting.then(() => this.#package(batch, final));
    }
    return this.#cutting;
  }

  async #package(batch: Batch, final: boolean): Promise<void> {
    const body = new Uint8Array(await gzipped(batch.lines.map((l) => `${l}\n`).join("")));
    const most = (this.nc.info?.max_payload ?? 1024 * 1024) - HEADER_ROOM;
    const pieces = slices(body, most);
    pieces.forEach((piece, i) => {
      const last = i === pieces.length - 1;
      this.#unsent.push({
        seq: this.#seq++,
        body: piece,
        events: last ? batch.lines.length : 0,
        from: batch.from || Date.now(),
        to: batch.to || Date.now(),
        final: final && last,
      });
      this.#unsentBytes += piece.byteLength;
    });
  }

  /** Sends the unsent parts in order, one at a time; stops at the first the api did not take. */
  #pump(): Promise<void> {
    if (this.#pumping) return this.#pumping;
    // Forgotten once settled, never before it is remembered (a drain with nothing to send settles at once).
    const pumping: Promise<void> = this.#drain().finally(() => {
      if (this.#pumping === pumping) this.#pumping = undefined;
    });
    this.#pumping = pumping;
    return pumping;
  }

  async #drain(): Promise<void> {
    while (this.#unsent.length > 0 && !this.#stopped) {
      const part = this.#unsent[0] as Part;
      const outcome = await this.#send(part);
      if (outcome === "retry") {
        this.metrics.recordingParts.inc({ outcome: "retried" });
        break;
      }
      this.#unsent.shift();
      this.#unsentBytes -= part.body.byteLength;
      if (outcome === "stop") {
        this.metrics.recordingParts.inc({ outcome: "refused" });
        this.#stopped = true;
        clearInterval(this.#timer);
      } else {
        this.metrics.recordingParts.inc({ outcome: "stored" });
        this.metrics.recordingBytes.inc(part.body.byteLength);
      }
    }
  }

  async #send(part: Part): Promise<"stored" | "retry" | "stop"> {
    const h = headers();
    h.set(RECORDING_HEADERS.session, this.sessionId);
    h.set(RECORDING_HEADERS.seq, String(part.seq));
    h.set(RECORDING_HEADERS.events, String(part.events));
    h.set(RECORDING_HEADERS.from, String(part.from));
    h.set(RECORDING_HEADERS.to, String(part.to));
    if (part.final) h.set(RECORDING_HEADERS.final, "1");
    try {
      const reply = await this.nc.request(RECORDING_SAVE_SUBJECT, part.body, {
        timeout: SEND_TIMEOUT_MS,
        headers: h,
      });
      const saved = checkReceived(
        recordingPartSaved,
        "recording part reply",
        decodeJson<unknown>(reply.data),
      );
      if (!saved.ok) return "retry";
      if (saved.value.ok) return "stored";
      return saved.value.stop ? "stop" : "retry";
    } catch {
      return "retry";
    }
  }
}
