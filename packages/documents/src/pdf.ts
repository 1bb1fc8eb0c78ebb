import { type getDocumentProxy, getMeta, getResolvedPDFJS } from "unpdf";
import type { Budget } from "./budget.ts";
import { DocumentError } from "./errors.ts";

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;

/** The part of pdf.js's page proxy read here (its published types leave it `any`). */
interface PdfPage {
  getTextContent(): Promise<{ items: object[] }>;
  cleanup(): void;
}

interface Line {
  text: string;
  /** Baseline height on the page (PDF y grows upwards). */
  y: number;
  size: number;
}

export interface PdfResult {
  markdown: string;
  title?: string;
  pages: number;
}

/** The marker that starts each page's text: `<!-- page N -->`, invisible once rendered. */
export const pageMarker = (n: number) => `<!-- page ${n} -->`;

function pdfError(err: unknown): DocumentError {
  if (err instanceof DocumentError) return err;
  const name = (err as { name?: string } | undefined)?.name;
  if (name === "PasswordException")
    return new DocumentError(
      "document_encrypted",
      "the PDF is password-protected; it cannot be read without its password",
    );
  const detail = err instanceof Error ? `: ${err.message}` : "";
  return new DocumentError("document_corrupt", `the PDF is damaged or not a valid PDF${detail}`);
}

/** Text of a page, line by line; a vertical gap wider than a line and a half starts a paragraph. */
function pageText(items: ReadonlyArray<object>): string {
  const lines: Line[] = [];
  let current: Line | undefined;
  for (const item of items) {
    if (!("str" in item)) continue; // marked-content boundaries
    const { str, transform, hasEOL, height } = item as {
      str: string;
      transform: number[];
      hasEOL: boolean;
      height: number;
    };
    if (!current) current = { text: "", y: transform[5] ?? 0, size: height || 10 };
    current.text += str;
    if (hasEOL) {
      lines.push(current);
      current = undefined;
    }
  }
  if (current) lines.push(current);
  const out: string[] = [];
  let prev: Line | undefined;
  for (const line of lines) {
    const text = line.text.replace(/\s+/g, " ").trim();
    if (!text) continue;
    if (prev) {
      const gap = prev.y - line.y;
      const paragraph = gap < 0 || gap > 1.6 * Math.max(prev.size, line.size);
      out.push(paragraph ? "\n\n" : "\n");
    }
    out.push(text);
    prev = line;
  }
  return out.join("");
}

/**
 * A PDF's text, page by page in page order. Each page starts with `<!-- page N -->` on a line of its
 * own, and pages are separated by a blank line.
 */
export async function convertPdf(bytes: Uint8Array, maxPages: number, budget: Budget): Promise<PdfResult> {
  const pdfjs = await getResolvedPDFJS();
  // pdf.js may take ownership of (detach) the buffer it is given: hand it a copy.
  const task = pdfjs.getDocument({
    data: bytes.slice(),
    verbosity: 0,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
  });
  let pdf: PdfDocument | undefined;
  try {
    const doc: PdfDocument = await budget.race(task.promise);
    pdf = doc;
    if (doc.numPages > maxPages)
      throw new DocumentError(
        "document_too_large",
        `the PDF has ${doc.numPages} pages, more than the ${maxPages} allowed`,
      );
    let title: string | undefined;
    try {
      const { info, metadata } = await budget.race(getMeta(doc));
      const raw = (typeof info?.Title === "string" ? info.Title : undefined) ?? metadata?.get("dc:title");
      title = typeof raw === "string" && raw.trim() ? raw.trim() : undefined;
    } catch (err) {
      if (err instanceof DocumentError) throw err;
      // A PDF without readable metadata still has text.
    }
    const parts: string[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      budget.check();
      const page: PdfPage = await budget.race(doc.getPage(n) as Promise<PdfPage>);
      const content = await budget.race(page.getTextContent());
      page.cleanup();
      const text = pageText(content.items);
      parts.push(text ? `${pageMarker(n)}\n\n${text}` : pageMarker(n));
    }
    return { markdown: `${parts.join("\n\n")}\n`, pages: doc.numPages, ...(title ? { title } : {}) };
  } catch (err) {
    throw pdfError(err);
  } finally {
    await (pdf ? pdf.destroy() : task.destroy()).catch(() => {});
  }
}
