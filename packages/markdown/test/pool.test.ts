import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { htmlToMarkdown, htmlToText, MarkdownOptionError, MarkdownPool } from "../src/index.ts";

const baseUrl = "https://example.com/news/park";
const news = readFileSync(join(import.meta.dirname, "golden", "news-article.main.html"), "utf8");

/** A page far too large to convert within a 1 ms budget (about 300 KB). */
function hugePage(): string {
  const para =
    "<p>Lorem ipsum dolor sit amet, <a href='/x'>consectetur</a> adipiscing elit, sed do eiusmod.</p>";
  return `<html><body><h1>Huge</h1><div>${para.repeat(3_000)}</div></body></html>`;
}

describe("MarkdownPool", () => {
  const pool = new MarkdownPool({ size: 1 });
  after(() => pool.close());

  it("converts in a worker thread exactly as the synchronous converter", async () => {
    for (const options of [
      { baseUrl },
      { baseUrl, onlyMainContent: true },
      { baseUrl, includeTags: ["h1"] },
    ]) {
      assert.deepEqual(await pool.convert(news, options), htmlToMarkdown(news, options));
    }
  });

  it("runs conversions queued beyond its size", async () => {
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) => pool.convert(`<p>page ${i}</p>`, { baseUrl })),
    );
    assert.deepEqual(
      results.map((r) => r.markdown),
      ["page 0\n", "page 1\n", "page 2\n", "page 3\n"],
    );
  });

  it("rejects bad options with the coded error", async () => {
    await assert.rejects(
      pool.convert(news, { baseUrl, includeTags: ["a[["] }),
      (err: unknown) => err instanceof MarkdownOptionError && err.code === "invalid_selector",
    );
  });

  it("degrades to plain text when the budget runs out, and keeps working after", async () => {
    const tight = new MarkdownPool({ size: 1, timeBudgetMs: 1 });
    try {
      const html = hugePage();
      const result = await tight.convert(html, { baseUrl, onlyMainContent: true });
      assert.equal(result.degraded, "timeout");
      assert.equal(result.markdown, htmlToText(html));
      assert.ok(result.markdown.startsWith("Huge\n\nLorem ipsum dolor sit amet, consectetur adipiscing"));
      // The cut-off thread was replaced; a second page is served (or degraded again) without hanging.
      const again = await tight.convert("<p>small</p>", { baseUrl });
      assert.ok(again.markdown === "small\n");
    } finally {
      await tight.close();
    }
  });

  it("refuses work once closed", async () => {
    const closed = new MarkdownPool();
    await closed.close();
    await assert.rejects(closed.convert("<p>x</p>", { baseUrl }), /closed/);
  });
});

describe("htmlToText", () => {
  it("keeps visible text in paragraphs and skips scripts, styles and comments", () => {
    const html = `<html><head><title>T</title><style>p{}</style></head><body>
      <script>var x = "<p>not text</p>";</script><!-- <p>comment</p> -->
      <h1>Title &amp; more</h1><p>One&nbsp;<b>two</b>&#x21;</p><ul><li>a</li><li>b</li></ul>
      <SCRIPT type="x">still not text</SCRIPT><p>end &unknown; &#65;</p></body></html>`;
    assert.equal(htmlToText(html), "Title & more\n\nOne two!\n\na\n\nb\n\nend &unknown; A\n");
  });

  it("returns empty text for empty or unterminated input", () => {
    assert.equal(htmlToText(""), "");
    assert.equal(htmlToText("<script>never closed"), "");
    assert.equal(htmlToText("text <b"), "text\n");
  });
});
