/**
 * Pages that behave like the live web, on two origins (two ports of 127.0.0.1), for the tests of
 * `wait.until: auto`, client-side redirects, scrolling (the window's and panels', panels.ts), shadow DOM,
 * frames and overlays.
 *
 *   const web = await startLiveWeb();
 *   web.a("/late-timer")   // http://127.0.0.1:<port A>/late-timer
 *   web.b("/frame-b")      // the second origin
 *   await web.close();
 *
 * Every page shows a phrase a person would read once the page is done; the tests look for it.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { cmpScript, REAL_CMPS, type RealCmp } from "./consent-platforms.ts";
import { chatPanel, noPanels, scrollEventPanel, shadowPanel, untouchablePanels } from "./panels.ts";

export interface LiveWeb {
  /** A URL on the first origin. */
  a(path: string): string;
  /** A URL on the second origin. */
  b(path: string): string;
  hits(path: string): number;
  close(): Promise<void>;
}

const page = (title: string, body: string, head = "") =>
  `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title}</title>${head}</head><body>${body}</body></html>`;

const PIXEL = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
  "base64",
);

/** A tall block, so what follows it is out of the first viewport. */
const SPACER = `<div style="height:2400px">Scroll on for more.</div>`;

function routes(origin: string, other: string): Record<string, (req: IncomingMessage) => string> {
  return {
    "/static": () =>
      page("Static", `<h1>Static page</h1><p>Everything here was in the HTML from the start.</p>`),
    "/image-onload": () =>
      page(
        "Image onload",
        `<h1>Gallery</h1><p id="caption">Loading the picture…</p>
<img src="/img/slow.png?delay=300" alt="A slow picture" width="10" height="10"
  onload="document.getElementById('caption').textContent = 'Caption written once the picture arrived'">`,
      ),
    "/late-timer": () =>
      page(
        "Late timer",
        `<div id="app"><p>Loading…</p></div>
<script>
  window.addEventListener("load", () => {
    setTimeout(() => {
      document.getElementById("app").innerHTML = "<h1>Timer content arrived</h1><p>Built by script after load.</p>";
    }, 400);
  });
</script>`,
      ),
    "/late-fetch": () =>
      page(
        "Late fetch",
        `<div id="app"><p>Loading…</p></div>
<script>
  window.addEventListener("load", async () => {
    const res = await fetch("/api/items?delay=350");
    const items = await res.json();
    document.getElementById("app").innerHTML =
      "<h1>Catalogue</h1><ul>" + items.map((i) => "<li>" + i + "</li>").join("") + "</ul>";
  });
</script>`,
      ),
    // An offline-first app: it syncs its store in many small IndexedDB transactions (no DOM change, no
    // network, no timer meanwhile) and renders from the store once the sync is done, at least 600 ms on.
    "/offline-first": () =>
      page(
        "Offline first",
        `<div id="app"><p>Opening your notes…</p></div>
<script>
  window.addEventListener("load", () => {
    const started = performance.now();
    const open = indexedDB.open("offline-notes", 1);
    open.onupgradeneeded = () => open.result.createObjectStore("notes");
    open.onsuccess = () => {
      const db = open.result;
      let batch = 0;
      const sync = () => {
        const tx = db.transaction("notes", "readwrite");
        for (let i = 0; i < 20; i++) tx.objectStore("notes").put("Note " + (batch * 20 + i), batch * 20 + i);
        batch++;
        tx.oncomplete = () => (performance.now() - started < 600 ? sync() : render());
      };
      const render = () => {
        const count = db.transaction("notes").objectStore("notes").count();
        count.onsuccess = () => {
          document.getElementById("app").innerHTML =
            "<h1>Your notes</h1><p>" + count.result + " notes synced to this device.</p>";
        };
      };
      sync();
    };
  });
</script>`,
      ),
    "/spa-chain": () =>
      page(
        "SPA",
        `<div id="root">Loading…</div>
<script type="module">
  const user = await (await fetch("/api/items?delay=150")).json();
  await new Promise((r) => setTimeout(r, 120));
  const more = await (await fetch("/api/more?delay=150")).json();
  requestAnimationFrame(() => {
    document.getElementById("root").innerHTML =
      "<h1>Dashboard for " + user[0] + "</h1><p>" + more.text + "</p>";
  });
</script>`,
      ),
    "/lazy": () =>
      page(
        "Lazy",
        `<h1>Lazy page</h1>${SPACER}
<div id="sentinel">…</div>
<img loading="lazy" src="/img/lazy.png" alt="A lazy picture" width="10" height="10">
<script>
  const seen = new IntersectionObserver(async (entries) => {
    if (!entries.some((e) => e.isIntersecting)) return;
    seen.disconnect();
    const more = await (await fetch("/api/more?delay=150")).json();
    const p = document.createElement("p");
    p.textContent = more.text;
    document.getElementById("sentinel").replaceWith(p);
  });
  seen.observe(document.getElementById("sentinel"));
</script>`,
      ),
    "/infinite": () =>
      page(
        "Feed",
        `<h1>Endless feed</h1><div id="feed"></div><div id="more" style="height:10px"></div>
<script>
  let n = 0;
  const add = () => {
    const feed = document.getElementById("feed");
    for (let i = 0; i < 10; i++) {
      const d = document.createElement("div");
      d.style.height = "200px";
      d.textContent = "Feed item " + (++n);
      feed.appendChild(d);
    }
  };
  add();
  new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting)) setTimeout(add, 50);
  }).observe(document.getElementById("more"));
</script>`,
      ),
    // Lazy content in elements that scroll on their own (panels.ts). ?pages=0: an endless chat.
    "/panel-chat": (req) =>
      chatPanel(Number(new URL(req.url ?? "/", "http://x").searchParams.get("pages") ?? 4)),
    "/panel-scroll-event": () => scrollEventPanel(),
    "/panel-shadow": () => shadowPanel(),
    "/panel-untouchable": () => untouchablePanels(),
    "/panel-none": () => noPanels(),
    "/shadow": () =>
      page(
        "Shadow",
        `<h1>Components</h1>
<product-card><span slot="name">Slotted product name</span><p>Default slot description</p><span slot="missing">Never rendered light child</span></product-card>
<plain-widget></plain-widget>
<script>
  customElements.define("product-card", class extends HTMLElement {
    connectedCallback() {
      const root = this.attachShadow({ mode: "open" });
      root.innerHTML = '<style>h2{color:red}</style><h2>Shadow card title</h2><slot name="name"></slot>' +
        '<div><slot></slot></div><p hidden>Hidden shadow text</p><inner-price></inner-price>' +
        '<a href="/shadow-link">Shadow link</a>';
    }
  });
  customElements.define("inner-price", class extends HTMLElement {
    connectedCallback() {
      this.attachShadow({ mode: "open" }).innerHTML = "<strong>Nested shadow price 42 EUR</strong>";
    }
  });
  customElements.define("plain-widget", class extends HTMLElement {
    connectedCallback() {
      this.attachShadow({ mode: "open" }).innerHTML = '<slot>Fallback slot content</slot>';
    }
  });
</script>`,
      ),
    "/frames": () =>
      page(
        "Frames",
        `<h1>Page with frames</h1><p>Before the frames.</p>
<iframe src="/frame-a" title="same origin"></iframe>
<p>Between the frames.</p>
<iframe src="${other}/frame-b" title="cross origin"></iframe>
<iframe src="/frame-a" style="display:none"></iframe>
<p>After the frames.</p>`,
      ),
    "/frame-a": () =>
      page("Frame A", `<p>Same-origin frame text</p><a href="/from-frame-a">Frame A link</a>`),
    "/frame-b": () =>
      page(
        "Frame B",
        `<p>Cross-origin frame text</p><a href="/from-frame-b">Frame B link</a>
<iframe src="/frame-b-inner"></iframe>`,
      ),
    "/frame-b-inner": () => page("Frame B inner", `<p>Nested frame text</p>`),
    "/script-redirect": () =>
      page(
        "Leaving",
        `<p>This page moves on.</p><script>setTimeout(() => location.replace("/redirect-target"), 200);</script>`,
      ),
    "/meta-redirect": () =>
      page(
        "Leaving",
        `<p>This page moves on.</p>`,
        `<meta http-equiv="refresh" content="1;url=/redirect-target">`,
      ),
    "/redirect-target": () => page("Target", `<h1>You arrived at the target</h1>`),
    "/long-poll": () =>
      page(
        "Live",
        `<div id="live">Connecting…</div>
<script>
  const poll = async () => {
    const res = await fetch("/poll");
    const msg = await res.json();
    document.getElementById("live").textContent = msg.text;
    poll();
  };
  poll();
</script>`,
      ),
    "/websocket": () =>
      page(
        "Socket",
        `<div id="live">Connecting…</div>
<script>
  const ws = new WebSocket("${origin.replace("http", "ws")}/ws");
  ws.onmessage = (e) => { document.getElementById("live").textContent = e.data; };
</script>`,
      ),
    "/hanging-subresource": () =>
      page("Hanging", `<h1>Content next to a hanging image</h1><img src="/hang.png" alt="never arrives">`),
    "/consent": () =>
      page(
        "Shop",
        `<header><h1>Shop front</h1><button onclick="window.opened = true">Open menu</button></header>
<main>${Array.from(
          { length: 12 },
          (_, i) =>
            `<article><h2>Product ${i + 1}</h2><p>A sturdy thing you can order here, with a long description of what it is for and why people like it.</p><a href="/static">Read the story ${i + 1}</a></article>`,
        ).join("")}</main>
<div id="cookie-banner" style="position:fixed;inset:0;background:rgba(0,0,0,.6);z-index:9999">
  <div style="background:#fff;margin:20vh auto;width:60%;padding:20px" role="dialog" aria-label="Cookie consent">
    <p>We use cookies to improve your experience.</p>
    <button onclick="window.consent='accepted';document.getElementById('cookie-banner').remove()">Accept all</button>
    <button onclick="window.consent='rejected';document.getElementById('cookie-banner').remove()">Reject all</button>
  </div>
</div>`,
      ),
    // A real platform's banner (test/fixture-site/consent-platforms.ts); the choice made is fetched as
    // /consent-choice/<cmp>/<choice>, so hits() tells which button was clicked.
    "/consent-cmp": (req) => {
      const cmp = new URL(req.url ?? "/", "http://x").searchParams.get("cmp") as RealCmp;
      if (!REAL_CMPS.includes(cmp)) return page("Shop", "<p>no such platform</p>");
      return page(
        "Shop",
        `<header><h1>Shop front</h1><button onclick="window.opened = true">Open menu</button></header>
<main><p>A sturdy thing you can order here.</p></main>${cmpScript(cmp, { report: `/consent-choice/${cmp}` })}`,
      );
    },
    "/click-fetch": () =>
      page(
        "Details",
        `<h1>Product</h1><button id="more">Show details</button><div id="details"></div>
<script>
  document.getElementById("more").addEventListener("click", async () => {
    const more = await (await fetch("/api/more?delay=250")).json();
    setTimeout(() => { document.getElementById("details").textContent = more.text; }, 50);
  });
</script>`,
      ),
    "/live-index": () =>
      page(
        "Index",
        `<h1>Live index</h1><ul>
<li><a href="/late-timer">late timer</a></li>
<li><a href="/late-fetch">late fetch</a></li>
<li><a href="/shadow">shadow</a></li>
<li><a href="/frames">frames</a></li>
</ul>`,
      ),
  };
}

function wsAccept(key: string): string {
  return createHash("sha1").update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest("base64");
}

/** One unmasked text frame, as a server sends it. */
function wsText(text: string): Buffer {
  const payload = Buffer.from(text, "utf8");
  return Buffer.concat([Buffer.from([0x81, payload.length]), payload]);
}

export async function startLiveWeb(): Promise<LiveWeb> {
  const counts = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };
  const servers: Server[] = [];
  const origins: string[] = [];
  const handler = (index: number) => (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://x");
    const path = url.pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    res.setHeader("Cache-Control", "no-store");
    const delay = Number(url.searchParams.get("delay") ?? 0);
    const json = (body: unknown) => {
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify(body));
    };
    if (path === "/api/items") return later(delay, () => json(["Fetched item one", "Fetched item two"]));
    if (path === "/api/more") return later(delay, () => json({ text: "Lazy section loaded from the API" }));
    if (path === "/api/panel-items") {
      const from = Number(url.searchParams.get("from") ?? 1);
      const count = Number(url.searchParams.get("count") ?? 10);
      const label = url.searchParams.get("label") ?? "Item";
      return later(delay, () => json(Array.from({ length: count }, (_, i) => `${label} ${from + i}`)));
    }
    if (path === "/api/panel-touched") return json({ ok: true });
    if (path === "/poll") {
      // The first poll answers soon with the live content; the next ones hang like a quiet long-poll.
      if ((counts.get(path) ?? 0) === 1) return later(300, () => json({ text: "Live update one" }));
      return later(60_000, () => json({ text: "much later" }));
    }
    if (path === "/hang.png") return; // never answered
    if (path.startsWith("/img/")) {
      res.setHeader("Content-Type", "image/png");
      return later(delay, () => res.end(PIXEL));
    }
    const route = routes(origins[index]!, origins[1 - index]!)[path];
    if (!route) {
      res.statusCode = 404;
      return res.end(page("Not found", "<p>Not found</p>"));
    }
    res.setHeader("Content-Type", "text/html; charset=utf-8");
    res.end(route(req));
  };
  for (const index of [0, 1]) {
    const server = createServer(handler(index));
    server.on("connection", (s) => {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
    });
    server.on("upgrade", (req, socket) => {
      counts.set("/ws", (counts.get("/ws") ?? 0) + 1);
      const key = req.headers["sec-websocket-key"];
      if (typeof key !== "string") return socket.destroy();
      socket.write(
        `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${wsAccept(key)}\r\n\r\n`,
      );
      later(300, () => socket.writable && socket.write(wsText("Socket says hello")));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    servers.push(server);
    origins.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }
  return {
    a: (path) => `${origins[0]}${path}`,
    b: (path) => `${origins[1]}${path}`,
    hits: (path) => counts.get(path) ?? 0,
    async close() {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
    },
  };
}
