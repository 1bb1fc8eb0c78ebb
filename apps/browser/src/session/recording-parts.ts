/**
 * The pure part of a session's recording on its worker: which rrweb events are kept, and how the kept ones
 * are cut into parts for the bus. No I/O here (see recorder.ts).
 */

/** rrweb's event types the recorder tells apart (rrweb's EventType). */
export const RRWEB = { fullSnapshot: 2, meta: 4, custom: 5 } as const;

export type Admission = "keep" | "drop" | "snapshot";

/**
 * A recording is one stream, of the active tab: rrweb replays a single document at a time. Events of
 * other tabs are dropped. When another tab becomes active, its events are kept from its next full snapshot
 * on (rrweb's Meta event starts one), which the recorder asks the tab for once ("snapshot"); a snapshot is
 * also what resumes the stream after events had to be dropped (a gap), since later changes refer to nodes
 * the dropped ones made.
 */
export class ActiveTabStream {
  #recorded: string | undefined;
  #asked: string | undefined;

  /**
   * What to do with an event of type `type` from tab `tab`, made at `at`, the active tab being `active`
   * since `activeSince`. A page hands its events over in batches, so a snapshot the tab made while it was in
   * the background may arrive after the switch: it is asked for again rather than shown before its time.
   */
  admit(tab: string | undefined, active: string, type: number, at = 0, activeSince = 0): Admission {
    if (tab === undefined || tab !== active) return "drop";
    if (tab === this.#recorded) return "keep";
    if (type === RRWEB.meta && at >= activeSince) {
      this.#recorded = tab;
      this.#asked = undefined;
      return "keep";
    }
    return this.#ask(tab);
  }

  /** Whether the active tab needs a snapshot asked for (it changed, and nothing of it is kept yet). */
  needsSnapshot(active: string): boolean {
    return active !== this.#recorded && this.#ask(active) === "snapshot";
  }

  /** Events were lost: keep nothing more until a new full snapshot. */
  gap(): void {
    this.#recorded = undefined;
    this.#asked = undefined;
  }

  #ask(tab: string): Admission {
    if (this.#asked === tab) return "drop";
    this.#asked = tab;
    return "snapshot";
  }
}

/** A stretch of events ready to send: newline-delimited JSON. */
export interface Batch {
  lines: string[];
  bytes: number;
  from: number;
  to: number;
}

/** Events waiting to be cut into a part. */
export class EventBatch {
  #lines: string[] = [];
  #bytes = 0;
  #from = 0;
  #to = 0;

  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#lines.length;
  }

  add(json: string, at: number): void {
    if (this.#lines.length === 0) this.#from = at;
    this.#lines.push(json);
    this.#bytes += json.length + 1;
    this.#to = Math.max(this.#to, at);
  }

  take(): Batch {
    const out = { lines: this.#lines, bytes: this.#bytes, from: this.#from, to: this.#to };
    this.#lines = [];
    this.#bytes = 0;
    return out;
  }
}

/**
 * One gzip member cut into pieces that each fit a bus message: the api stores each as a part, and a
 * reader joins the parts in order before gunzip, so a piece needs no meaning of its own.
 */
export function slices(body: Uint8Array, most: number): Uint8Array[] {
  if (body.byteLength <= most) return [body];
  const out: Uint8Array[] = [];
  for (let at = 0; at < body.byteLength; at += most) out.push(body.subarray(at, at + most));
  return out;
}

/**
 * The type and time of an rrweb event, read without parsing the whole event (a full snapshot is large):
 * rrweb makes each as `{type, data}` and adds `timestamp` last.
 */
export function eventHead(json: string): { type: number; timestamp: number } | undefined {
  const type = /^\{"type":(\d+)/.exec(json.slice(0, 24));
  const ts = /"timestamp":(\d+)\}$/.exec(json.slice(-40));
  if (!type) return undefined;
  return { type: Number(type[1]), timestamp: ts ? Number(ts[1]) : Date.now() };
}
