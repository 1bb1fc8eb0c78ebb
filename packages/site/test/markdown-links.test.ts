import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { linksInMarkdown } from "../src/markdown-links.ts";

describe("linksInMarkdown", () => {
  test("inline links, autolinks and bare URLs, resolved against the document's URL, each once, in order", () => {
    const md = [
      'See [the guide](/docs/guide.html) and [spec](https://example.org/spec "The spec").',
      "Mail <https://example.org/contact>, or visit https://example.org/about.",
      "Again [the guide](/docs/guide.html), and ![logo](img/logo.png).",
      "Skip [mail](mailto:a@example.org) and [js](javascript:void(0)).",
    ].join("\n");
    assert.deepEqual(linksInMarkdown(md, "https://example.org/files/report.pdf"), [
      "https://example.org/docs/guide.html",
      "https://example.org/spec",
      "https://example.org/contact",
      "https://example.org/about",
      "https://example.org/files/img/logo.png",
    ]);
  });

  test("stops at max", () => {
    const md = Array.from({ length: 10 }, (_, i) => `[p${i}](/p${i})`).join(" ");
    assert.equal(linksInMarkdown(md, "https://x.test/", 3).length, 3);
  });
});
