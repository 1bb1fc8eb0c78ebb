import { SETTLE_GLOBAL } from "../globals.ts";

/** What the settle bookkeeping says of the page; times on the page's clock (performance.now()). */
export interface SettleState {
  now: number;
  readyState: DocumentReadyState;
  /** The last DOM change after DOMContentLoaded, style changes left out, or work done (-1: none). */
  lastActivity: number;
  /** Fetches and XHRs in flight, younger than asked. */
  pendingRequests: number;
  /** Websockets and EventSources yet to receive a first message, younger than asked. */
  pendingStreams: number;
  /** When the soonest short timer is due (-1: none). */
  nextTimer: number;
  /** When a meta refresh to another page is due (-1: none). */
  refreshAt: number;
  height: number;
  /** The last DOM change of any kind, style changes included (-1: none). */
  lastChange: number;
  /** The document's time origin: tells one document from the next. */
  origin: number;
  /** How many timers, frame callbacks, messages, requests and streams the page has asked for so far. */
  asked: number;
  /** Frame callbacks a handler asked for that have not run yet (an animation loop's are not counted). */
  pendingFrames: number;
  /** When the page last posted a message, a task it queued for itself (-1: never). */
  lastPosted: number;
  /** Hooks the page set that its next rendering step may run (scroll listeners, Intersection and Resize observers). */
  frameHooks: number;
}

/** What a read before typing needs (see entries/settle-init.ts). */
export interface TypingState {
  origin: number;
  asked: number;
  pendingFrames: number;
  frameHooks: number;
  /** Ways page script could see typing; Infinity (null once sent as JSON) when one cannot be watched. */
  typingHooks: number;
}

/** What a read of the page found: unchanged at a later read, the page queued nothing in between. */
export interface Seen {
  origin: number;
  asked: number;
}

/** What the settle bookkeeping keeps on the window, under SETTLE_GLOBAL. */
export interface SettleApi {
  state(youngMs: number): SettleState;
  /**
   * Once the page has run a task, and the frame callbacks its handlers asked for if any: the state.
   * At once when, since `seen`, the page asked for nothing and set no hook its next rendering step runs.
   */
  handlersRan(youngMs: number, seen: Seen | null): Promise<SettleState>;
}

/** The settle bookkeeping of this window; undefined in a document the init script missed. */
export function settleApi(): SettleApi | undefined {
  return (window as unknown as Record<string, SettleApi | undefined>)[SETTLE_GLOBAL];
}
