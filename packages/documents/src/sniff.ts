import type { DocumentFacts } from "@browserfleet/contracts";

export type DocumentType = DocumentFacts["type"];

export interface SniffInput {
  bytes: Uint8Array;
  /** The Content-Type the server sent, parameters and all. */
  contentType?: string;
  /** The URL the bytes came from; only its path's extension is read. */
  url?: string;
}

const MIME_TYPES: Record<string, DocumentType> = {
  "application/pdf": "pdf",
  "application/x-pdf": "pdf",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
  "application/vnd.oasis.opendocument.text": "odt",
  "application/vnd.oasis.opendocument.spreadsheet": "ods",
  "text/csv": "csv",
  "application/csv": "csv",
  "text/comma-separated-values": "csv",
  "text/x-csv": "csv",
  "application/x-csv": "csv",
};

const EXTENSIONS: Record<string, DocumentType> = {
  pdf: "pdf",
  docx: "docx",
  xlsx: "xlsx",
  csv: "csv",
  odt: "odt",
  ods: "ods",
};

/** Types a server sends for "some file": the bytes decide. */
const GENERIC_BINARY = new Set([
  "application/octet-stream",
  "binary/octet-stream",
  "application/zip",
  "application/x-zip",
  "application/x-zip-compressed",
  "application/force-download",
  "application/download",
]);

/** Types a CSV is often mislabelled with; only a .csv extension makes them one. */
const CSV_BY_EXTENSION = new Set([
  "",
  "text/plain",
  "application/octet-stream",
  "binary/octet-stream",
  "application/vnd.ms-excel",
  "application/force-download",
  "application/download",
]);

const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);

/** "Text/CSV; charset=utf-8" → "text/csv"; absent → "". */
export function mimeOf(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

/** The lower-cased extension of the URL's path ("" when none). */
export function extensionOf(url: string | undefined): string {
  if (!url) return "";
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    path = url.split(/[?#]/)[0] ?? "";
  }
  const last = path.slice(path.lastIndexOf("/") + 1);
  const dot = last.lastIndexOf(".");
  return dot > 0 ? last.slice(dot + 1).toLowerCase() : "";
}

/** The document type the headers and URL claim, without looking at any bytes. */
export function claimedDocumentType(contentType: string | undefined, url?: string): DocumentType | undefined {
  const mime = mimeOf(contentType);
  if (HTML_TYPES.has(mime)) return undefined;
  const byMime = MIME_TYPES[mime];
  if (byMime) return byMime;
  const byExt = EXTENSIONS[extensionOf(url)];
  if (byExt === "csv") return CSV_BY_EXTENSION.has(mime) ? "csv" : undefined;
  if (byExt && (mime === "" || GENERIC_BINARY.has(mime))) return byExt;
  return undefined;
}

/**
 * From the response headers alone: could this navigation be a document? True for the document types,
 * for generic binary and ZIP types (the bytes will tell), and for a CSV mislabelled as text/plain.
 * A cheap gate before fetching the bytes; `sniffDocument` has the last word.
 */
export function looksLikeDocumentType(contentType: string | undefined, url?: string): boolean {
  const mime = mimeOf(contentType);
  if (HTML_TYPES.has(mime)) return false;
  if (mime in MIME_TYPES || GENERIC_BINARY.has(mime)) return true;
  return claimedDocumentType(contentType, url) !== undefined;
}

const startsWith = (bytes: Uint8Array, sig: readonly number[], at = 0) =>
  bytes.length >= at + sig.length && sig.every((b, i) => bytes[at + i] === b);

const ZIP = [0x50, 0x4b, 0x03, 0x04];
const OLE2 = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const PDF = [0x25, 0x50, 0x44, 0x46, 0x2d]; // %PDF-

/** pdf.js accepts a header anywhere in the first KiB, after junk some servers prepend. */
export function hasPdfMagic(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length - PDF.length, 1024);
  for (let i = 0; i <= end; i++) if (startsWith(bytes, PDF, i)) return true;
  return false;
}

export const isZip = (bytes: Uint8Array) => startsWith(bytes, ZIP);
/** The OLE2 compound file: legacy .doc/.xls, and also any password-protected .docx/.xlsx. */
export const isOle2 = (bytes: Uint8Array) => startsWith(bytes, OLE2);

/** Markup (HTML, XML): a page, never a document, whatever its headers say. */
function looksLikeMarkup(bytes: Uint8Array): boolean {
  let i = startsWith(bytes, [0xef, 0xbb, 0xbf]) ? 3 : 0;
  const end = Math.min(bytes.length, i + 1024);
  while (i < end && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)) i++;
  if (bytes[i] !== 0x3c) return false; // <
  const next = bytes[i + 1] ?? 0;
  const letter = (next | 0x20) >= 0x61 && (next | 0x20) <= 0x7a;
  return next === 0x21 || next === 0x3f || letter; // <! <? or <tag
}

const latin1 = new TextDecoder("latin1");
const u16 = (b: Uint8Array, at: number) => (b[at] ?? 0) | ((b[at + 1] ?? 0) << 8);
const u32 = (b: Uint8Array, at: number) => (u16(b, at) | (u16(b, at + 2) << 16)) >>> 0;

/**
 * The entry names of a ZIP, from its central directory, or (when that is missing, as in a truncated
 * file) from the local headers that can be walked from the start. Only names: no decompression.
 */
export function zipEntryNames(bytes: Uint8Array, max = 10_000): string[] {
  const names: string[] = [];
  // End of central directory: 22 bytes plus a comment of up to 65535.
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 65_535); i--) {
    if (u32(bytes, i) !== 0x06054b50) continue;
    let at = u32(bytes, i + 16);
    const count = Math.min(u16(bytes, i + 10), max);
    for (let n = 0; n < count && at + 46 <= bytes.length && u32(bytes, at) === 0x02014b50; n++) {
      const nameLen = u16(bytes, at + 28);
      names.push(latin1.decode(bytes.subarray(at + 46, at + 46 + nameLen)));
      at += 46 + nameLen + u16(bytes, at + 30) + u16(bytes, at + 32);
    }
    if (names.length > 0) return names;
    break;
  }
  let at = 0;
  while (names.length < max && at + 30 <= bytes.length && u32(bytes, at) === 0x04034b50) {
    const nameLen = u16(bytes, at + 26);
    names.push(latin1.decode(bytes.subarray(at + 30, at + 30 + nameLen)));
    const flags = u16(bytes, at + 6);
    const size = u32(bytes, at + 18);
    if (flags & 0x08 && size === 0) break; // size only in a trailing descriptor: cannot walk on
    at += 30 + nameLen + u16(bytes, at + 28) + size;
  }
  return names;
}

/** ODF puts an uncompressed `mimetype` entry first; its content names the kind of document. */
function odfMimetype(bytes: Uint8Array): string | undefined {
  if (!isZip(bytes) || u16(bytes, 8) !== 0) return undefined; // stored, not deflated
  const nameLen = u16(bytes, 26);
  if (latin1.decode(bytes.subarray(30, 30 + nameLen)) !== "mimetype") return undefined;
  const start = 30 + nameLen + u16(bytes, 28);
  return latin1.decode(bytes.subarray(start, start + Math.min(u32(bytes, 18), 200))).trim();
}

function zipDocumentType(bytes: Uint8Array): DocumentType | undefined {
  const mimetype = odfMimetype(bytes);
  if (mimetype === "application/vnd.oasis.opendocument.text") return "odt";
  if (mimetype === "application/vnd.oasis.opendocument.spreadsheet") return "ods";
  const names = new Set(zipEntryNames(bytes));
  if (names.has("word/document.xml")) return "docx";
  if (names.has("xl/workbook.xml")) return "xlsx";
  return undefined;
}

/**
 * What kind of document these bytes are, if any. The bytes come first (a PDF header, or a ZIP whose
 * entries say OOXML or ODF), then the Content-Type, then, for CSV only, a .csv extension on a
 * text/plain or generic binary response. HTML is never a document.
 */
export function sniffDocument({ bytes, contentType, url }: SniffInput): DocumentType | undefined {
  if (hasPdfMagic(bytes)) return "pdf";
  const claimed = claimedDocumentType(contentType, url);
  const zipBased = claimed === "docx" || claimed === "xlsx" || claimed === "odt" || claimed === "ods";
  if (isZip(bytes)) return zipDocumentType(bytes) ?? (zipBased ? claimed : undefined);
  // A password-protected .docx/.xlsx is an OLE2 file; conversion reports it as encrypted.
  if (isOle2(bytes)) return claimed === "docx" || claimed === "xlsx" ? claimed : undefined;
  if (looksLikeMarkup(bytes)) return undefined;
  // No magic bytes: the Content-Type must say so (a corrupt file then fails to convert, and says why).
  const byMime = MIME_TYPES[mimeOf(contentType)];
  if (byMime) return byMime;
  // CSV has no magic at all: a .csv on a text/plain or generic response is one, unless it is binary.
  if (claimed === "csv" && !hasNul(bytes)) return "csv";
  return undefined;
}

function hasNul(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 4096).includes(0);
}
