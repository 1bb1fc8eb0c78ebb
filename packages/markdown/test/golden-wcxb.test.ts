import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { gunzipSync } from "node:zlib";
import { htmlToMarkdown, type PageType } from "../src/index.ts";

// One real page per page type (see golden-wcxb/README.md): its type, and its main content's structure.
const dir = join(import.meta.dirname, "golden-wcxb");
const pages = JSON.parse(readFileSync(join(dir, "pages.json"), "utf8")) as Record<
  string,
  { url: string; type: PageType }
>;

describe("real pages of every type", () => {
  it("has one page of each type", () => {
    const types = new Set(Object.values(pages).map((p) => p.type));
    for (const t of ["article", "documentation", "forum", "product", "collection", "listing", "service"])
      assert.ok(types.has(t as PageType), t);
  });

  for (const [name, page] of Object.entries(pages)) {
    it(`${name}: classified as ${page.type}, main content as in ${name}.md`, () => {
      const html = new TextDecoder().decode(gunzipSync(readFileSync(join(dir, `${name}.html.gz`))));
      const result = htmlToMarkdown(html, { baseUrl: page.url, onlyMainContent: true });
      const golden = join(dir, `${name}.md`);
      if (process.env.UPDATE_GOLDEN) writeFileSync(golden, result.markdown);
      assert.equal(result.pageType, page.type);
      assert.equal(result.mainContent, "extracted");
      assert.equal(result.markdown, readFileSync(golden, "utf8"));
    });
  }
});

describe("never a sliver", () => {
  it("content under a fifth of another candidate's text falls back to that candidate (a news home page whose pick was one podcast's header)", () => {
    const html = new TextDecoder().decode(gunzipSync(readFileSync(join(dir, "sliver-listing-2970.html.gz"))));
    const result = htmlToMarkdown(html, { baseUrl: "https://techcrunch.com/", onlyMainContent: true });
    assert.equal(result.mainContent, "fallback_candidate");
    for (const headline of [
      "A roadmap for AI, if anyone will listen",
      "OSHA probing fatality at Rivian warehouse",
      "Robinhood’s startup fund stumbles in NYSE debut",
    ])
      assert.ok(result.markdown.includes(headline), `missing ${headline}`);
  });
});
