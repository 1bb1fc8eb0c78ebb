import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Stack, startStack } from "../helpers/stack.ts";

let stack: Stack;
let site: string;
before(async () => {
  stack = await startStack({ jobs: false });
  site = stack.site.url;
});
after(async () => stack?.stop());

const scrape = (body: Record<string, unknown>, headers?: Record<string, string>) =>
  stack.post("/web/v1/scrape", body, headers);
const balance = async (key: string) => {
  const res = await fetch(`${stack.api.url}/web/v1/account`, { headers: { authorization: `Bearer ${key}` } });
  return ((await res.json()) as { balance: { micros: number } }).balance.micros;
};

describe("documents are converted to markdown without a browser", () => {
  it("a PDF keeps its pages in order, with its title and page count", async () => {
    const { status, body } = await scrape({ url: `${site}/docs/report.pdf` });
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.success, true);
    assert.deepEqual(body.errors, {});
    const md: string = body.data.markdown;
    const at = [1, 2, 3].map((n) => md.indexOf(`<!-- page ${n} -->`));
    assert.ok(at[0]! >= 0 && at[0]! < at[1]! && at[1]! < at[2]!, md);
    for (const n of [1, 2, 3])
      assert.match(md, new RegExp(`Chapter ${n}\\n\\nThe first paragraph of page ${n}\\.`));
    assert.ok(
      md.indexOf("Chapter 1") < md.indexOf("Chapter 2") && md.indexOf("Chapter 2") < md.indexOf("Chapter 3"),
    );
    assert.equal(body.metadata.title, "Quarterly Report");
    assert.equal(body.metadata.url, `${site}/docs/report.pdf`);
    assert.equal(body.metadata.statusCode, 200);
    assert.equal(body.metadata.renders, 1);
    assert.equal(body.metadata.document.type, "pdf");
    assert.equal(body.metadata.document.pages, 3);
    assert.equal(body.metadata.document.contentType, "application/pdf");
    assert.ok(body.metadata.document.bytes > 500);
  });

  it("Word, Excel, CSV and OpenDocument files keep their headings, lists and tables", async () => {
    const docx = (await scrape({ url: `${site}/docs/letter.docx` })).body;
    assert.equal(docx.success, true, JSON.stringify(docx));
    assert.match(docx.data.markdown, /^# Letter to Shareholders$/m);
    assert.match(docx.data.markdown, /^- Revenue grew\n- Costs fell$/m);
    assert.match(docx.data.markdown, /^\| Region \| Sales \|$/m);
    assert.equal(docx.metadata.document.type, "docx");

    const xlsx = (await scrape({ url: `${site}/docs/figures.xlsx` })).body;
    assert.equal(xlsx.success, true, JSON.stringify(xlsx));
    assert.match(xlsx.data.markdown, /^## Sales\n\n\| Region \| Q1 \| Q2 \| Total \|$/m);
    assert.match(xlsx.data.markdown, /^## Notes$/m);
    assert.deepEqual([xlsx.metadata.document.type, xlsx.metadata.document.sheets], ["xlsx", 2]);

    const csv = (await scrape({ url: `${site}/docs/table.csv` })).body;
    assert.equal(csv.success, true, JSON.stringify(csv));
    assert.match(
      csv.data.markdown,
      /^## table\.csv\n\n\| name \| city \| score \|\n\| --- \| --- \| --- \|\n\| Alice \| Paris \| 30 \|$/m,
    );
    assert.deepEqual([csv.metadata.document.type, csv.metadata.document.sheets], ["csv", 1]);
    assert.equal(csv.metadata.title, "table.csv");

    const odt = (await scrape({ url: `${site}/docs/notes.odt` })).body;
    assert.equal(odt.success, true, JSON.stringify(odt));
    assert.match(odt.data.markdown, /^# Meeting Notes$/m);
    assert.match(odt.data.markdown, /^- Ann\n- Ben$/m);
    assert.match(odt.data.markdown, /^\| Item \| Cost \|$/m);
    assert.equal(odt.metadata.document.type, "odt");

    const ods = (await scrape({ url: `${site}/docs/sheet.ods` })).body;
    assert.equal(ods.success, true, JSON.stringify(ods));
    assert.match(ods.data.markdown, /^## Inventory\n\n\| Item \| Count \| Flag \|$/m);
    assert.match(ods.data.markdown, /^## Summary$/m);
    assert.deepEqual([ods.metadata.document.type, ods.metadata.document.sheets], ["ods", 2]);
  });

  it("a CSV the browser shows as text is converted from the browser's copy, without a second fetch", async () => {
    const before = stack.site.hits("/docs/plain.csv");
    const { body } = await scrape({ url: `${site}/docs/plain.csv` });
    assert.equal(body.success, true, JSON.stringify(body));
    assert.match(body.data.markdown, /^\| Bob, Jr\. \| New \\\| York \| 25 \|$/m);
    assert.equal(body.metadata.document.type, "csv");
    assert.equal(stack.site.hits("/docs/plain.csv") - before, 1);
  });

  it("a PDF served as application/octet-stream with no extension is known by its bytes", async () => {
    const { body } = await scrape({ url: `${site}/docs/mislabelled` });
    assert.equal(body.success, true, JSON.stringify(body));
    assert.match(body.data.markdown, /Chapter 2/);
    assert.equal(body.metadata.document.type, "pdf");
    assert.equal(body.metadata.document.contentType, "application/octet-stream");
  });

  it("a redirect to a document reports the final URL", async () => {
    const { body } = await scrape({ url: `${site}/docs/moved` });
    assert.equal(body.success, true, JSON.stringify(body));
    assert.equal(body.metadata.url, `${site}/docs/report.pdf`);
    assert.equal(body.metadata.document.pages, 3);
  });

  it("only markdown comes out of a document: other formats are errors, and only markdown is charged", async () => {
    const { key } = await stack.newKey(1_000_000);
    const r = await scrape(
      { url: `${site}/docs/report.pdf`, formats: ["markdown", "html", "screenshot"] },
      { authorization: `Bearer ${key}` },
    );
    assert.equal(r.status, 200);
    assert.equal(r.body.success, true);
    assert.deepEqual(Object.keys(r.body.data), ["markdown"]);
    assert.equal(r.body.errors.html.code, "not_for_documents");
    assert.equal(r.body.errors.screenshot.code, "not_for_documents");
    assert.match(r.body.errors.html.message, /only markdown/);
    assert.equal(r.body.metadata.renders, 1);
    assert.equal(r.headers.get("x-charged-usd"), "$0.001");
    assert.equal(await balance(key), 1_000_000 - 1_000);
  });

  it("a PDF's pdf format is the file itself, as base64 or as a link with binaryAs url", async () => {
    const original = Buffer.from(await (await fetch(`${site}/docs/report.pdf`)).arrayBuffer());
    const inline = await scrape({ url: `${site}/docs/report.pdf`, formats: ["markdown", "pdf"] });
    assert.equal(inline.status, 200);
    assert.ok(Buffer.from(inline.body.data.pdf, "base64").equals(original), "the very bytes served");
    assert.equal(inline.body.metadata.renders, 2);
    const linked = await scrape({ url: `${site}/docs/report.pdf`, formats: ["pdf"], binaryAs: "url" });
    assert.equal(linked.status, 200, JSON.stringify(linked.body));
    const file = await fetch(linked.body.data.pdf);
    assert.equal(file.headers.get("content-type"), "application/pdf");
    assert.ok(Buffer.from(await file.arrayBuffer()).equals(original));
    const word = await scrape({ url: `${site}/docs/letter.docx`, formats: ["markdown", "pdf"] });
    assert.equal(word.body.errors.pdf?.code, "not_for_documents", "a Word file is not a PDF");
  });

  it("corrupt, encrypted and oversized documents fail per format with a clear code, and cost nothing", async () => {
    const { key } = await stack.newKey(1_000_000);
    const auth = { authorization: `Bearer ${key}` };
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ url: `${site}/docs/corrupt.pdf` }, "document_corrupt", /PDF/],
      [{ url: `${site}/docs/encrypted.pdf` }, "document_encrypted", /password/],
      [{ url: `${site}/docs/report.pdf`, documents: { maxBytes: 200 } }, "document_too_large", /200 bytes/],
    ];
    for (const [req, code, message] of cases) {
      const r = await scrape(req, auth);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.success, false);
      assert.deepEqual(r.body.data, {});
      assert.equal(r.body.errors.markdown.code, code, JSON.stringify(r.body.errors));
      assert.match(r.body.errors.markdown.message, message);
      assert.equal(r.body.metadata.renders, 0);
      assert.equal(r.body.metadata.document.type, "pdf");
    }
    assert.equal(await balance(key), 1_000_000, "nothing came out, nothing is charged");
  });

  it("a download that is no document fails as a whole, uncharged", async () => {
    const { key } = await stack.newKey(1_000_000);
    const r = await scrape({ url: `${site}/docs/archive.zip` }, { authorization: `Bearer ${key}` });
    assert.equal(r.status, 502, JSON.stringify(r.body));
    assert.equal(r.body.error.code, "upstream_failed");
    assert.match(r.body.error.message, /file download/);
    assert.equal(await balance(key), 1_000_000);
  });

  it("documents.enabled=false leaves the browser path as it was", async () => {
    const r = await scrape({ url: `${site}/docs/table.csv`, documents: { enabled: false } });
    assert.ok(r.status >= 400, JSON.stringify(r.body));
    assert.equal(r.body.error.code, "upstream_failed");
  });

  it("an HTML page still scrapes normally, with no document metadata", async () => {
    const { body } = await scrape({ url: `${site}/article`, formats: ["markdown", "html"] });
    assert.equal(body.success, true);
    assert.match(body.data.markdown, /^# The Fixture Article$/m);
    assert.match(body.data.html, /<html/);
    assert.equal(body.metadata.document, undefined);
    assert.equal(body.metadata.renders, 2);
  });
});
