import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { DOCUMENT_TYPES } from "@browserfleet/contracts";
import ExcelJS from "exceljs";
import JSZip from "jszip";
import {
  convertDocument,
  DocumentError,
  type DocumentErrorCode,
  MAX_SHEET_COLUMNS,
  MAX_SHEET_ROWS,
} from "../src/index.ts";
import {
  encryptedPdf,
  SAMPLE_CSV,
  sampleDocx,
  sampleOds,
  sampleOdt,
  samplePdf,
  sampleXlsx,
} from "./samples.ts";

const url = (name: string) => `https://files.example/docs/${name}`;
/** The table rows of some markdown (the |---| line excluded). */
const tableRows = (md: string) =>
  md.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| --- |"));

async function rejectsWith(work: Promise<unknown>, code: DocumentErrorCode, message?: RegExp) {
  await assert.rejects(work, (err: unknown) => {
    assert.ok(err instanceof DocumentError, `a DocumentError, not ${String(err)}`);
    assert.equal(err.code, code, err.message);
    if (message) assert.match(err.message, message);
    return true;
  });
}

describe("PDF", () => {
  test("keeps every page's text, in page order, each page marked, with the title from the metadata", async () => {
    const r = await convertDocument(await samplePdf({ pages: 4, title: "Field Report" }), "pdf", {
      url: url("report.pdf"),
    });
    assert.equal(r.pages, 4);
    assert.equal(r.title, "Field Report");
    const at = [1, 2, 3, 4].map((n) => r.markdown.indexOf(`<!-- page ${n} -->`));
    assert.ok(
      at.every((i, k) => i >= 0 && (k === 0 || i > at[k - 1]!)),
      `pages in order: ${at}`,
    );
    for (const n of [1, 2, 3, 4]) {
      const page = r.markdown.slice(at[n - 1], at[n] ?? undefined);
      assert.match(
        page,
        new RegExp(`Chapter ${n}\\n\\nThe first paragraph of page ${n}\\.\\nIt runs onto a second line\\.`),
      );
      assert.match(page, new RegExp(`\\n\\nA second paragraph on page ${n}\\.`));
    }
  });

  test("a PDF without a title is titled by its file name", async () => {
    const r = await convertDocument(await samplePdf({ pages: 1 }), "pdf", { url: url("q3%20summary.pdf") });
    assert.equal(r.title, "q3 summary.pdf");
  });

  test("a password-protected PDF is document_encrypted", async () => {
    await rejectsWith(
      convertDocument(encryptedPdf(), "pdf", { url: url("secret.pdf") }),
      "document_encrypted",
      /password/,
    );
  });

  test("garbage, a truncated file and an empty file are document_corrupt", async () => {
    const pdf = await samplePdf();
    await rejectsWith(
      convertDocument(new TextEncoder().encode("%PDF-1.7 not really"), "pdf", { url: url("a.pdf") }),
      "document_corrupt",
      /PDF/,
    );
    await rejectsWith(
      convertDocument(pdf.slice(0, pdf.length / 2), "pdf", { url: url("a.pdf") }),
      "document_corrupt",
    );
    await rejectsWith(
      convertDocument(new Uint8Array(), "pdf", { url: url("a.pdf") }),
      "document_corrupt",
      /empty/,
    );
  });

  test("more pages than maxPages is document_too_large", async () => {
    await rejectsWith(
      convertDocument(await samplePdf({ pages: 3 }), "pdf", { url: url("a.pdf"), maxPages: 2 }),
      "document_too_large",
      /3 pages/,
    );
  });

  test("a spent time budget is document_too_large", async () => {
    await rejectsWith(
      convertDocument(await samplePdf({ pages: 2 }), "pdf", { url: url("a.pdf"), timeBudgetMs: 0 }),
      "document_too_large",
      /longer than/,
    );
  });
});

describe("Word (.docx)", () => {
  test("headings, emphasis, bullet and numbered lists and tables survive as markdown", async () => {
    const r = await convertDocument(await sampleDocx(), "docx", { url: url("letter.docx") });
    const md = r.markdown;
    assert.match(md, /^# Letter to Shareholders$/m);
    assert.match(md, /^This year was \*\*remarkable\*\* for everyone\.$/m);
    assert.match(md, /^## Highlights\n\n- Revenue grew\n- Costs fell$/m);
    assert.match(md, /^1\. Hire\n2\. Build$/m);
    assert.match(md, /^\| Region \| Sales \|$/m);
    assert.match(md, /^\| North \\\| East \| 120 \|$/m);
    assert.match(md, /^\| South \| 80\s*\|$/m);
    assert.equal(r.title, "Annual Letter");
  });

  test("a ZIP that is not a Word document, a truncated one, or random bytes are document_corrupt", async () => {
    const zip = new JSZip();
    zip.file("readme.txt", "hi");
    const other = await zip.generateAsync({ type: "uint8array" });
    await rejectsWith(
      convertDocument(other, "docx", { url: url("a.docx") }),
      "document_corrupt",
      /not a Word/,
    );
    const docx = await sampleDocx();
    await rejectsWith(
      convertDocument(docx.slice(0, docx.length - 200), "docx", { url: url("a.docx") }),
      "document_corrupt",
    );
    await rejectsWith(
      convertDocument(new Uint8Array([1, 2, 3, 4, 5]), "docx", { url: url("a.docx") }),
      "document_corrupt",
    );
  });

  test("a password-protected Office file (an OLE2 EncryptedPackage) is document_encrypted; a legacy .doc is unsupported", async () => {
    const ole2 = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
    // An OLE2 header and a directory entry named EncryptedPackage, as Office writes for a protected file.
    const encrypted = Buffer.concat([
      Buffer.from(ole2),
      Buffer.alloc(504),
      Buffer.from("EncryptedPackage", "utf16le"),
    ]);
    await rejectsWith(convertDocument(encrypted, "docx", { url: url("a.docx") }), "document_encrypted");
    await rejectsWith(convertDocument(encrypted, "xlsx", { url: url("a.xlsx") }), "document_encrypted");
    const legacy = Buffer.concat([
      Buffer.from(ole2),
      Buffer.alloc(504),
      Buffer.from("WordDocument", "utf16le"),
    ]);
    await rejectsWith(
      convertDocument(legacy, "docx", { url: url("a.doc") }),
      "document_unsupported",
      /legacy/,
    );
  });
});

describe("Excel (.xlsx)", () => {
  test("each sheet is a titled table, first row as header, values as shown", async () => {
    const r = await convertDocument(await sampleXlsx(), "xlsx", { url: url("figures.xlsx") });
    const md = r.markdown;
    assert.equal(r.sheets, 2);
    assert.equal(r.title, "Quarterly Figures");
    assert.ok(md.indexOf("## Sales") < md.indexOf("## Notes") && md.indexOf("## Sales") >= 0);
    assert.match(md, /^## Sales\n\n\| Region \| Q1 \| Q2 \| Total \|\n\| --- \| --- \| --- \| --- \|$/m);
    assert.match(md, /^\| North \| 10 \| 20 \| 30 \|$/m, "a formula shows its result");
    assert.match(md, /^\| South \\\| West \| 5 \| 7 \| 12 \|$/m, "pipes are escaped");
    assert.match(md, /^\| Closed on \| 2024-03-31 \|/m, "dates are days");
    assert.match(md, /^\| Line one<br>Line two \|$/m, "line breaks stay inside the cell");
  });

  test("rows and columns past the caps are cut, and the markdown says so", async () => {
    const wb = new ExcelJS.Workbook();
    const wide = wb.addWorksheet("Wide");
    const width = MAX_SHEET_COLUMNS + 20;
    for (let r = 0; r < 3; r++) wide.addRow(Array.from({ length: width }, (_, c) => `r${r}c${c}`));
    const long = wb.addWorksheet("Long");
    for (let r = 0; r < MAX_SHEET_ROWS + 10; r++) long.addRow([r]);
    const bytes = new Uint8Array(await wb.xlsx.writeBuffer());
    const r = await convertDocument(bytes, "xlsx", { url: url("big.xlsx") });
    const [wideMd = "", longMd = ""] = r.markdown.split("## Long");
    const wideRows = tableRows(wideMd);
    assert.equal(wideRows.length, 3);
    assert.equal(wideRows[0]!.split(" | ").length, MAX_SHEET_COLUMNS);
    assert.ok(!wideMd.includes(`c${MAX_SHEET_COLUMNS} `), "the columns past the cap are left out");
    assert.match(
      wideMd,
      new RegExp(`_Cut: only the first ${MAX_SHEET_COLUMNS} of ${width} columns are shown\\._`),
    );
    assert.equal(tableRows(longMd).length, MAX_SHEET_ROWS);
    assert.match(
      longMd,
      new RegExp(`_Cut: only the first ${MAX_SHEET_ROWS} of ${MAX_SHEET_ROWS + 10} rows are shown\\._`),
    );
  });
});

describe("CSV", () => {
  test("one table titled by the file name; BOM dropped, quotes honoured, pipes escaped", async () => {
    const r = await convertDocument(new TextEncoder().encode(SAMPLE_CSV), "csv", { url: url("table.csv") });
    assert.equal(r.title, "table.csv");
    assert.equal(r.sheets, 1);
    assert.equal(
      r.markdown,
      "## table.csv\n\n| name | city | score |\n| --- | --- | --- |\n| Alice | Paris | 30 |\n| Bob, Jr. | New \\| York | 25 |\n",
    );
  });

  test("a long CSV is cut at the row cap, and the markdown says so", async () => {
    const csv = Array.from({ length: MAX_SHEET_ROWS + 50 }, (_, i) => `${i},x`).join("\n");
    const r = await convertDocument(new TextEncoder().encode(csv), "csv", { url: url("long.csv") });
    assert.equal(tableRows(r.markdown).length, MAX_SHEET_ROWS);
    assert.match(r.markdown, new RegExp(`_Cut: only the first ${MAX_SHEET_ROWS} rows are shown\\._`));
  });

  test("semicolon-separated files are read too", async () => {
    const r = await convertDocument(new TextEncoder().encode("a;b\n1;2\n"), "csv", { url: url("semi.csv") });
    assert.match(r.markdown, /^\| a \| b \|\n\| --- \| --- \|\n\| 1 \| 2 \|$/m);
  });
});

describe("OpenDocument", () => {
  test("odt: headings, emphasis, links, lists, tables and notes survive; title from meta.xml", async () => {
    const r = await convertDocument(await sampleOdt(), "odt", { url: url("notes.odt") });
    const md = r.markdown;
    assert.equal(r.title, "Team Meeting");
    assert.match(md, /^# Meeting Notes$/m);
    assert.match(md, /^We met on \*\*Tuesday\*\* at the \[office\]\(https:\/\/example\.com\/office\)\./m);
    assert.match(md, /^## Attendees\n\n- Ann\n- Ben$/m);
    assert.match(md, /^1\. Write the report\n2\. Send it$/m);
    assert.match(md, /^\| Item \| Cost \|\n\| --- \| --- \|\n\| Paper & ink \| 12\s*\|$/m);
    assert.match(md, /Room 4\./);
  });

  test("ods: each sheet a titled table; repeated cells and rows expanded, trailing empties dropped", async () => {
    const r = await convertDocument(await sampleOds(), "ods", { url: url("sheet.ods") });
    assert.equal(r.sheets, 2);
    assert.equal(r.title, "Stock");
    assert.equal(
      r.markdown,
      [
        "## Inventory",
        "",
        "| Item | Count | Flag |",
        "| --- | --- | --- |",
        "| Nuts | 5 | 5 |",
        "| Washers | 9 | no |",
        "| Washers | 9 | no |",
        "",
        "## Summary",
        "",
        "| Total | 7 |",
        "| --- | --- |",
        "",
      ].join("\n"),
    );
  });

  test("a password-protected ODF file is document_encrypted; a broken one document_corrupt", async () => {
    await rejectsWith(
      convertDocument(await sampleOdt({ encrypted: true }), "odt", { url: url("a.odt") }),
      "document_encrypted",
    );
    const zip = new JSZip();
    zip.file("mimetype", "application/vnd.oasis.opendocument.text", { compression: "STORE" });
    zip.file("content.xml", "<office:document-content><office:body><office:text><text:p>unclosed");
    const broken = await zip.generateAsync({ type: "uint8array" });
    await rejectsWith(convertDocument(broken, "odt", { url: url("a.odt") }), "document_corrupt");
    const odt = await sampleOdt();
    await rejectsWith(
      convertDocument(odt, "ods", { url: url("a.ods") }),
      "document_corrupt",
      /not an OpenDocument spreadsheet/,
    );
  });
});

describe("never a crash", () => {
  test("random bytes of any claimed type give a DocumentError, never anything else", async () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed & 0xff;
    };
    for (const type of DOCUMENT_TYPES) {
      for (const prefix of [[], [0x50, 0x4b, 0x03, 0x04], [0x25, 0x50, 0x44, 0x46, 0x2d]]) {
        const bytes = new Uint8Array([...prefix, ...Array.from({ length: 2000 }, random)]);
        try {
          await convertDocument(bytes, type, { url: url(`x.${type}`) });
        } catch (err) {
          assert.ok(err instanceof DocumentError, `${type}: ${String(err)}`);
        }
      }
    }
  });
});
