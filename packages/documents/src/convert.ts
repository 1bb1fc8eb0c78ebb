import { Budget } from "./budget.ts";
import { convertCsv } from "./csv.ts";
import { convertDocx } from "./docx.ts";
import { DocumentError } from "./errors.ts";
import { DEFAULT_TIME_BUDGET_MS, MAX_MARKDOWN_CHARS, MAX_PDF_PAGES } from "./limits.ts";
import { convertOds, convertOdt } from "./odf.ts";
import { convertPdf } from "./pdf.ts";
import { type DocumentType, isOle2 } from "./sniff.ts";
import { convertXlsx } from "./xlsx.ts";

export interface ConvertOptions {
  /** Where the document came from: links resolve against it, and a CSV is titled from its file name. */
  url: string;
  /** PDFs with more pages fail with document_too_large (default MAX_PDF_PAGES). */
  maxPages?: number;
  /** Wall-time budget; past it the conversion fails with document_too_large (default 20 s). */
  timeBudgetMs?: number;
}

export interface ConvertedDocument {
  markdown: string;
  /** The document's own title (PDF or Office metadata, else its first heading), else its file name. */
  title?: string;
  /** PDF pages. */
  pages?: number;
  /** Spreadsheet sheets (a CSV is one). */
  sheets?: number;
}

const NAMES: Record<DocumentType, string> = {
  pdf: "PDF",
  docx: "Word (.docx)",
  xlsx: "Excel (.xlsx)",
  csv: "CSV",
  odt: "OpenDocument text (.odt)",
  ods: "OpenDocument spreadsheet (.ods)",
};

/** The last segment of the URL's path, decoded; undefined when the path names no file. */
export function fileNameOf(url: string): string | undefined {
  try {
    const path = new URL(url).pathname;
    const last = path.slice(path.lastIndexOf("/") + 1);
    return last ? decodeURIComponent(last) : undefined;
  } catch {
    return undefined;
  }
}

/** A password-protected .docx/.xlsx is an OLE2 container holding an EncryptedPackage stream. */
function ole2Error(bytes: Uint8Array, type: DocumentType): DocumentError {
  const marker = Buffer.from("EncryptedPackage", "utf16le");
  if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(marker))
    return new DocumentError(
      "document_encrypted",
      `the ${NAMES[type]} file is password-protected; it cannot be read without its password`,
    );
  return new DocumentError(
    "document_unsupported",
    `the file is a legacy binary Office document (.doc/.xls), not ${NAMES[type]}; only the current formats are converted`,
  );
}

type Converter = (
  bytes: Uint8Array,
  opts: ConvertOptions,
  budget: Budget,
) => ConvertedDocument | Promise<ConvertedDocument>;

/** The converter of each document type; a type missing here does not compile. */
const CONVERTERS: { readonly [T in DocumentType]: Converter } = {
  pdf: (bytes, opts, budget) => convertPdf(bytes, opts.maxPages ?? MAX_PDF_PAGES, budget),
  docx: (bytes, opts, budget) => convertDocx(bytes, opts.url, budget),
  xlsx: (bytes, _opts, budget) => convertXlsx(bytes, budget),
  csv: (bytes, opts, budget) => convertCsv(bytes, fileNameOf(opts.url) ?? "table.csv", budget),
  odt: (bytes, opts, budget) => convertOdt(bytes, opts.url, budget),
  ods: (bytes, _opts, budget) => convertOds(bytes, budget),
};

async function run(bytes: Uint8Array, type: DocumentType, opts: ConvertOptions, budget: Budget) {
  if ((type === "docx" || type === "xlsx") && isOle2(bytes)) throw ole2Error(bytes, type);
  // Callers from plain JavaScript can pass any string.
  if (!Object.hasOwn(CONVERTERS, type))
    throw new DocumentError("document_unsupported", `documents of type ${String(type)} are not converted`);
  return CONVERTERS[type](bytes, opts, budget);
}

/**
 * Convert a document to markdown. Never throws anything but a DocumentError, whose code says why:
 * document_corrupt, document_encrypted, document_too_large (pages, unpacked size, time) or
 * document_unsupported.
 */
export async function convertDocument(
  bytes: Uint8Array,
  type: DocumentType,
  opts: ConvertOptions,
): Promise<ConvertedDocument> {
  if (bytes.byteLength === 0) throw new DocumentError("document_corrupt", `the ${NAMES[type]} file is empty`);
  const budget = new Budget(opts.timeBudgetMs ?? DEFAULT_TIME_BUDGET_MS);
  let out: ConvertedDocument;
  try {
    out = await run(bytes, type, opts, budget);
  } catch (err) {
    if (err instanceof DocumentError) throw err;
    const detail = err instanceof Error ? err.message : String(err);
    throw new DocumentError("document_corrupt", `the ${NAMES[type]} file cannot be read: ${detail}`);
  }
  if (out.markdown.length > MAX_MARKDOWN_CHARS)
    throw new DocumentError(
      "document_too_large",
      `the ${NAMES[type]} file converts to ${out.markdown.length} characters of markdown, more than the ${MAX_MARKDOWN_CHARS} allowed`,
    );
  const title = out.title ?? fileNameOf(opts.url);
  return { ...out, ...(title ? { title } : {}) };
}
