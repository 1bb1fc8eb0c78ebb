import { SETTLE_GLOBAL } from "../lib/globals.ts";
import { watchDom } from "../lib/settle/activity.ts";
import type { Seen, SettleApi, SettleState, TypingState } from "../lib/settle/api.ts";
import { newBook, now } from "../lib/settle/book.ts";
import { answerReads } from "../lib/settle/bridge.ts";
import { countFrameHooks } from "../lib/settle/frame-hooks.ts";
import { watchNetwork } from "../lib/settle/network.ts";
import { refreshDue } from "../lib/settle/refresh.ts";
import { watchIndexedDb } from "../lib/settle/storage.ts";
import { watchTasks } from "../lib/settle/tasks.ts";
import { watchTyping } from "../lib/settle/typing.ts";

/**
 * The bookkeeping `wait.until: auto` reads, installed in every frame before any page script runs
 * (context.addInitScript, page/context.ts), and in a document the init script missed when a settle
 * finds none (page/settle.ts).
 *
 * It records, on the page's own clock (performance.now()):
 * - activity: DOM changes made after DOMContentLoaded (a parser building the document is not activity),
 *   in the document and in every shadow root, `style` attribute changes left out (animations);
 *   and apart from it the last change of any kind, style included (lib/settle/activity.ts);
 *   tracked timers firing; fetch, XHR and IndexedDB work finishing;
 * - pending work: fetch and XHR in flight (a request to a URL already fetched once is a poll and does
 *   not count), IndexedDB databases being opened and transactions not yet complete (lib/settle/storage.ts),
 *   timers due within SHORT_MS that were not set by a chain of timers (a ticking loop),
 *   frame callbacks not asked for by a chain of frame callbacks (an animation loop),
 *   websockets and EventSources that have not yet received their first message, and a meta refresh;
 *   each only while it is young, so what never ends is ignored (lib/settle/tasks.ts, network.ts, refresh.ts);
 * - when the page last posted a message (window or MessageChannel: a task it queued for itself, as
 *   React's scheduler does), how many frame callbacks it asked for are still to run, and how many hooks
 *   it set that run in a rendering step unasked (scroll listeners, Intersection and Resize observers:
 *   lib/settle/frame-hooks.ts).
 *
 * - whether page script can see text typed into a field (the typing hooks, lib/settle/typing.ts): a
 *   listener or handler the page set for what typing fires (beforeinput, input, select, selectionchange,
 *   composition, and the transitions, animations and scrolling a changed field may start), any inline
 *   handler for them in the document, any shadow root, any child frame (whose window could hand the page
 *   an unwatched addEventListener). None of these: typing runs no page script, so it queues nothing.
 *
 * Host code reads it with page.evaluate (entries/read-page.ts, entries/handlers-ran.ts). The selector
 * engines run in Playwright's isolated world, which sees none of this; they read it through a MouseEvent
 * named SETTLE_GLOBAL (lib/settle/bridge.ts).
 */
export default function settleInit(): void {
  if (Object.hasOwn(window, SETTLE_GLOBAL)) return;
  const book = newBook();
  const dom = watchDom(book);
  const tasks = watchTasks(book);
  const { timers, frames, raf, afterTask } = tasks;
  const frameHooks = countFrameHooks();
  const typing = watchTyping();

  // What a read before typing needs: the page queued nothing since an earlier read (origin, asked),
  // sets nothing going at its next rendering step, and no page script can see the typing.
  const typingState = (): TypingState => ({
    origin: performance.timeOrigin,
    asked: book.asked,
    pendingFrames: frames.size,
    frameHooks: frameHooks(),
    typingHooks: typing() + dom.shadowRoots + window.length,
  });

  const network = watchNetwork(book);
  watchIndexedDb(book, network);
  const { requests, streams } = network;

  const state = (youngMs: number): SettleState => {
    listen();
    const t = now();
    let pendingRequests = 0;
    for (const started of requests.values()) if (t - started < youngMs) pendingRequests++;
    let pendingStreams = 0;
    for (const started of streams.values()) if (t - started < youngMs) pendingStreams++;
    let nextTimer = -1;
    for (const due of timers.values())
      if (due >= t - 50 && (nextTimer < 0 || due < nextTimer)) nextTimer = due;
    return {
      now: t,
      readyState: document.readyState,
      lastActivity: book.lastActivity,
      pendingRequests,
      pendingStreams,
      nextTimer,
      refreshAt: refreshDue(),
      height: document.documentElement ? document.documentElement.scrollHeight : 0,
      lastChange: dom.lastChange,
      origin: performance.timeOrigin,
      asked: book.asked,
      pendingFrames: frames.size,
      lastPosted: tasks.lastPosted,
      frameHooks: frameHooks(),
    };
  };

  const listen = answerReads(state, typingState);
  listen();

  const api: SettleApi = {
    state,
    // Once the page has run a task, and the frame callbacks its handlers asked for if any: the state.
    // At once when, since seen (what a read before the action found), the page asked for nothing and
    // set no hook its next rendering step runs: that task would run none of its work.
    handlersRan: (youngMs: number, seen: Seen | null) =>
      seen &&
      seen.origin === performance.timeOrigin &&
      seen.asked === book.asked &&
      !frames.size &&
      !frameHooks()
        ? Promise.resolve(state(youngMs))
        : new Promise<SettleState>((resolve) => {
            afterTask(() => {
              if (!frames.size || !raf) return resolve(state(youngMs));
              raf.call(window, () => afterTask(() => resolve(state(youngMs))));
            });
          }),
  };
  Object.defineProperty(window, SETTLE_GLOBAL, { enumerable: false, configurable: false, value: api });
}
