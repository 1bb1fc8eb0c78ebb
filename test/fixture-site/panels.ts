/**
 * Pages whose lazy content is in an element that scrolls on its own, as chat apps, feeds and support
 * widgets build them: an app shell that fits the viewport (the window never scrolls) around a panel with
 * `overflow: auto`, whose next items come from an API when the panel, not the window, is scrolled. Served
 * by the live-web site (live-web.ts), which answers their API:
 *
 *   /api/panel-items?from=<n>&count=<k>&label=<text>&delay=<ms>   ["<label> n", ... k of them]
 *   /api/panel-touched?which=<name>                               what a panel that must be left alone
 *                                                                 fetches when it is scrolled (hits() tells)
 *
 * Every item is a phrase a person would read once it loaded; the tests look for the last one.
 */

/** Items a panel page loads at a time; 10 × 80 px is taller than any of its panels. */
export const PANEL_PAGE_SIZE = 10;

const shell = (title: string, style: string, body: string) =>
  `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title}</title><style>
html, body { height: 100%; margin: 0; overflow: hidden; font: 16px sans-serif; }
body { display: flex; flex-direction: column; }
header { height: 80px; flex: none; }
main { display: flex; flex: 1; min-height: 0; }
nav { width: 220px; flex: none; }
.item { height: 80px; box-sizing: border-box; border-bottom: 1px solid #ddd; }
${style}</style></head><body>${body}</body></html>`;

/** The page's script: fetch items from the API into `feed`, before `sentinel` when there is one. */
const loader = (label: string, delay: number) => `
  let next = 1, pages = 0, loading = false;
  const load = async () => {
    if (loading) return;
    loading = true;
    const res = await fetch("/api/panel-items?from=" + next + "&count=${PANEL_PAGE_SIZE}&label=${encodeURIComponent(label)}&delay=${delay}");
    for (const text of await res.json()) {
      const d = document.createElement("div");
      d.className = "item";
      d.textContent = text;
      feed.insertBefore(d, typeof sentinel === "undefined" ? null : sentinel);
    }
    next += ${PANEL_PAGE_SIZE};
    pages++;
    loading = false;
  };`;

/**
 * A team chat: its message pane loads the next messages when a sentinel at its bottom comes into view,
 * watched by an IntersectionObserver whose root is the pane. `pages` pages of messages in all (the
 * first on load), or endless with 0.
 */
export function chatPanel(pages: number): string {
  return shell(
    "Team chat",
    `#feed { flex: 1; overflow-y: auto; } #sentinel { height: 20px; }`,
    `<header><h1>Team chat</h1></header>
<main><nav><p>Channels</p><p># general</p></nav>
<div id="feed" role="log"><div id="sentinel">Loading older messages…</div></div></main>
<script>
  const feed = document.getElementById("feed");
  const sentinel = document.getElementById("sentinel");
  ${loader("Chat message", 120)}
  const more = new IntersectionObserver(async (entries) => {
    if (!entries.some((e) => e.isIntersecting)) return;
    await load();
    if (${pages} > 0 && pages >= ${pages}) {
      more.disconnect();
      sentinel.remove();
    } else {
      // Looked at again: the sentinel may still be in view after a short page of items.
      more.unobserve(sentinel);
      more.observe(sentinel);
    }
  }, { root: feed, rootMargin: "0px 0px 100px 0px" });
  load().then(() => more.observe(sentinel));
</script>`,
  );
}

/**
 * An order history in a side panel: the first page is in the HTML; the next ones load from the panel's
 * own scroll event once its bottom is near, three more pages in all.
 */
export function scrollEventPanel(): string {
  const first = Array.from({ length: PANEL_PAGE_SIZE }, (_, i) => `<div class="item">Order ${i + 1}</div>`);
  return shell(
    "Orders",
    `#feed { width: 480px; height: 400px; overflow: auto; }`,
    `<header><h1>Your orders</h1></header>
<main><nav><p>Account</p></nav><div id="feed">${first.join("")}</div></main>
<script>
  const feed = document.getElementById("feed");
  ${loader("Order", 100)}
  next = ${PANEL_PAGE_SIZE + 1};
  feed.addEventListener("scroll", () => {
    if (pages < 3 && feed.scrollTop + feed.clientHeight >= feed.scrollHeight - 80) load();
  });
</script>`,
  );
}

/** A support widget: a custom element whose open shadow root holds the scrolling thread and its observer. */
export function shadowPanel(): string {
  return shell(
    "Support",
    ``,
    `<header><h1>Help centre</h1></header>
<main><nav><p>Topics</p></nav><support-thread></support-thread></main>
<script>
  customElements.define("support-thread", class extends HTMLElement {
    connectedCallback() {
      const root = this.attachShadow({ mode: "open" });
      root.innerHTML = '<style>#feed { width: 520px; height: 420px; overflow-y: scroll; } .item { height: 80px; } #sentinel { height: 10px; }</style>' +
        '<div id="feed"><div id="sentinel"></div></div>';
      const feed = root.getElementById("feed");
      const sentinel = root.getElementById("sentinel");
      ${loader("Support reply", 100)}
      const more = new IntersectionObserver(async (entries) => {
        if (!entries.some((e) => e.isIntersecting)) return;
        await load();
        if (pages >= 3) { more.disconnect(); sentinel.remove(); }
      }, { root: feed });
      load().then(() => more.observe(sentinel));
    }
  });
</script>`,
  );
}

/**
 * Panels that must be left alone, each of which fetches /api/panel-touched?which=<its name> when
 * scrolled: one too small to hold a feed, one hidden (visibility), one transparent, one that clips
 * (overflow hidden: not scrollable by a person), and one in a display:none parent.
 */
export function untouchablePanels(): string {
  const box = (which: string, style: string) =>
    `<div class="box" data-which="${which}" style="${style}">${Array.from(
      { length: 12 },
      (_, i) => `<div class="item">${which} line ${i + 1}</div>`,
    ).join("")}</div>`;
  return shell(
    "Widgets",
    `.box { overflow-y: auto; }`,
    `<header><h1>Dashboard widgets</h1></header>
<main><nav><p>Widgets</p></nav><section>
${box("tiny", "width: 160px; height: 90px")}
${box("hidden", "width: 500px; height: 300px; visibility: hidden")}
${box("transparent", "width: 500px; height: 300px; opacity: 0")}
${box("clipped", "width: 500px; height: 300px; overflow: hidden")}
<div style="display: none">${box("undisplayed", "width: 500px; height: 300px")}</div>
<p>The dashboard is ready.</p>
</section></main>
<script>
  for (const el of document.querySelectorAll(".box"))
    el.addEventListener("scroll", () => fetch("/api/panel-touched?which=" + el.dataset.which), { once: true });
  new IntersectionObserver(() => {}).observe(document.querySelector("h1"));
</script>`,
  );
}

/** A page that fits its viewport, whose script watches scrolling, and has no panel at all. */
export function noPanels(): string {
  return shell(
    "Plain app",
    ``,
    `<header><h1>Plain app</h1></header><main><p>Nothing here scrolls on its own.</p></main>
<script>
  addEventListener("scroll", () => fetch("/api/panel-touched?which=window"));
  new IntersectionObserver(() => {}).observe(document.querySelector("p"));
</script>`,
  );
}
