import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { countTokens as encoderCount } from "gpt-tokenizer/encoding/o200k_base";
import { countTokens, countValueTokens, htmlCuts, markdownCuts, readPart } from "../src/index.ts";

/** A long documentation page: headings, paragraphs, a list, code blocks, tables and links. */
function longPage(sections: number): string {
  const out: string[] = ["# Reference\n"];
  for (let s = 1; s <= sections; s++) {
    out.push(`## Section ${s}\n`);
    out.push(
      `The [configuration guide](https://docs.example.com/guide/${s}#options "Guide") explains option ${s} in depth. ` +
        "Each option takes a value and a scope; the scope decides which requests it applies to, and the value is checked when the service starts. ".repeat(
          3,
        ) +
        "\n",
    );
    out.push(
      `\`\`\`ts\nexport const option${s} = {\n  name: "opt-${s}",\n\n  value: ${s * 7},\n  scope: "request",\n};\n\`\`\`\n`,
    );
    out.push(
      `| Option | Default | Meaning |\n| --- | --- | --- |\n| opt-${s} | ${s} | the ${s}th knob, see [details](https://x.test/${s}) |\n| other-${s} | none | unset |\n`,
    );
    out.push(`- first point about ${s}\n- second point with \`inline code ${s}\`\n`);
  }
  return out.join("\n");
}

function readAll(formats: string[], data: Record<string, unknown>, maxTokens: number) {
  const parts = [];
  let from = { format: 0, offset: 0 };
  for (;;) {
    const part = readPart(formats, data, from, maxTokens);
    parts.push(part);
    if (!part.rest) return parts;
    assert.ok(
      part.rest.next.format > from.format || part.rest.next.offset > from.offset,
      "every part moves forward",
    );
    from = part.rest.next;
  }
}

describe("token budgets", () => {
  it("counts in o200k_base, and counts text that spells a special token as plain text", () => {
    assert.equal(countTokens("hello world"), 2);
    assert.equal(countTokens(""), 0);
    assert.ok(countTokens("a <|endoftext|> b") > 3);
  });

  it("a value's count is the count of its text (its JSON for anything but a string), remembered or not", () => {
    const md = longPage(5);
    const links = [{ url: "https://x.test/a", text: "A" }];
    for (let i = 0; i < 2; i++) {
      assert.equal(countValueTokens(md), countTokens(md));
      assert.equal(countValueTokens(`${md} `), countTokens(`${md} `), "another text, another count");
      assert.equal(countValueTokens(links), countTokens(JSON.stringify(links)));
      assert.equal(countValueTokens("short"), 1);
    }
  });

  it("a long page read in budgeted parts concatenates to exactly the whole markdown", () => {
    const md = longPage(40);
    const total = countTokens(md);
    const parts = readAll(["markdown"], { markdown: md }, Math.ceil(total / 4));
    assert.ok(parts.length >= 4 && parts.length <= 6, `${parts.length} parts`);
    assert.equal(parts.map((p) => p.data.markdown).join(""), md);
    for (const p of parts) assert.ok(p.tokens <= Math.ceil(total / 4), `${p.tokens} tokens`);
    assert.equal(parts[0]!.rest!.format, "markdown");
    assert.ok(Math.abs(parts[0]!.rest!.remainingTokens - (total - parts[0]!.tokens)) < 10);
  });

  it("never cuts inside a code block, a table row, a link or a word", () => {
    const md = longPage(30);
    for (const budget of [256, 300, 400, 777]) {
      const pieces = readAll(["markdown"], { markdown: md }, budget).map((p) => p.data.markdown as string);
      let at = 0;
      for (const piece of pieces.slice(0, -1)) {
        at += piece.length;
        const before = md.slice(0, at);
        const fences = (before.match(/^```/gm) ?? []).length;
        assert.equal(fences % 2, 0, `budget ${budget}: cut inside a code block at ${at}`);
        const line = md.slice(md.lastIndexOf("\n", at - 1) + 1, md.indexOf("\n", at));
        if (!md.slice(0, at).endsWith("\n"))
          assert.ok(!line.trimStart().startsWith("|"), `cut inside a table row: ${line}`);
        assert.ok(
          !/\S/.test(md[at - 1]!) || !/\S/.test(md[at]!) || md[at - 1] === "\n",
          `cut inside a word at ${at}`,
        );
        const opened = before.lastIndexOf("](");
        assert.ok(opened === -1 || before.indexOf(")", opened) !== -1, `cut inside a link at ${at}`);
      }
      assert.equal(pieces.join(""), md);
    }
  });

  it("a code block larger than a whole part is cut between its lines, and only then", () => {
    const code = `Intro.\n\n\`\`\`\n${Array.from({ length: 400 }, (_, i) => `line ${i} of a very long listing`).join("\n")}\n\`\`\`\n\nAfter.\n`;
    const parts = readAll(["markdown"], { markdown: code }, 300);
    assert.equal(parts.map((p) => p.data.markdown).join(""), code);
    assert.equal(parts[0]!.data.markdown, "Intro.\n\n", "the code block starts a part of its own");
    for (const p of parts.slice(1, -1))
      assert.ok((p.data.markdown as string).endsWith("\n"), "cut between lines");
  });

  it("formats after the cut are left out and named, and come whole in the next parts", () => {
    const md = longPage(10);
    const links = Array.from({ length: 300 }, (_, i) => ({ url: `https://x.test/${i}`, text: `Link ${i}` }));
    const data = { markdown: md, links, json: { title: "T", price: 3 } };
    const first = readPart(["markdown", "links", "json"], data, { format: 0, offset: 0 }, 500);
    assert.equal(first.rest?.format, "markdown");
    assert.deepEqual(first.rest?.omitted, ["links", "json"]);
    const parts = readAll(["markdown", "links", "json"], data, 500);
    assert.equal(parts.map((p) => p.data.markdown ?? "").join(""), md);
    assert.deepEqual(
      parts.flatMap((p) => (p.data.links as unknown[]) ?? []),
      links,
    );
    assert.deepEqual(parts.at(-1)!.data.json, data.json);
  });

  it("without a cut nothing changes and nothing says so", () => {
    const part = readPart(
      ["markdown", "links"],
      { markdown: "# Hi\n\nShort.", links: [] },
      { format: 0, offset: 0 },
      256,
    );
    assert.deepEqual(part.data, { markdown: "# Hi\n\nShort.", links: [] });
    assert.equal(part.rest, undefined);
  });

  it("text written to be hard to scan (thousands of half links, brackets, backticks) is cut and read back whole", () => {
    // Each of these made the old link and code patterns try every later position: minutes for a page.
    for (const unit of ["[a](", "\\[a\\](", "[[]", "`a ", "``x ", "<a:b ", "[x]("]) {
      const md = `# Hard\n\n${unit.repeat(Math.ceil(200_000 / unit.length))}\n\nEnd.\n`;
      const parts = readAll(["markdown"], { markdown: md }, 2000);
      assert.equal(parts.map((p) => p.data.markdown).join(""), md, unit);
    }
  });

  it("an html comment with an apostrophe does not hide the cut points after it", () => {
    const html = `<!-- don't remove --><p>it's "here"</p>${"<div><p>Some text in a block.</p></div>\n".repeat(400)}`;
    assert.ok(htmlCuts(html)[0].length > 300);
    const parts = readAll(["html"], { html }, 256);
    assert.ok(parts.length > 5);
    assert.equal(parts.map((p) => p.data.html).join(""), html);
  });

  it("a table is cut between rows at the line level", () => {
    const rows = Array.from({ length: 200 }, (_, i) => `| row ${i} | value ${i} | a longer cell text here |`);
    const md = `| a | b | c |\n| --- | --- | --- |\n${rows.join("\n")}\n`;
    const cuts = markdownCuts(md);
    assert.equal(cuts[0].length, 0, "no block boundary inside the table");
    for (const p of readAll(["markdown"], { markdown: md }, 300).slice(0, -1))
      assert.ok((p.data.markdown as string).endsWith("|\n"));
  });

  it("a page of many parts is read the same twice, each part within budget, with what remains told within 1%", () => {
    const md = longPage(400);
    const links = Array.from({ length: 50 }, (_, i) => `https://x.test/${i}`);
    const data = { markdown: md, links };
    const first = readAll(["markdown", "links"], data, 2_000);
    assert.ok(first.length > 20, `${first.length} parts`);
    assert.equal(first.map((p) => p.data.markdown ?? "").join(""), md);
    assert.deepEqual(first.at(-1)?.data.links, links);
    let read = "";
    for (const p of first) {
      assert.ok(p.tokens <= 2_000, `${p.tokens} tokens`);
      read += (p.data.markdown as string | undefined) ?? "";
      if (!p.rest) continue;
      const exact = countTokens(md.slice(read.length)) + countTokens(JSON.stringify(links));
      assert.ok(
        Math.abs(p.rest.remainingTokens - exact) <= exact / 100 + 2,
        `${p.rest.remainingTokens} vs ${exact}`,
      );
    }
    assert.deepEqual(readAll(["markdown", "links"], { markdown: `${md}`, links }, 2_000), first);
  });

  it("a run of thousands of characters without a space is counted in pieces, within a few percent", () => {
    let seed = 3;
    const rnd = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const base64 = Array.from({ length: 12_000 }, () => alphabet[Math.floor(rnd() * 64)]).join("");
    const text = `<img src="data:image/png;base64,${base64}"> and some words after it.`;
    const exact = encoderCount(text);
    assert.ok(Math.abs(countTokens(text) - exact) <= exact * 0.02, `${countTokens(text)} vs ${exact}`);
    assert.equal(countTokens("a b c"), encoderCount("a b c"), "text without long runs is counted as it is");
  });

  it("html read in parts: what remains is told within 2% at every part, the parts give the html back", () => {
    const html = `<main>${Array.from(
      { length: 3_000 },
      (_, i) =>
        `<div class="row"><p>Row ${i} says <a href="/r/${i}">something</a> about <b>item ${i}</b>.</p></div>`,
    ).join("\n")}</main>`;
    assert.ok(html.length > 250_000);
    const parts = readAll(["html"], { html }, 3_000);
    assert.equal(parts.map((p) => p.data.html).join(""), html);
    let read = 0;
    for (const p of parts) {
      read += (p.data.html as string).length;
      if (!p.rest) continue;
      const exact = countTokens(html.slice(read));
      assert.ok(exact > 0 && p.rest.remainingTokens > 0, "never 0 while text is left");
      assert.ok(
        Math.abs(p.rest.remainingTokens - exact) <= exact * 0.02 + 2,
        `${p.rest.remainingTokens} vs ${exact}`,
      );
    }
  });
});
