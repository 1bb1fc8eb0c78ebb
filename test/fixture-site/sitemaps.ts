/**
 * A mini-site for map tests under /mapsite/ (the origin's own /robots.txt and /sitemap.xml stay as
 * pages.ts has them; other tests use them):
 *
 *   /mapsite/                       links (duplicates, session ids, fragments, other schemes, external)
 *                                   plus two built by script: one at DOMContentLoaded, one 300 ms later
 *   /mapsite/robots.txt             Sitemap: lines for the index below (for tests that pass robotsTxt)
 *   /mapsite/sitemap_index.xml      index -> a gzipped child, a plain child, a text sitemap, and itself
 *   /mapsite/sitemap-posts.xml.gz   gzipped urlset (3 posts)
 *   /mapsite/sitemap-pages.xml      plain urlset (about, contact, one post again)
 *   /mapsite/sitemap.txt            one URL per line
 *   /mapsite/huge-sitemap.xml       20 000 URLs; ?gz=1 serves it gzipped
 *   /mapsite/broken-sitemap.xml     malformed XML with good entries around the damage
 *   /mapsite/html-sitemap.xml       an HTML page served where a sitemap is expected
 *   /mapsite/download               an attachment: a page no browser renders
 *   /mapsite/<anything else>        a small page
 */
import { gzipSync } from "node:zlib";
import { escapeHtml, page } from "./pages.ts";
import type { ExtraRoutes, Reply } from "./reply.ts";

const XML = "application/xml; charset=utf-8";
const HTML = "text/html; charset=utf-8";

export const MAPSITE_POSTS = ["/mapsite/blog/first", "/mapsite/blog/second", "/mapsite/blog/third"];
export const MAPSITE_PAGES = ["/mapsite/about", "/mapsite/contact", "/mapsite/blog/first"];
export const MAPSITE_TEXT = ["/mapsite/text/one", "/mapsite/text/two"];
export const MAPSITE_HUGE_COUNT = 20_000;

export const urlsetXml = (origin: string, paths: string[]) => `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${paths.map((p) => `  <url><loc>${escapeHtml(origin + p)}</loc><lastmod>2024-06-01</lastmod></url>`).join("\n")}
</urlset>
`;

const indexXml = (origin: string, paths: string[]) => `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${paths.map((p) => `  <sitemap><loc>${escapeHtml(origin + p)}</loc></sitemap>`).join("\n")}
</sitemapindex>
`;

const home = (origin: string) =>
  page(
    "Map Site",
    `<h1>Map Site</h1>
<ul id="links">
<li><a href="/mapsite/about">About us</a></li>
<li><a href="/mapsite/about#team">About us, team</a></li>
<li><a href="/mapsite/blog/first">First post</a></li>
<li><a href="/mapsite/blog/second?utm=x">Second post, tracked</a></li>
<li><a href="/mapsite/shop;jsessionid=ABC123?item=1">Shop item 1</a></li>
<li><a href="/mapsite/shop?item=1&amp;PHPSESSID=f00">Shop item 1 again</a></li>
<li><a href="${escapeHtml(origin)}/article">The article</a></li>
<li><a href="https://example.com/elsewhere">Elsewhere</a></li>
<li><a href="mailto:someone@example.com">Mail</a></li>
<li><a href="javascript:void(0)">Nothing</a></li>
<li><a href="/mapsite/private-ish" aria-label="Labelled only"></a></li>
</ul>
<div id="built"></div>
<script>
document.addEventListener("DOMContentLoaded", () => {
  const a = document.createElement("a");
  a.href = "/mapsite/built-by-script";
  a.textContent = "Built by script";
  document.getElementById("built").appendChild(a);
});
setTimeout(() => {
  const a = document.createElement("a");
  a.href = "/mapsite/built-late";
  a.textContent = "Built late";
  document.getElementById("built").appendChild(a);
}, 300);
</script>`,
  );

let huge: { origin: string; xml: string; gz: Buffer } | undefined;
function hugeSitemap(origin: string) {
  if (huge?.origin !== origin) {
    const paths = Array.from({ length: MAPSITE_HUGE_COUNT }, (_, i) => `/mapsite/item/${i}`);
    const xml = urlsetXml(origin, paths);
    huge = { origin, xml, gz: gzipSync(xml) };
  }
  return huge;
}

export const sitemapsRoutes: ExtraRoutes = (path, query, origin): Reply | null => {
  if (path !== "/mapsite" && !path.startsWith("/mapsite/")) return null;
  switch (path) {
    case "/mapsite":
    case "/mapsite/":
      return { status: 200, type: HTML, body: home(origin) };
    case "/mapsite/robots.txt":
      return {
        status: 200,
        type: "text/plain; charset=utf-8",
        body: `User-agent: *\nDisallow: /mapsite/private\n\nSitemap: ${origin}/mapsite/sitemap_index.xml\n`,
      };
    case "/mapsite/sitemap_index.xml":
      return {
        status: 200,
        type: XML,
        body: indexXml(origin, [
          "/mapsite/sitemap-posts.xml.gz",
          "/mapsite/sitemap-pages.xml",
          "/mapsite/sitemap.txt",
          "/mapsite/sitemap_index.xml",
        ]),
      };
    case "/mapsite/sitemap-posts.xml.gz":
      return { status: 200, type: "application/gzip", body: gzipSync(urlsetXml(origin, MAPSITE_POSTS)) };
    case "/mapsite/sitemap-pages.xml":
      return { status: 200, type: XML, body: urlsetXml(origin, MAPSITE_PAGES) };
    case "/mapsite/sitemap.txt":
      return {
        status: 200,
        type: "text/plain; charset=utf-8",
        body: `${MAPSITE_TEXT.map((p) => origin + p).join("\n")}\n`,
      };
    case "/mapsite/huge-sitemap.xml": {
      const h = hugeSitemap(origin);
      return query.get("gz")
        ? { status: 200, type: "application/gzip", body: h.gz }
        : { status: 200, type: XML, body: h.xml };
    }
    case "/mapsite/broken-sitemap.xml":
      return {
        status: 200,
        type: XML,
        body: `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>${origin}/mapsite/broken/before</loc></url>
  <url><loc>${origin}/mapsite/broken/damaged</lo></url>
  <url><loc>${origin}/mapsite/broken/after &nbsp;</loc></url>
  <url><loc>${origin}/mapsite/broken/cut`,
      };
    case "/mapsite/download":
      // A browser cannot render this (it is a download), so a map of it has only the sitemaps.
      return {
        status: 200,
        type: "application/octet-stream",
        body: Buffer.from("binary"),
        headers: { "Content-Disposition": 'attachment; filename="file.bin"' },
      };
    case "/mapsite/html-sitemap.xml":
      return { status: 200, type: HTML, body: page("Not a sitemap", "<p>Pretty sitemap page</p>") };
  }
  return {
    status: 200,
    type: HTML,
    body: page(escapeHtml(path), `<h1>${escapeHtml(path)}</h1><p><a href="/mapsite/">Map Site</a></p>`),
  };
};
