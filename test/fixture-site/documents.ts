/**
 * Documents for the document-conversion tests, built once at import (top-level await) with the
 * libraries that write them, so the routes can answer synchronously:
 *
 *   /docs/report.pdf        application/pdf, 3 pages, title "Quarterly Report"
 *   /docs/letter.docx       Word: headings, bold, bullet and numbered lists, a table
 *   /docs/figures.xlsx      Excel: sheets "Sales" and "Notes"
 *   /docs/table.csv         text/csv
 *   /docs/plain.csv         the same CSV as text/plain (Chromium shows it inline)
 *   /docs/notes.odt         OpenDocument text
 *   /docs/sheet.ods         OpenDocument spreadsheet: sheets "Inventory" and "Summary"
 *   /docs/mislabelled       the PDF as application/octet-stream, no extension (magic bytes tell)
 *   /docs/corrupt.pdf       application/pdf, garbage bytes
 *   /docs/encrypted.pdf     application/pdf needing a password
 *   /docs/archive.zip       application/zip holding a text file: a download that is no document
 *   /docs/moved             302 to /docs/report.pdf
 *   /docs/links.docx        Word: links to /crawl/a2 and /docs/table.csv (a crawl follows them)
 */
import JSZip from "jszip";
import {
  encryptedPdf,
  SAMPLE_CSV,
  sampleDocx,
  sampleLinkedDocx,
  sampleOds,
  sampleOdt,
  samplePdf,
  sampleXlsx,
} from "../../packages/documents/test/samples.ts";
import type { ExtraRoutes, Reply } from "./reply.ts";

const PDF = "application/pdf";

async function prepareDocuments(): Promise<Record<string, Reply>> {
  const zip = new JSZip();
  zip.file("readme.txt", "just a text file in an archive");
  const [pdf, docx, xlsx, odt, ods, archive, linked] = await Promise.all([
    samplePdf({ pages: 3, title: "Quarterly Report" }),
    sampleDocx(),
    sampleXlsx(),
    sampleOdt(),
    sampleOds(),
    zip.generateAsync({ type: "uint8array" }),
    sampleLinkedDocx([
      { text: "page A2", href: "/crawl/a2" },
      { text: "the table", href: "/docs/table.csv" },
    ]),
  ]);
  const file = (type: string, bytes: Uint8Array | string): Reply => ({
    status: 200,
    type,
    body: typeof bytes === "string" ? bytes : Buffer.from(bytes),
  });
  return {
    "/docs/report.pdf": file(PDF, pdf),
    "/docs/letter.docx": file(
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
      docx,
    ),
    "/docs/figures.xlsx": file("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", xlsx),
    "/docs/table.csv": file("text/csv; charset=utf-8", SAMPLE_CSV),
    "/docs/plain.csv": file("text/plain; charset=utf-8", SAMPLE_CSV),
    "/docs/notes.odt": file("application/vnd.oasis.opendocument.text", odt),
    "/docs/sheet.ods": file("application/vnd.oasis.opendocument.spreadsheet", ods),
    "/docs/mislabelled": file("application/octet-stream", pdf),
    "/docs/corrupt.pdf": file(PDF, Buffer.from("%PDF-1.7\nthis is not a real PDF, only its first line\n")),
    "/docs/encrypted.pdf": file(PDF, encryptedPdf()),
    "/docs/archive.zip": file("application/zip", archive),
    "/docs/moved": { status: 302, headers: { Location: "/docs/report.pdf" } },
    "/docs/links.docx": file(
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
      linked,
    ),
  };
}

const documents = await prepareDocuments();

export const documentsRoutes: ExtraRoutes = (path) => documents[path] ?? null;
