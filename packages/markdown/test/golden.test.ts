import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { htmlToMarkdown } from "../src/index.ts";

// Every golden/<name>.html converts to exactly golden/<name>.md; <name>.main.html with onlyMainContent.
const dir = join(import.meta.dirname, "golden");
const baseUrl = "https://example.com/docs/guide/start.html";

describe("golden files", () => {
  const inputs = readdirSync(dir).filter((f) => f.endsWith(".html"));

  it("has fixtures", () => {
    assert.ok(inputs.length >= 8);
    assert.ok(inputs.some((f) => f.endsWith(".main.html")));
  });

  for (const input of inputs) {
    it(input, () => {
      const html = readFileSync(join(dir, input), "utf8");
      const expected = readFileSync(join(dir, input.replace(/\.html$/, ".md")), "utf8");
      const onlyMainContent = input.endsWith(".main.html");
      const result = htmlToMarkdown(html, { baseUrl, onlyMainContent });
      assert.equal(result.markdown, expected);
      if (onlyMainContent) assert.equal(result.mainContent, "extracted");
    });
  }
});
