import { record } from "@rrweb/record";
import { scrollHooks } from "../lib/scroll-hooks.ts";

/** Names the worker picks for one session's context (random: a page cannot guess them). */
export interface RecorderNames {
  binding: string;
  snapshotEvent: string;
  /** Record an about:blank document too (one page.setContent wrote); else a tab's first blank one is skipped. */
  blank?: boolean;
}

/**
 * A recorded session's recorder, installed in every document of its context before any page script runs
 * (context.addInitScript, session/recorder.ts), and again in a document that document.open() emptied
 * (page.setContent: it takes every listener and observer away). In the top frame only (rrweb records
 * same-origin frames from there), it records the document with rrweb and hands each event, as JSON text,
 * to the worker's binding (a global function, like every Playwright binding; its name is random).
 *
 * Values typed into password fields are masked here, in the page (rrweb keeps a field masked even when a
 * script turns it into a text field to show it), so they never leave the page. Scripts and comments are
 * left out; stylesheets are inlined so a replay looks as the page did.
 *
 * `snapshotEvent`: the worker dispatches it on `window` when this tab becomes the one recorded (the agent
 * switched tabs); the recorder then takes a full snapshot, which a replay can start from.
 */
export default function recordInit({ binding, snapshotEvent, blank }: RecorderNames): void {
  const send = (window as unknown as Record<string, unknown>)[binding];
  if (window.top !== window || typeof send !== "function") return;
  if (location.href === "about:blank" && !blank) return;
  const emit = batched(send as (json: string) => void);
  const start = () => {
    // rrweb's own scroll listeners watch the page for the recording: the page itself set none of them, so
    // they must not make it look like a page that reacts to scrolling (an act would then wait for a
    // rendering step after every action instead of reading the page at once).
    const hooks = scrollHooks();
    const before = hooks?.hooks;
    startRecording(emit, snapshotEvent);
    if (hooks && before !== undefined) hooks.hooks = before;
  };
  // Started once the document is parsed, when rrweb sets everything up at once (see recordAfter).
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start, { once: true });
  else start();
}

/**
 * Events go to the worker a batch at a time (lines of JSON), when the page is idle or before it goes: a
 * binding call is a round trip to the browser's process, and one per event would double an act's. An idle
 * callback, not a timer, so the settle bookkeeping does not wait for it.
 */
function batched(send: (lines: string) => void): (json: string) => void {
  let queue: string[] = [];
  let due = false;
  const flush = () => {
    due = false;
    if (queue.length === 0) return;
    const lines = queue.join("\n");
    queue = [];
    try {
      send(lines);
    } catch {}
  };
  window.addEventListener("pagehide", flush);
  return (json) => {
    queue.push(json);
    if (queue.length >= 200 || json.length > 256 * 1024) flush();
    else if (!due) {
      due = true;
      requestIdleCallback(flush, { timeout: 500 });
    }
  };
}

function startRecording(emit: (json: string) => void, snapshotEvent: string): void {
  record({
    emit: (event) => emit(JSON.stringify(event)),
    maskInputOptions: { password: true },
    slimDOMOptions: {
      script: true,
      comment: true,
      headFavicon: true,
      headWhitespace: true,
      headMetaSocial: true,
      headMetaRobots: true,
      headMetaHttpEquiv: true,
      headMetaVerification: true,
    },
    inlineStylesheet: true,
    recordCanvas: false,
    collectFonts: false,
    // The page as soon as its document is parsed: an agent acts long before slow images finish loading.
    recordAfter: "DOMContentLoaded",
    sampling: { mousemove: 100, scroll: 150, media: 800, input: "last" },
  });
  window.addEventListener(snapshotEvent, () => record.takeFullSnapshot(true));
}
