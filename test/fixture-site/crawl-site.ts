import type { ExtraRoutes, Reply } from "./reply.ts";

/**
 * A small site for crawl tests under /crawl/, and a generated tree under /crawl/gen/<n> for large ones:
 * page n links to pages 10n+1 … 10n+10 (so depth 2 from /crawl/gen/0 holds 111 pages). `?ms=` on a gen
 * page adds an image from /slow that takes that long, to keep pages in flight; links carry it on.
 */
const page = (title: string, body: string): Reply => ({
  status: 200,
  type: "text/html; charset=utf-8",
  body: `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`,
});

const link = (href: string, text = href) => `<li><a href="${href}">${text}</a></li>`;

export const crawlSiteRoutes: ExtraRoutes = (path, query) => {
  if (!path.startsWith("/crawl")) return null;
  switch (path) {
    case "/crawl":
    case "/crawl/":
      return page(
        "Crawl home",
        `<p>The start page.</p><ul>${[
          link("/crawl/a"),
          link("/crawl/a#section", "same page, other fragment"),
          link("/crawl/b"),
          link("http://127.0.0.1:1/elsewhere", "another site"),
          link("mailto:someone@example.com", "mail"),
          link("/crawl/blocked", "disallowed by robots.txt"),
          link("/crawl/cal?month=0", "calendar"),
        ].join("")}</ul>`,
      );
    case "/crawl/a":
      return page("Page A", `<p>A.</p><ul>${link("/crawl/a1")}${link("/crawl/a2")}${link("/crawl/")}</ul>`);
    case "/crawl/a1":
      return page("Page A1", `<p>A1, depth 2.</p><ul>${link("/crawl/deep")}</ul>`);
    case "/crawl/a2":
      return page("Page A2", "<p>A2, depth 2.</p>");
    case "/crawl/deep":
      return page("Deep", "<p>Depth 3: beyond maxDepth 2.</p>");
    case "/crawl/b":
      return page(
        "Page B",
        `<p>B builds a link with script.</p><ul id="l"></ul><script>
          const li = document.createElement("li");
          li.innerHTML = '<a href="/crawl/b-js">built by script</a>';
          document.getElementById("l").appendChild(li);
        </script>`,
      );
    case "/crawl/b-js":
      return page("Built by script", "<p>Found only in the rendered page.</p>");
    case "/crawl/blocked":
      return page("Blocked", "<p>robots.txt disallows this page.</p>");
    case "/crawl/cal": {
      const month = Number(query.get("month") ?? 0);
      return page(`Calendar ${month}`, `<ul>${link(`/crawl/cal?month=${month + 1}`, "next month")}</ul>`);
    }
  }
  const gen = /^\/crawl\/gen\/(\d+)$/.exec(path);
  if (gen) {
    const n = Number(gen[1]);
    const ms = query.get("ms");
    const suffix = ms ? `?ms=${ms}` : "";
    const children = Array.from({ length: 10 }, (_, i) => link(`/crawl/gen/${n * 10 + i + 1}${suffix}`));
    const slow = ms ? `<img src="/slow?ms=${ms}&n=${n}" alt="">` : "";
    return page(
      `Generated ${n}`,
      `<p>Page ${n} of the generated tree.</p>${slow}<ul>${children.join("")}</ul>`,
    );
  }
  return null;
};
