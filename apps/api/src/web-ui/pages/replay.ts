/**
 * The replay page of a session's recording (runs in the viewer's browser, bundled by
 * scripts/build-web-ui.ts): rrweb's replayer rebuilds the recorded page in a sandboxed frame (no script of
 * the page runs: rrweb records none and the frame may not run any), with play, pause, speed and a time
 * slider, and the agent's actions and the pages it went to as steps to jump to. Step texts come from
 * the recording and are set as text.
 */
import { Replayer } from "@rrweb/replay";
import type { eventWithTime } from "@rrweb/types";
import { html, render } from "htm/preact";
import { useEffect, useRef, useState } from "preact/hooks";

/** rrweb's event types this page reads (rrweb's EventType). */
const META = 4;
const CUSTOM = 5;
const SPEEDS = [1, 2, 4, 8];

interface Step {
  /** Into the recording, ms. */
  offset: number;
  kind: "action" | "page" | "ended";
  text: string;
  detail?: string;
  ok?: boolean;
}

type ActionPayload = { action?: string; target?: string; detail?: string; ok?: boolean };

/** The steps of a recording: each action of the agent, each page it went to, and its end. */
function stepsOf(events: eventWithTime[], start: number): Step[] {
  const steps: Step[] = [];
  let lastHref = "";
  for (const e of events) {
    const offset = Math.max(0, e.timestamp - start);
    if (e.type === META) {
      const href = String((e.data as { href?: string }).href ?? "");
      if (href && href !== lastHref) steps.push({ offset, kind: "page", text: href });
      lastHref = href;
    } else if (e.type === CUSTOM) {
      const { tag, payload } = e.data as { tag: string; payload: unknown };
      if (tag === "action") {
        const a = payload as ActionPayload;
        steps.push({
          offset,
          kind: "action",
          text: `${a.action ?? "action"}${a.target ? ` ${a.target}` : ""}`,
          ...(a.detail ? { detail: a.detail } : {}),
          ok: a.ok !== false,
        });
      } else if (tag === "ended")
        steps.push({
          offset,
          kind: "ended",
          text: `session ended (${String((payload as { reason?: string }).reason)})`,
        });
    }
  }
  return steps;
}

const clock = (ms: number) => {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
};

async function loadEvents(base: string): Promise<eventWithTime[]> {
  const res = await fetch(`${base}/events`, { credentials: "omit" });
  if (!res.ok)
    throw new Error(res.status === 404 ? "expired" : `the recording could not be read (${res.status})`);
  const text = await res.text();
  const events: eventWithTime[] = [];
  for (const line of text.split("\n")) {
    if (!line) continue;
    try {
      events.push(JSON.parse(line) as eventWithTime);
    } catch {}
  }
  return events.sort((a, b) => a.timestamp - b.timestamp);
}

function Player({ base, live }: { base: string; live: boolean }) {
  const [events, setEvents] = useState<eventWithTime[]>();
  const [problem, setProblem] = useState("");
  const [playing, setPlaying] = useState(false);
  const [time, setTime] = useState(0);
  const [speed, setSpeed] = useState(1);
  const [current, setCurrent] = useState(-1);
  const [size, setSize] = useState({ width: 1280, height: 720 });
  const stage = useRef<HTMLDivElement>(null);
  const frame = useRef<HTMLDivElement>(null);
  const replayer = useRef<Replayer | undefined>(undefined);
  const [scale, setScale] = useState(1);

  const load = () => {
    setProblem("");
    loadEvents(base).then(setEvents, (e: Error) => setProblem(e.message));
  };
  useEffect(load, [base]);

  const hasPage = (events ?? []).some((e) => e.type === META);
  useEffect(() => {
    if (!events || !hasPage || !frame.current) return;
    frame.current.replaceChildren();
    const r = new Replayer(events, {
      root: frame.current,
      showWarning: false,
      mouseTail: false,
      skipInactive: true,
      triggerFocus: false,
      // The sandboxed frame keeps the page's own script from running.
      UNSAFE_replayCanvas: false,
    });
    r.iframe.title = "The recorded page";
    r.on("resize", (d) => setSize(d as { width: number; height: number }));
    r.on("finish", () => setPlaying(false));
    replayer.current = r;
    r.pause(0);
    setTime(0);
    return () => {
      r.destroy();
      replayer.current = undefined;
    };
  }, [events, hasPage]);

  useEffect(() => {
    const fit = () => {
      const w = stage.current?.clientWidth ?? size.width;
      setScale(Math.min(1, w / size.width));
    };
    fit();
    window.addEventListener("resize", fit);
    return () => window.removeEventListener("resize", fit);
  }, [size]);

  useEffect(() => {
    if (!playing) return;
    const t = window.setInterval(() => setTime(replayer.current?.getCurrentTime() ?? 0), 200);
    return () => clearInterval(t);
  }, [playing]);

  const start = events?.[0]?.timestamp ?? 0;
  const total = events && events.length > 0 ? (events.at(-1)?.timestamp ?? start) - start : 0;
  const steps = events ? stepsOf(events, start) : [];
  useEffect(() => {
    let at = -1;
    steps.forEach((s, i) => {
      if (s.offset <= time) at = i;
    });
    setCurrent(at);
  }, [time, events]);

  const seek = (ms: number, play = playing) => {
    const r = replayer.current;
    if (!r) return;
    if (play) r.play(ms);
    else r.pause(ms);
    setTime(ms);
  };
  const toggle = () => {
    const r = replayer.current;
    if (!r) return;
    if (playing) {
      r.pause();
      setTime(r.getCurrentTime());
      setPlaying(false);
    } else {
      const from = time >= total ? 0 : time;
      r.play(from);
      setPlaying(true);
    }
  };
  const changeSpeed = (s: number) => {
    setSpeed(s);
    replayer.current?.setConfig({ speed: s });
  };

  if (problem === "expired") return html`<${Refused} />`;
  return html`
    <header>
      <h1>Session recording</h1>
      <p class="mode">${live ? "The session is still open: this is the recording so far" : "Recorded session"}</p>
      <p class="status" role="status">
        ${events === undefined ? (problem ? "" : "Loading…") : `${clock(total)} · ${steps.filter((s) => s.kind === "action").length} actions`}
      </p>
    </header>
    <main class="split">
      <section class="player" aria-label="Replay">
        ${problem ? html`<p class="problem" role="alert">${problem}</p>` : ""}
        ${events && !hasPage ? html`<p class="empty">Nothing was recorded: the page never loaded.</p>` : ""}
        <div class="controls" hidden=${!hasPage}>
          <button type="button" onClick=${toggle} aria-pressed=${playing}>${playing ? "Pause" : "Play"}</button>
          <label class="time"
            ><span class="visually-hidden">Position</span>
            <input
              type="range"
              min="0"
              max=${total}
              step="100"
              value=${time}
              onInput=${(e: Event) => seek(Number((e.currentTarget as HTMLInputElement).value))}
          /></label>
          <span class="clock">${clock(time)} / ${clock(total)}</span>
          <label
            >Speed
            <select value=${speed} onChange=${(e: Event) => changeSpeed(Number((e.currentTarget as HTMLSelectElement).value))}>
              ${SPEEDS.map((s) => html`<option value=${s}>${s}×</option>`)}
            </select></label
          >
          ${live ? html`<button type="button" onClick=${load}>Load what is new</button>` : ""}
        </div>
        <div class="stage" ref=${stage} style=${`height:${Math.ceil(size.height * scale)}px`}>
          <div
            class="frame"
            ref=${frame}
            style=${`width:${size.width}px;height:${size.height}px;transform:scale(${scale})`}
          ></div>
        </div>
      </section>
      <section class="steps" aria-label="Steps">
        <h2>Steps</h2>
        ${
          steps.length === 0
            ? html`<p class="empty">No step yet.</p>`
            : html`<ol>
                ${steps.map(
                  (s, i) =>
                    html`<li class=${`${s.kind}${s.ok === false ? " failed" : ""}${i === current ? " current" : ""}`} aria-current=${i === current ? "step" : undefined}>
                      <button type="button" class="jump" onClick=${() => seek(s.offset)}>
                        <span class="at">${clock(s.offset)}</span>
                        <span class="name">${s.text}</span>${s.detail ? html` <span class="detail">${s.detail}</span>` : ""}${
                          s.ok === false ? html` <strong>failed</strong>` : ""
                        }
                      </button>
                    </li>`,
                )}
              </ol>`
        }
      </section>
    </main>
  `;
}

function Refused() {
  return html`<header><h1>Session recording</h1></header>
    <main class="refused">
      <p role="alert">This recording link has expired (the recording was deleted) or is not valid.</p>
    </main>`;
}

const root = document.getElementById("app");
if (root)
  render(
    root.dataset.refused
      ? html`<${Refused} />`
      : html`<${Player} base=${location.pathname.replace(/\/$/, "")} live=${root.dataset.status === "recording"} />`,
    root,
  );
