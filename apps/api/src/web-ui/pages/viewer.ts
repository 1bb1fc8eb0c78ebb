/**
 * The live view page (runs in the viewer's browser, bundled by scripts/build-web-ui.ts): the session's
 * tab as it changes, its URL and title, and the actions as they run. In interactive mode, clicks, keys and
 * the wheel on the picture go to the page. Everything shown comes from the session's page and is set as
 * text or as an image's data URL, never as HTML.
 */
import type { LiveEvent, LiveInput } from "@browserfleet/contracts";
import { html, render } from "htm/preact";
import { useEffect, useRef, useState } from "preact/hooks";

type Frame = Extract<LiveEvent, { kind: "frame" }>;
type Page = Extract<LiveEvent, { kind: "page" }>;
type Action = Extract<LiveEvent, { kind: "action" }>;
type Status = "connecting" | "live" | "reconnecting" | "ended" | "refused";

const KEPT_ACTIONS = 50;
/** Keys sent by name; any other single character is typed as text. */
const NAMED_KEYS = new Set([
  "Enter",
  "Backspace",
  "Tab",
  "Escape",
  "Delete",
  "ArrowUp",
  "ArrowDown",
  "ArrowLeft",
  "ArrowRight",
  "Home",
  "End",
  "PageUp",
  "PageDown",
]);

function post(base: string, input: LiveInput): Promise<Response> {
  return fetch(`${base}/input`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(input),
    credentials: "omit",
  });
}

/** Characters typed in a burst go as one input; named keys, clicks and scrolls keep their order. */
function inputQueue(base: string, onError: (m: string) => void) {
  let text = "";
  let textTimer: number | undefined;
  let chain: Promise<unknown> = Promise.resolve();
  const send = (input: LiveInput) => {
    chain = chain.then(async () => {
      const res = await post(base, input).catch(() => undefined);
      if (!res) return onError("the input did not reach the page");
      if (!res.ok) {
        const body = (await res.json().catch(() => ({}))) as { error?: { message?: string } };
        onError(body.error?.message ?? `the input was refused (${res.status})`);
      }
    });
  };
  const flushText = () => {
    clearTimeout(textTimer);
    if (text) send({ type: "text", text });
    text = "";
  };
  return {
    text(c: string) {
      text += c;
      clearTimeout(textTimer);
      textTimer = window.setTimeout(flushText, 120);
    },
    other(input: LiveInput) {
      flushText();
      send(input);
    },
  };
}

function Viewer({ base, interactive }: { base: string; interactive: boolean }) {
  const [status, setStatus] = useState<Status>("connecting");
  const [ended, setEnded] = useState("");
  const [frame, setFrame] = useState<Frame>();
  const [page, setPage] = useState<Page>();
  const [actions, setActions] = useState<Action[]>([]);
  const [problem, setProblem] = useState("");
  const frameRef = useRef<Frame | undefined>(undefined);
  const queue = useRef(inputQueue(base, setProblem));
  const wheel = useRef({ dx: 0, dy: 0, timer: 0 });

  useEffect(() => {
    const es = new EventSource(`${base}/events`);
    const on = <E>(name: string, f: (e: E) => void) =>
      es.addEventListener(name, (m) => f(JSON.parse((m as MessageEvent<string>).data) as E));
    es.onopen = () => setStatus("live");
    on<Frame>("frame", (f) => {
      frameRef.current = f;
      setFrame(f);
    });
    on<Page>("page", setPage);
    on<Action>("action", (a) => setActions((list) => [a, ...list].slice(0, KEPT_ACTIONS)));
    on<{ reason: string }>("ended", (e) => {
      setEnded(e.reason);
      setStatus("ended");
      es.close();
    });
    es.onerror = () => {
      // A refused link (expired, another session's, ended) is not retried by the browser.
      setStatus((s) =>
        s === "ended" ? s : es.readyState === EventSource.CLOSED ? "refused" : "reconnecting",
      );
    };
    return () => es.close();
  }, [base]);

  const at = (e: MouseEvent | WheelEvent) => {
    const f = frameRef.current;
    const img = e.currentTarget as HTMLImageElement;
    const r = img.getBoundingClientRect();
    if (!f || r.width === 0 || r.height === 0) return undefined;
    return { x: ((e.clientX - r.left) * f.width) / r.width, y: ((e.clientY - r.top) * f.height) / r.height };
  };
  const onClick = (e: MouseEvent) => {
    const p = at(e);
    if (p) queue.current.other({ type: "click", x: p.x, y: p.y, button: "left" });
    (e.currentTarget as HTMLElement).focus();
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key.length === 1) queue.current.text(e.key);
    else if (NAMED_KEYS.has(e.key)) queue.current.other({ type: "press", key: e.key });
    else return;
    e.preventDefault();
  };
  const onWheel = (e: WheelEvent) => {
    e.preventDefault();
    const w = wheel.current;
    w.dx += e.deltaX;
    w.dy += e.deltaY;
    if (w.timer) return;
    w.timer = window.setTimeout(() => {
      queue.current.other({ type: "scroll", dx: w.dx, dy: w.dy });
      w.dx = 0;
      w.dy = 0;
      w.timer = 0;
    }, 100);
  };

  const statusText: Record<Status, string> = {
    connecting: "Connecting…",
    live: frame ? "Live" : "Live: waiting for the page to draw",
    reconnecting: "Connection lost: reconnecting…",
    ended: `The session ended (${ended})`,
    refused: "This live view link has expired, belongs to a session that ended, or is not valid",
  };
  const picture = frame
    ? html`<img
        class="frame"
        src=${`data:image/jpeg;base64,${frame.data}`}
        width=${frame.width}
        height=${frame.height}
        alt=${page?.title ? `The session's page: ${page.title}` : "The session's page"}
        data-at=${frame.at}
        ...${
          interactive
            ? {
                tabIndex: 0,
                onClick,
                onKeyDown,
                onWheel,
                role: "application",
                "aria-roledescription": "remote page",
              }
            : {}
        }
      />`
    : html`<p class="empty">No picture yet.</p>`;
  return html`
    <header>
      <h1>Live view</h1>
      <p class="mode">${interactive ? "Interactive: click and type in the picture to control the page" : "View only"}</p>
      <p class=${`status status-${status}`} role="status">${statusText[status]}</p>
    </header>
    <main class="split">
      <section class="page" aria-label="The page">
        <p class="title">${page?.title || "(no title)"}</p>
        <p class="url">${page?.url ?? ""}${page ? html` <span class="tab">tab ${page.tab}</span>` : ""}</p>
        ${picture}
        ${problem ? html`<p class="problem" role="alert">${problem}</p>` : ""}
      </section>
      <section class="actions" aria-label="Actions">
        <h2>Actions</h2>
        ${
          actions.length === 0
            ? html`<p class="empty">No action yet.</p>`
            : html`<ol reversed>
                ${actions.map(
                  (a) =>
                    html`<li class=${a.ok ? "ok" : "failed"}>
                      <span class="name">${a.action}</span>${a.target ? html` <code>${a.target}</code>` : ""}${
                        a.detail ? html` <span class="detail">${a.detail}</span>` : ""
                      }${a.ok ? "" : html` <strong>failed</strong>`}
                    </li>`,
                )}
              </ol>`
        }
      </section>
    </main>
  `;
}

function Refused({ why }: { why: string }) {
  return html`<header><h1>Live view</h1></header>
    <main class="refused">
      <p role="alert">
        ${why === "ended" ? "This session has ended: there is nothing left to watch." : "This live view link has expired or is not valid."}
      </p>
    </main>`;
}

const root = document.getElementById("app");
if (root)
  render(
    root.dataset.refused
      ? html`<${Refused} why=${root.dataset.refused} />`
      : html`<${Viewer} base=${location.pathname.replace(/\/$/, "")} interactive=${root.dataset.mode === "interactive"} />`,
    root,
  );
