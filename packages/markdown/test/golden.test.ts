import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { htmlToMarkdown } from "../src/index.ts";

// Every golden/<name>.html converts to exactly golden/<name>.md.
const dir = join(import.meta.dirname, "golden");
const baseUrl = "https://example.com/docs/guide/start.html";

describe("golden files", () => {
  const inputs = readdirSync(dir).filter((f) => f.endsWith(".html"));

  it("has fixtures", () => {
    assert.ok(inputs.length >= 6);
  });

  for (const input of inputs) {
    it(input, () => {
      const html = readFileSync(join(dir, input), "utf8");
      const expected = readFileSync(join(dir, input.replace(/\.html$/, ".md")), "utf8");
      assert.equal(htmlToMarkdown(html, { baseUrl }).markdown, expected);
    });
  }
});
