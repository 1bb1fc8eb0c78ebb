/**
 * A deterministic 200-page site for the crawl-throughput bench, served on 127.0.0.1 with node:http.
 *
 * Every page is article-like (header and nav, 30–80 KB of HTML: paragraphs, a table, a list, a few
 * images of one shared 1×1 PNG, one shared CSS file, a footer) and links to 10–30 other pages of the
 * site. A seeded PRNG makes every run the same site. The first links of each page form a spanning tree
 * from `/` (home → 20 pages → 9 pages each), so BFS from `/` reaches all 200 pages by depth 2; the
 * other links are random. Each page also has a `#top` link and two off-site links, which a crawler
 * must ignore. The server counts hits per path so the harness can check every page was fetched once.
 *
 *   import { startCrawlSite } from "./site.ts";
 *   const site = await startCrawlSite();   // site.url, site.pages, site.maxDepth
 *
 * Standalone: `npx tsx bench/crawl-throughput/site.ts [--port N]` prints the site's figures and
 * serves until killed.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { parseArgs } from "node:util";

export const PAGE_COUNT = 200;
const SEED = 0x5eed_2025;
/** Pages linked from the home page in the spanning tree; each of them adds TREE_FANOUT more. */
const TREE_HOME = 20;
const TREE_FANOUT = 9;
const SECTIONS = ["news", "guides", "reference", "blog", "research"] as const;

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  "the of and to in is that for it as was with be by on not he this are or his from at which but have an " +
  "they you were her she there been one all we their has would when if so no will more can out up about " +
  "what some into them could other time these two may then do first any now such like our over man me even " +
  "most made after also did many before must through back years where much your way well down should because " +
  "each just those people how too little state good very make world still own see men work long get here " +
  "between both life being under never day same another know while last might us great old year off come " +
  "since against go came right used take three system network browser server request response page crawler " +
  "queue worker latency throughput markdown render cache session index document content article section " +
  "protocol measure benchmark concurrency memory process thread socket stream buffer parser schema record"
).split(" ");

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export interface SitePage {
  path: string;
  title: string;
  /** Site paths this page links to (distinct, never itself). */
  links: string[];
  html: Buffer;
}

export interface SiteModel {
  pages: SitePage[];
  byPath: Map<string, SitePage>;
  /** BFS depth from `/` needed to reach every page (the start page is depth 0). */
  maxDepth: number;
}

/** Build the whole site in memory; the same every time. */
export function buildSite(): SiteModel {
  const rand = prng(SEED);
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)] as T;
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(" ");
  const sentence = () => {
    const s = words(int(8, 22));
    return `${s.charAt(0).toUpperCase()}${s.slice(1)}.`;
  };

  const titles: string[] = [];
  const paths: string[] = [];
  for (let i = 0; i < PAGE_COUNT; i++) {
    const title = i === 0 ? "Browserfleet Bench Gazette" : words(int(3, 7));
    titles.push(title);
    if (i === 0) paths.push("/");
    else if (i <= SECTIONS.length) paths.push(`/${SECTIONS[i - 1]}/`);
    else {
      const slug = title
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-|-$/g, "");
      paths.push(`/${SECTIONS[i % SECTIONS.length]}/${String(i).padStart(3, "0")}-${slug}`);
    }
  }

  // Links by index: the spanning tree first, then the shared nav (home and the section pages), then random.
  const linkSets: Array<Set<number>> = Array.from({ length: PAGE_COUNT }, () => new Set<number>());
  for (let i = 1; i <= TREE_HOME; i++) linkSets[0]!.add(i);
  for (let j = TREE_HOME + 1; j < PAGE_COUNT; j++) {
    const parent = 1 + Math.floor((j - TREE_HOME - 1) / TREE_FANOUT);
    linkSets[parent]!.add(j);
  }
  for (let i = 0; i < PAGE_COUNT; i++) {
    const set = linkSets[i]!;
    for (let s = 0; s <= SECTIONS.length; s++) if (s !== i) set.add(s);
    const want = int(Math.max(10, set.size), 30);
    while (set.size < want) {
      const j = int(0, PAGE_COUNT - 1);
      if (j !== i) set.add(j);
    }
  }

  const pages: SitePage[] = [];
  for (let i = 0; i < PAGE_COUNT; i++) {
    const links = [...linkSets[i]!];
    const nav = links.filter((j) => j <= SECTIONS.length);
    const body = links.filter((j) => j > SECTIONS.length);
    const target = int(30 * 1024, 80 * 1024);
    const a = (j: number) => `<a href="${paths[j]}">${esc(titles[j]!)}</a>`;

    const head = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(titles[i]!)} | Bench Gazette</title>
<meta name="description" content="${esc(sentence())}">
<link rel="stylesheet" href="/static/site.css">
</head>
<body>
<a id="top"></a>
<header class="site-header">
  <div class="brand"><a href="/"><img src="/static/pixel.png" alt="Bench Gazette" width="32" height="32"></a></div>
  <nav class="main-nav"><ul>
    ${nav.map((j) => `<li>${a(j)}</li>`).join("\n    ")}
  </ul></nav>
</header>
<main>
<article>
<h1>${esc(titles[i]!)}</h1>
<p class="byline">By ${esc(words(2))} · ${2020 + (i % 6)}-${String(1 + (i % 12)).padStart(2, "0")}-${String(1 + (i % 28)).padStart(2, "0")}</p>
`;
    const rows = Array.from(
      { length: int(8, 16) },
      (_, r) =>
        `<tr><td>${r + 1}</td><td>${esc(words(3))}</td><td>${int(1, 9999)}</td><td>${(rand() * 100).toFixed(2)}%</td></tr>`,
    ).join("\n");
    const table = `<table>
<caption>${esc(sentence())}</caption>
<thead><tr><th>#</th><th>Item</th><th>Count</th><th>Share</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
`;
    const list = `<ul class="points">\n${Array.from({ length: int(5, 10) }, () => `<li>${esc(sentence())}</li>`).join("\n")}\n</ul>\n`;
    const related = `<aside class="related"><h2>Related</h2><ul>
${body.map((j) => `<li>${a(j)} <span class="teaser">${esc(words(int(6, 14)))}</span></li>`).join("\n")}
</ul></aside>
`;
    const foot = `</article>
</main>
<footer class="site-footer">
  <p>${esc(sentence())}</p>
  <p><a href="#top">Back to top</a> · <a href="https://example.com/about">About us</a> · <a href="https://example.org/privacy">Privacy</a></p>
  <p>© Bench Gazette ${2020 + (i % 6)}</p>
</footer>
</body>
</html>
`;
    // Body: sections of paragraphs (with an inline link now and then), the table and list early, the
    // images spread out, until the page reaches its target size.
    const parts: string[] = [];
    let size = head.length + related.length + foot.length;
    let section = 0;
    let images = 0;
    let inline = 0;
    while (size < target) {
      let chunk = `<h2>${esc(words(int(3, 6)))}</h2>\n`;
      for (let p = int(2, 5); p > 0; p--) {
        const sentences = Array.from({ length: int(3, 8) }, sentence);
        if (body.length > 0 && rand() < 0.5) {
          const j = body[inline++ % body.length]!;
          sentences.splice(1, 0, `See ${a(j)} for more.`);
        }
        chunk += `<p>${sentences.join(" ")}</p>\n`;
      }
      if (section % 3 === 1 && images < 4) {
        chunk += `<figure><img src="/static/pixel.png" alt="${esc(words(4))}" width="640" height="360" loading="lazy"><figcaption>${esc(sentence())}</figcaption></figure>\n`;
        images++;
      }
      if (section === 1) chunk += table;
      if (section === 2) chunk += list;
      parts.push(chunk);
      size += chunk.length;
      section++;
    }
    const html = head + parts.join("") + related + foot;
    pages.push({
      path: paths[i]!,
      title: titles[i]!,
      links: links.map((j) => paths[j]!),
      html: Buffer.from(html),
    });
  }

  const byPath = new Map(pages.map((p) => [p.path, p]));
  // BFS from "/" over the site links.
  const depth = new Map<string, number>([["/", 0]]);
  const queue = ["/"];
  for (let q = 0; q < queue.length; q++) {
    const path = queue[q]!;
    for (const next of byPath.get(path)!.links) {
      if (depth.has(next)) continue;
      depth.set(next, depth.get(path)! + 1);
      queue.push(next);
    }
  }
  if (depth.size !== PAGE_COUNT)
    throw new Error(`only ${depth.size} of ${PAGE_COUNT} pages reachable from /`);
  return { pages, byPath, maxDepth: Math.max(...depth.values()) };
}

const STYLE_CSS = Buffer.from(`body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#222}
.site-header{display:flex;gap:1rem;align-items:center;padding:.5rem 1rem;background:#f4f4f4}
.main-nav ul{display:flex;gap:1rem;list-style:none;margin:0;padding:0}
main{max-width:46rem;margin:1rem auto;padding:0 1rem}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:.25rem .5rem}
figure{margin:1rem 0}figure img{max-width:100%;height:auto;background:#ddd}
.related ul{padding-left:1rem}.teaser{color:#666}
.site-footer{padding:1rem;background:#f4f4f4;font-size:.875rem}
`);
/** 1×1 transparent PNG. */
const PIXEL_PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
  "base64",
);
const ROBOTS_TXT = Buffer.from("User-agent: *\nAllow: /\n");

export interface CrawlSite {
  /** Origin without trailing slash, e.g. http://127.0.0.1:54321 */
  url: string;
  model: SiteModel;
  /** Requests per path since the start or the last resetHits(), pages and everything else. */
  hits(): Map<string, number>;
  /** Page paths fetched 0 times, and page paths fetched more than once (with their counts). */
  check(): { missing: string[]; repeated: Array<[string, number]>; other: Array<[string, number]> };
  resetHits(): void;
  close(): Promise<void>;
}

export async function startCrawlSite(opts: { port?: number; model?: SiteModel } = {}): Promise<CrawlSite> {
  const model = opts.model ?? buildSite();
  let counts = new Map<string, number>();
  const send = (res: ServerResponse, status: number, type: string, body: Buffer) => {
    res.writeHead(status, {
      "content-type": type,
      "content-length": body.length,
      "cache-control": "public, max-age=3600",
    });
    res.end(body);
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const page = model.byPath.get(path);
    if (page) return send(res, 200, "text/html; charset=utf-8", page.html);
    if (path === "/static/site.css") return send(res, 200, "text/css; charset=utf-8", STYLE_CSS);
    if (path === "/static/pixel.png") return send(res, 200, "image/png", PIXEL_PNG);
    if (path === "/robots.txt") return send(res, 200, "text/plain; charset=utf-8", ROBOTS_TXT);
    send(
      res,
      404,
      "text/html; charset=utf-8",
      Buffer.from("<!doctype html><title>Not found</title><h1>404</h1>"),
    );
  });
  server.keepAliveTimeout = 30_000;
  const sockets = new Set<Socket>();
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    model,
    hits: () => new Map(counts),
    check() {
      const missing: string[] = [];
      const repeated: Array<[string, number]> = [];
      for (const p of model.pages) {
        const n = counts.get(p.path) ?? 0;
        if (n === 0) missing.push(p.path);
        else if (n > 1) repeated.push([p.path, n]);
      }
      const other = [...counts].filter(([path]) => !model.byPath.has(path));
      return { missing, repeated, other };
    },
    resetHits() {
      counts = new Map();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export function describeSite(model: SiteModel): string {
  const sizes = model.pages.map((p) => p.html.length).sort((a, b) => a - b);
  const links = model.pages.map((p) => p.links.length).sort((a, b) => a - b);
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const total = sizes.reduce((s, n) => s + n, 0);
  return (
    `${model.pages.length} pages, HTML ${kb(sizes[0]!)}–${kb(sizes.at(-1)!)} (median ${kb(sizes[sizes.length >> 1]!)}, ` +
    `total ${(total / 1024 / 1024).toFixed(1)} MB), ${links[0]}–${links.at(-1)} site links per page, ` +
    `all reachable from / by depth ${model.maxDepth}`
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { port: { type: "string", default: "0" } } });
  const site = await startCrawlSite({ port: Number(values.port) });
  console.log(`crawl site at ${site.url}/ — ${describeSite(site.model)}`);
}
