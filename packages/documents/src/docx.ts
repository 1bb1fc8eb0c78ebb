import { htmlToMarkdown } from "@browserfleet/markdown";
import mammoth from "mammoth";
import type { Budget } from "./budget.ts";
import { DocumentError } from "./errors.ts";
import { allText, escapeHtml, find, parseXml } from "./xml.ts";
import { openZip } from "./zip.ts";

export interface DocxResult {
  markdown: string;
  title?: string;
}

/** Images are dropped (kept as their alt text, if any): inlined as data: URIs they would dwarf the text. */
const dropImages = mammoth.images.imgElement(async () => ({ src: "" }));

/** A Word file through mammoth (semantic HTML: headings, lists, tables), then the service's HTML→markdown. */
export async function convertDocx(bytes: Uint8Array, url: string, budget: Budget): Promise<DocxResult> {
  const zip = await openZip(bytes, "Word", budget);
  if (!zip.has("word/document.xml"))
    throw new DocumentError("document_corrupt", "the file is a ZIP package but not a Word (.docx) document");
  const core = await zip.text("docProps/core.xml");
  let title: string | undefined;
  if (core) {
    try {
      const t = find(parseXml(core), "dc:title");
      title = t ? allText([t]).trim() || undefined : undefined;
    } catch {
      // Unreadable properties only cost the title.
    }
  }
  let html: string;
  try {
    const result = await budget.race(
      mammoth.convertToHtml(
        { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
        { externalFileAccess: false, convertImage: dropImages },
      ),
    );
    html = result.value;
  } catch (err) {
    if (err instanceof DocumentError) throw err;
    throw new DocumentError(
      "document_corrupt",
      `the Word document is damaged and cannot be read: ${(err as Error).message}`,
    );
  }
  const head = title ? `<title>${escapeHtml(title)}</title>` : "";
  const out = htmlToMarkdown(`<!DOCTYPE html><html><head>${head}</head><body>${html}</body></html>`, {
    baseUrl: url,
  });
  return { markdown: out.markdown, ...(out.title ? { title: out.title } : {}) };
}
