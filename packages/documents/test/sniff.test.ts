import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import JSZip from "jszip";
import { looksLikeDocumentType, sniffDocument } from "../src/index.ts";
import {
  encryptedPdf,
  SAMPLE_CSV,
  sampleDocx,
  sampleOds,
  sampleOdt,
  samplePdf,
  sampleXlsx,
} from "./samples.ts";

const text = (s: string) => new TextEncoder().encode(s);
const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

let files: Record<"pdf" | "docx" | "xlsx" | "odt" | "ods", Uint8Array>;
before(async () => {
  files = {
    pdf: await samplePdf(),
    docx: await sampleDocx(),
    xlsx: await sampleXlsx(),
    odt: await sampleOdt(),
    ods: await sampleOds(),
  };
});

describe("sniffDocument", () => {
  test("every binary format is known by its bytes alone, whatever the headers and URL say", () => {
    for (const [type, bytes] of Object.entries(files)) {
      for (const contentType of [undefined, "application/octet-stream", "application/zip", "text/plain"])
        assert.equal(sniffDocument({ bytes, contentType, url: "https://x.test/download?id=7" }), type);
    }
    // The bytes win over a wrong label.
    assert.equal(
      sniffDocument({ bytes: files.docx, contentType: XLSX, url: "https://x.test/a.xlsx" }),
      "docx",
    );
    assert.equal(sniffDocument({ bytes: files.pdf, contentType: "text/html" }), "pdf");
    assert.equal(sniffDocument({ bytes: encryptedPdf() }), "pdf");
  });

  test("a truncated OOXML file is still recognised (for a clear 'damaged' error later)", () => {
    const cut = files.docx.slice(0, Math.floor(files.docx.length / 2));
    assert.equal(sniffDocument({ bytes: cut, contentType: "application/octet-stream" }), "docx");
  });

  test("CSV: by its Content-Type, or by a .csv extension on a text/plain or generic response", () => {
    const bytes = text(SAMPLE_CSV);
    assert.equal(sniffDocument({ bytes, contentType: "text/csv; charset=utf-8" }), "csv");
    assert.equal(sniffDocument({ bytes, contentType: "application/csv" }), "csv");
    assert.equal(
      sniffDocument({ bytes, contentType: "text/plain", url: "https://x.test/data/t.CSV?x=1" }),
      "csv",
    );
    assert.equal(
      sniffDocument({ bytes, contentType: "application/octet-stream", url: "https://x.test/t.csv" }),
      "csv",
    );
    assert.equal(sniffDocument({ bytes, contentType: "text/plain", url: "https://x.test/t.txt" }), undefined);
    assert.equal(sniffDocument({ bytes, url: "https://x.test/t.csv" }), "csv");
  });

  test("HTML is never a document", () => {
    const page = text("<!DOCTYPE html><html><head><title>Hi</title></head><body>a,b</body></html>");
    for (const contentType of ["application/pdf", "text/csv", DOCX, "application/octet-stream", "text/html"])
      assert.equal(sniffDocument({ bytes: page, contentType, url: "https://x.test/file.csv" }), undefined);
    assert.equal(
      sniffDocument({ bytes: text("a,b\n1,2"), contentType: "text/html", url: "https://x.test/t.csv" }),
      undefined,
    );
  });

  test("a claimed type without its magic bytes is kept, so the conversion can say the file is damaged", () => {
    assert.equal(sniffDocument({ bytes: text("garbage"), contentType: "application/pdf" }), "pdf");
    assert.equal(sniffDocument({ bytes: text("garbage"), contentType: DOCX }), "docx");
    // ...but an extension alone does not make a binary document.
    assert.equal(
      sniffDocument({
        bytes: text("garbage"),
        contentType: "application/octet-stream",
        url: "https://x.test/a.pdf",
      }),
      undefined,
    );
  });

  test("a ZIP that is not an Office or OpenDocument file is not a document", async () => {
    const zip = new JSZip();
    zip.file("readme.txt", "hello");
    const bytes = await zip.generateAsync({ type: "uint8array" });
    assert.equal(
      sniffDocument({ bytes, contentType: "application/zip", url: "https://x.test/a.zip" }),
      undefined,
    );
  });

  test("images and binaries that are not documents are not", () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    assert.equal(sniffDocument({ bytes: png, contentType: "image/png" }), undefined);
    assert.equal(sniffDocument({ bytes: png, contentType: "application/octet-stream" }), undefined);
    assert.equal(
      sniffDocument({ bytes: png, contentType: "text/plain", url: "https://x.test/a.csv" }),
      undefined,
    );
  });
});

describe("looksLikeDocumentType", () => {
  test("document, generic binary and ZIP types go to the document path; pages and images do not", () => {
    for (const ct of [
      "application/pdf",
      DOCX,
      XLSX,
      "application/vnd.oasis.opendocument.text",
      "application/vnd.oasis.opendocument.spreadsheet",
      "text/csv",
      "application/csv",
      "application/octet-stream",
      "application/zip",
    ])
      assert.equal(looksLikeDocumentType(ct, "https://x.test/file"), true, ct);
    assert.equal(looksLikeDocumentType("text/plain", "https://x.test/t.csv"), true);
    for (const ct of ["text/html; charset=utf-8", "text/plain", "image/png", "application/json", undefined])
      assert.equal(looksLikeDocumentType(ct, "https://x.test/page"), false, String(ct));
    assert.equal(looksLikeDocumentType("text/html", "https://x.test/report.pdf"), false);
  });
});
