import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import { discoverSitemapUrls, type SiteFetcher, type SitemapOptions } from "../src/index.ts";

const O = "https://example.com";

interface Fake {
  status?: number;
  body: string | Buffer;
  contentType?: string;
  redirectTo?: string;
}

/** A site made of canned answers; everything else is a 404. Records what was fetched. */
function site(pages: Record<string, Fake>): SiteFetcher & { fetched: string[] } {
  const fetched: string[] = [];
  const fetcher = async (url: string, maxBytes: number) => {
    fetched.push(url);
    let page = pages[url];
    let finalUrl = url;
    if (page?.redirectTo) {
      finalUrl = page.redirectTo;
      page = pages[finalUrl];
    }
    if (!page) return { status: 404, body: Buffer.from("not found"), truncated: false, finalUrl };
    const body = typeof page.body === "string" ? Buffer.from(page.body) : page.body;
    return {
      status: page.status ?? 200,
      contentType: page.contentType ?? "application/xml",
      body: body.subarray(0, maxBytes),
      truncated: body.length > maxBytes,
      finalUrl,
    };
  };
  return Object.assign(fetcher, { fetched });
}

const urlset = (paths: string[], extra = "") =>
  `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
${paths.map((p) => `  <url><loc>${O}${p}</loc></url>`).join("\n")}
${extra}</urlset>`;

const index = (urls: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${urls.map((u) => `  <sitemap><loc>${u}</loc><lastmod>2024-01-01</lastmod></sitemap>`).join("\n")}
</sitemapindex>`;

const opts = (o: Partial<SitemapOptions> = {}): SitemapOptions => ({
  maxSitemaps: 20,
  maxUrls: 10_000,
  maxBytesPerFile: 10 * 1024 * 1024,
  deadline: Date.now() + 10_000,
  ...o,
});

const paths = (r: { urls: { url: string }[] }) => r.urls.map((u) => u.url.slice(O.length));

describe("discoverSitemapUrls", () => {
  it("reads the robots.txt Sitemap: lines and /sitemap.xml, normalized and de-duplicated, with lastmod", async () => {
    const fetch = site({
      [`${O}/sitemap.xml`]: { body: urlset(["/a", "/b#frag", "/a"]) },
      [`${O}/declared.xml`]: {
        body: `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
          <url><loc>https://EXAMPLE.com:443/c?sid=123</loc><lastmod>2024-05-06</lastmod>
            <image:image xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"><image:loc>${O}/img.png</image:loc></image:image>
          </url>
          <url><loc>${O}/a</loc></url>
        </urlset>`,
      },
    });
    const r = await discoverSitemapUrls(fetch, `${O}/start`, {
      ...opts(),
      robotsTxt: `User-agent: *\nDisallow: /private\nSitemap: ${O}/declared.xml\nSitemap: ${O}/sitemap.xml\n`,
    });
    assert.deepEqual(paths(r), ["/c", "/a", "/b"]);
    assert.deepEqual(r.urls[0], { url: `${O}/c`, lastmod: "2024-05-06" });
    assert.equal(r.sitemapsRead, 2);
    assert.deepEqual(r.warnings, []);
    assert.equal(r.truncated, false);
    assert.deepEqual(fetch.fetched, [`${O}/declared.xml`, `${O}/sitemap.xml`], "each file once");
  });

  it("follows a sitemap index to two children, one gzipped, and a nested index", async () => {
    const fetch = site({
      [`${O}/sitemap.xml`]: {
        body: index([`${O}/posts.xml.gz`, `${O}/pages.xml`, `${O}/nested-index.xml`]),
      },
      [`${O}/posts.xml.gz`]: {
        body: gzipSync(urlset(["/post/1", "/post/2"])),
        contentType: "application/gzip",
      },
      [`${O}/pages.xml`]: { body: urlset(["/about", "/post/1"]) },
      [`${O}/nested-index.xml`]: { body: index([`${O}/deep.txt`]) },
      [`${O}/deep.txt`]: {
        body: `${O}/deep/1\r\n\n  ${O}/deep/2  \nnot a url\n${O}/about\n`,
        contentType: "text/plain",
      },
    });
    const r = await discoverSitemapUrls(fetch, O, opts());
    assert.deepEqual(paths(r), ["/post/1", "/post/2", "/about", "/deep/1", "/deep/2"]);
    assert.equal(r.sitemapsRead, 5);
    assert.deepEqual(r.warnings, []);
    assert.equal(r.truncated, false);
  });

  it("reads a gzipped body by its magic bytes whatever the name, and a .gz name that is not gzip", async () => {
    const fetch = site({
      [`${O}/sitemap.xml`]: { body: index([`${O}/x`, `${O}/y.xml.gz`]) },
      [`${O}/x`]: { body: gzipSync(urlset(["/x1"])) },
      [`${O}/y.xml.gz`]: { body: urlset(["/y1"]) },
    });
    const r = await discoverSitemapUrls(fetch, O, opts());
    assert.deepEqual(paths(r), ["/x1", "/y1"]);
  });

  it("reads every file once however the indexes loop, redirects included", async () => {
    const fetch = site({
      [`${O}/sitemap.xml`]: { body: index([`${O}/a.xml`, `${O}/sitemap.xml`]) },
      [`${O}/a.xml`]: { body: index([`${O}/b.xml`, `${O}/a.xml`]) },
      [`${O}/b.xml`]: { body: index([`${O}/sitemap.xml`, `${O}/a.xml`, `${O}/c.xml`, `${O}/to-a`]) },
      [`${O}/c.xml`]: { body: urlset(["/only"]) },
      [`${O}/to-a`]: { redirectTo: `${O}/a.xml`, body: "" },
    });
    const r = await discoverSitemapUrls(fetch, O, opts());
    assert.deepEqual(paths(r), ["/only"]);
    assert.deepEqual(fetch.fetched, [
      `${O}/sitemap.xml`,
      `${O}/a.xml`,
      `${O}/b.xml`,
      `${O}/c.xml`,
      `${O}/to-a`,
    ]);
    assert.equal(r.sitemapsRead, 4);
  });

  it("stops a huge sitemap at maxUrls and says so", async () => {
    const many = Array.from({ length: 20_000 }, (_, i) => `/item/${i}`);
    const fetch = site({
      [`${O}/sitemap.xml`]: { body: gzipSync(urlset(many)) },
      [`${O}/never.xml`]: { body: urlset(["/never"]) },
    });
    const started = performance.now();
    const r = await discoverSitemapUrls(fetch, O, {
      ...opts({ maxUrls: 500 }),
      robotsTxt: `Sitemap: ${O}/sitemap.xml\nSitemap: ${O}/never.xml\n`,
    });
    assert.equal(r.urls.length, 500);
    assert.equal(r.urls[499]!.url, `${O}/item/499`);
    assert.equal(r.truncated, true);
    assert.ok(!fetch.fetched.includes(`${O}/never.xml`), "no more files once full");
    assert.ok(performance.now() - started < 2000);
  });

  it("counts only URLs the filter accepts toward maxUrls", async () => {
    const many = Array.from({ length: 2000 }, (_, i) => (i % 100 === 0 ? `/blog/${i}` : `/shop/${i}`));
    const fetch = site({ [`${O}/sitemap.xml`]: { body: urlset(many) } });
    const r = await discoverSitemapUrls(fetch, O, {
      ...opts({ maxUrls: 50 }),
      filter: (u) => u.includes("/blog/"),
    });
    assert.equal(r.urls.length, 20);
    assert.equal(r.truncated, false);
  });

  it("reads broken XML as far as it goes and warns", async () => {
    const fetch = site({
      [`${O}/sitemap.xml`]: {
        body: `<?xml version="1.0"?><urlset><url><loc>${O}/ok1</loc></url><url><loc>${O}/bad</lo></url>
          <url><loc>${O}/ok2&nbsp;</loc></url><url><loc>${O}/ok3</loc></url><url><loc>${O}/cut`,
      },
    });
    const r = await discoverSitemapUrls(fetch, O, opts());
    assert.deepEqual(paths(r), ["/ok1", "/bad", "/ok2", "/ok3"]);
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0]!, /sitemap\.xml: malformed XML/);
    assert.equal(r.sitemapsRead, 1);
  });

  it("turns 404s, HTML pages, non-sitemaps, damaged gzip and failed fetches into warnings, never a throw", async () => {
    const fetch = site({
      [`${O}/sitemap.xml`]: {
        body: index([`${O}/missing.xml`, `${O}/html.xml`, `${O}/rss.xml`, `${O}/bad.gz`, `${O}/boom.xml`]),
      },
      [`${O}/html.xml`]: {
        body: "<!DOCTYPE html><html><body><a href='/x'>x</a></body></html>",
        contentType: "text/html",
      },
      [`${O}/rss.xml`]: { body: `<?xml version="1.0"?><rss><channel></channel></rss>` },
      [`${O}/bad.gz`]: { body: Buffer.from([0x1f, 0x8b, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]) },
    });
    const throwing: SiteFetcher = async (url, max) => {
      if (url.endsWith("/boom.xml")) throw new Error("could not connect");
      return fetch(url, max);
    };
    const r = await discoverSitemapUrls(throwing, O, opts());
    assert.deepEqual(r.urls, []);
    const w = r.warnings.join("\n");
    assert.match(w, /missing\.xml: HTTP 404/);
    assert.match(w, /html\.xml: an HTML page, not a sitemap/);
    assert.match(w, /rss\.xml: not a sitemap \(its root element is <rss>\)/);
    assert.match(w, /bad\.gz: could not gunzip it/);
    assert.match(w, /boom\.xml: could not connect/);
    assert.equal(r.sitemapsRead, 1, "only the index");
  });

  it("says nothing of a missing guessed /sitemap.xml, and then tries /sitemap_index.xml", async () => {
    const none = site({});
    const r = await discoverSitemapUrls(none, `${O}/deep/page`, opts());
    assert.deepEqual(r, { urls: [], sitemapsRead: 0, warnings: [], truncated: false });
    assert.deepEqual(none.fetched, [`${O}/sitemap.xml`, `${O}/sitemap_index.xml`]);
    const spa = site({
      [`${O}/sitemap.xml`]: { body: "<html><body>app shell</body></html>", contentType: "text/html" },
      [`${O}/sitemap_index.xml`]: { body: index([`${O}/s1.xml`]) },
      [`${O}/s1.xml`]: { body: urlset(["/from-index"]) },
    });
    const r2 = await discoverSitemapUrls(spa, O, opts());
    assert.deepEqual(paths(r2), ["/from-index"]);
    assert.deepEqual(r2.warnings, []);
  });

  it("reads at most maxSitemaps files", async () => {
    const children = Array.from({ length: 10 }, (_, i) => `${O}/part-${i}.xml`);
    const pages: Record<string, Fake> = { [`${O}/sitemap.xml`]: { body: index(children) } };
    for (const [i, c] of children.entries()) pages[c] = { body: urlset([`/p${i}`]) };
    const fetch = site(pages);
    const r = await discoverSitemapUrls(fetch, O, opts({ maxSitemaps: 4 }));
    assert.deepEqual(paths(r), ["/p0", "/p1", "/p2"]);
    assert.equal(fetch.fetched.length, 4);
    assert.equal(r.truncated, true);
    assert.match(r.warnings.join("\n"), /lists more sitemaps than the 4 read/);
  });

  it("reads at most maxBytesPerFile of a file, downloaded or gunzipped (a gzip bomb stays small)", async () => {
    const big = urlset(Array.from({ length: 5000 }, (_, i) => `/big/${i}`));
    const bomb = gzipSync(urlset(["/bomb/1"], `<!-- ${"x".repeat(20 * 1024 * 1024)} -->`));
    assert.ok(bomb.length < 100_000);
    const fetch = site({
      [`${O}/sitemap.xml`]: { body: index([`${O}/big.xml`, `${O}/bomb.xml.gz`]) },
      [`${O}/big.xml`]: { body: big },
      [`${O}/bomb.xml.gz`]: { body: bomb },
    });
    const r = await discoverSitemapUrls(fetch, O, opts({ maxBytesPerFile: 100_000 }));
    const got = paths(r);
    assert.ok(got.length > 100 && got.length < 5000, String(got.length));
    assert.deepEqual(got.slice(0, 2), ["/big/0", "/big/1"]);
    assert.ok(got.includes("/bomb/1"));
    assert.equal(r.truncated, true);
    assert.match(r.warnings.join("\n"), /big\.xml: larger than 100000 bytes/);
    assert.match(r.warnings.join("\n"), /bomb\.xml\.gz: larger than 100000 bytes/);
  });

  it("keeps to the deadline even when a fetch never answers", async () => {
    const fetch = site({ [`${O}/sitemap.xml`]: { body: index([`${O}/hang.xml`, `${O}/later.xml`]) } });
    const hanging: SiteFetcher = (url, max) =>
      url.endsWith("/hang.xml") ? new Promise(() => {}) : fetch(url, max);
    const started = Date.now();
    const r = await discoverSitemapUrls(hanging, O, opts({ deadline: Date.now() + 300 }));
    const took = Date.now() - started;
    // It answered (a hang would never get here), and not before its deadline.
    assert.ok(took >= 250, String(took));
    assert.equal(r.truncated, true);
    assert.match(r.warnings.join("\n"), /hang\.xml: the time budget ran out/);
    assert.match(r.warnings.join("\n"), /1 sitemap file\(s\) not read/);
  });
});
