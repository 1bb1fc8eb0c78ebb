import { htmlToMarkdown } from "@browserfleet/markdown";
import type { Budget } from "./budget.ts";
import { DocumentError } from "./errors.ts";
import { MAX_SHEET_COLUMNS } from "./limits.ts";
import type { Grid } from "./table.ts";
import { type SheetsResult, sheetsMarkdown } from "./xlsx.ts";
import { allText, attr, childrenOf, escapeHtml, find, parseXml, tagOf, textOf, type XmlNode } from "./xml.ts";
import { openZip, type Zip } from "./zip.ts";

/**
 * OpenDocument text and spreadsheets. No maintained ODF-to-markdown library exists, so this maps the
 * elements of content.xml (read with jszip and fast-xml-parser): text to HTML for the service's
 * HTML→markdown, sheets to the same tables as Excel workbooks.
 */

const MIMETYPES = {
  odt: ["application/vnd.oasis.opendocument.text", "application/vnd.oasis.opendocument.text-template"],
  ods: [
    "application/vnd.oasis.opendocument.spreadsheet",
    "application/vnd.oasis.opendocument.spreadsheet-template",
  ],
};
const LABEL = { odt: "OpenDocument text (.odt)", ods: "OpenDocument spreadsheet (.ods)" };

/** Repeats in a text document's tables are honoured up to this many. */
const MAX_TEXT_TABLE_REPEAT = 100;

async function openOdf(bytes: Uint8Array, kind: "odt" | "ods", budget: Budget) {
  const zip = await openZip(bytes, LABEL[kind], budget);
  const mimetype = (await zip.text("mimetype"))?.trim();
  if (mimetype && !MIMETYPES[kind].includes(mimetype))
    throw new DocumentError("document_corrupt", `the file is not an ${LABEL[kind]} document (${mimetype})`);
  const manifest = await zip.text("META-INF/manifest.xml");
  if (manifest?.includes("encryption-data"))
    throw new DocumentError(
      "document_encrypted",
      `the ${LABEL[kind]} document is password-protected; it cannot be read without its password`,
    );
  const content = await zip.text("content.xml");
  if (content === undefined)
    throw new DocumentError("document_corrupt", `the ${LABEL[kind]} document has no content.xml`);
  return { zip, root: parse(content, kind) };
}

function parse(xml: string, kind: "odt" | "ods"): XmlNode[] {
  try {
    return parseXml(xml);
  } catch (err) {
    throw new DocumentError(
      "document_corrupt",
      `the ${LABEL[kind]} document is damaged: content.xml is not valid XML (${(err as Error).message})`,
    );
  }
}

async function metaTitle(zip: Zip): Promise<string | undefined> {
  const meta = await zip.text("meta.xml");
  if (!meta) return undefined;
  try {
    const t = find(parseXml(meta), "dc:title");
    return t ? allText([t]).trim() || undefined : undefined;
  } catch {
    return undefined;
  }
}

const intAttr = (node: XmlNode, name: string, fallback = 1) => {
  const n = Number.parseInt(attr(node, name) ?? "", 10);
  return Number.isFinite(n) && n > 0 ? n : fallback;
};

// ---- Text documents -------------------------------------------------------------------------------

interface TextStyles {
  /** List style names whose first level is numbered. */
  numbered: Set<string>;
  bold: Set<string>;
  italic: Set<string>;
}

/** Numbered lists and bold/italic spans, from the automatic and common styles. */
function readStyles(roots: XmlNode[][]): TextStyles {
  const styles: TextStyles = { numbered: new Set(), bold: new Set(), italic: new Set() };
  const visit = (nodes: XmlNode[]) => {
    for (const n of nodes) {
      const tag = tagOf(n);
      if (!tag) continue;
      const name = attr(n, "style:name");
      if (tag === "text:list-style" && name) {
        const first = childrenOf(n).find((c) => tagOf(c)?.startsWith("text:list-level-style"));
        if (first && tagOf(first) === "text:list-level-style-number") styles.numbered.add(name);
      } else if (tag === "style:style" && name) {
        const props = childrenOf(n).find((c) => tagOf(c) === "style:text-properties");
        if (props && /^(bold|[6-9]00)$/.test(attr(props, "fo:font-weight") ?? "")) styles.bold.add(name);
        if (props && attr(props, "fo:font-style") === "italic") styles.italic.add(name);
      } else if (
        tag === "office:document-content" ||
        tag === "office:document-styles" ||
        tag.endsWith("styles")
      ) {
        visit(childrenOf(n));
      }
    }
  };
  for (const r of roots) visit(r);
  return styles;
}

/** Elements that carry no reading text. */
const SKIP = new Set([
  "office:annotation",
  "office:annotation-end",
  "office:forms",
  "text:tracked-changes",
  "text:sequence-decls",
  "text:variable-decls",
  "text:user-field-decls",
  "text:table-of-content-source",
  "text:alphabetical-index-source",
  "text:illustration-index-source",
  "text:soft-page-break",
  "text:bookmark",
  "text:bookmark-start",
  "text:bookmark-end",
  "table:table-columns",
  "table:table-column",
  "table:table-column-group",
  "draw:image",
  "svg:title",
  "svg:desc",
]);

class TextRenderer {
  private readonly notes: string[] = [];
  constructor(private readonly styles: TextStyles) {}

  document(body: XmlNode[]): string {
    const html = this.blocks(body);
    const notes = this.notes.length ? `<hr><ol>${this.notes.map((n) => `<li>${n}</li>`).join("")}</ol>` : "";
    return html + notes;
  }

  private blocks(nodes: XmlNode[]): string {
    let out = "";
    for (const n of nodes) {
      const tag = tagOf(n);
      if (!tag || SKIP.has(tag)) continue;
      const kids = childrenOf(n);
      switch (tag) {
        case "text:h": {
          const level = Math.min(6, intAttr(n, "text:outline-level"));
          out += `<h${level}>${this.inline(kids)}</h${level}>`;
          break;
        }
        case "text:p":
          out += `<p>${this.inline(kids)}</p>`;
          break;
        case "text:list":
          out += this.list(n);
          break;
        case "table:table":
          out += this.table(kids);
          break;
        default:
          // Sections, frames, text boxes, indexes: their content is ordinary blocks.
          out += this.blocks(kids);
      }
    }
    return out;
  }

  private list(node: XmlNode): string {
    const style = attr(node, "text:style-name");
    const tag = style && this.styles.numbered.has(style) ? "ol" : "ul";
    const items = childrenOf(node)
      .filter((c) => tagOf(c) === "text:list-item" || tagOf(c) === "text:list-header")
      .map((item) => `<li>${this.listItem(childrenOf(item))}</li>`);
    return `<${tag}>${items.join("")}</${tag}>`;
  }

  /** An item's paragraphs as lines of one tight item; nested lists and tables as blocks. */
  private listItem(nodes: XmlNode[]): string {
    let out = "";
    let lastInline = false;
    for (const n of nodes) {
      const tag = tagOf(n);
      if (tag === "text:p" || tag === "text:h") {
        const line = this.inline(childrenOf(n));
        if (!line) continue;
        out += (lastInline ? "<br>" : "") + line;
        lastInline = true;
      } else if (tag) {
        out += this.blocks([n]);
        lastInline = false;
      }
    }
    return out;
  }

  private inline(nodes: XmlNode[]): string {
    let out = "";
    for (const n of nodes) {
      const text = textOf(n);
      if (text !== undefined) {
        out += escapeHtml(text);
        continue;
      }
      const tag = tagOf(n);
      if (!tag || SKIP.has(tag)) continue;
      const kids = childrenOf(n);
      switch (tag) {
        case "text:s":
          out += " ".repeat(Math.min(intAttr(n, "text:c"), 100));
          break;
        case "text:tab":
          out += " ";
          break;
        case "text:line-break":
          out += "<br>";
          break;
        case "text:a": {
          const href = attr(n, "xlink:href");
          out += href ? `<a href="${escapeHtml(href)}">${this.inline(kids)}</a>` : this.inline(kids);
          break;
        }
        case "text:span": {
          const style = attr(n, "text:style-name") ?? "";
          let inner = this.inline(kids);
          if (this.styles.bold.has(style)) inner = `<strong>${inner}</strong>`;
          if (this.styles.italic.has(style)) inner = `<em>${inner}</em>`;
          out += inner;
          break;
        }
        case "text:note": {
          const citation = allText(childrenOf(n).filter((c) => tagOf(c) === "text:note-citation")).trim();
          const body = childrenOf(n).find((c) => tagOf(c) === "text:note-body");
          const paragraphs = body ? childrenOf(body).map((p) => this.inline(childrenOf(p))) : [];
          this.notes.push(paragraphs.filter(Boolean).join(" "));
          out += `<sup>[${escapeHtml(citation || String(this.notes.length))}]</sup>`;
          break;
        }
        default:
          out += this.inline(kids);
      }
    }
    return out;
  }

  private table(nodes: XmlNode[]): string {
    const head: string[] = [];
    const body: string[] = [];
    const rows = (list: XmlNode[], into: string[]) => {
      for (const n of list) {
        const tag = tagOf(n);
        if (tag === "table:table-header-rows") rows(childrenOf(n), head);
        else if (tag === "table:table-rows" || tag === "table:table-row-group") rows(childrenOf(n), into);
        else if (tag === "table:table-row") {
          const tr = `<tr>${this.cells(childrenOf(n))}</tr>`;
          const repeat = Math.min(intAttr(n, "table:number-rows-repeated"), MAX_TEXT_TABLE_REPEAT);
          for (let i = 0; i < repeat; i++) into.push(tr);
        }
      }
    };
    rows(nodes, body);
    const thead = head.length ? `<thead>${head.join("")}</thead>` : "";
    return `<table>${thead}<tbody>${body.join("")}</tbody></table>`;
  }

  private cells(nodes: XmlNode[]): string {
    let out = "";
    for (const n of nodes) {
      if (tagOf(n) !== "table:table-cell") continue; // covered cells belong to a spanning one
      const span = intAttr(n, "table:number-columns-spanned");
      const content = this.blocks(childrenOf(n));
      const td = `<td${span > 1 ? ` colspan="${span}"` : ""}>${content}</td>`;
      const repeat = Math.min(intAttr(n, "table:number-columns-repeated"), MAX_TEXT_TABLE_REPEAT);
      out += td.repeat(repeat);
    }
    return out;
  }
}

export interface OdtResult {
  markdown: string;
  title?: string;
}

export async function convertOdt(bytes: Uint8Array, url: string, budget: Budget): Promise<OdtResult> {
  const { zip, root } = await openOdf(bytes, "odt", budget);
  const stylesXml = await zip.text("styles.xml");
  let stylesRoot: XmlNode[] = [];
  try {
    stylesRoot = stylesXml ? parseXml(stylesXml) : [];
  } catch {
    // Without styles, lists are bulleted and spans plain.
  }
  const text = find(root, "office:text");
  if (!text) throw new DocumentError("document_corrupt", "the OpenDocument file has no text body");
  const renderer = new TextRenderer(readStyles([root, stylesRoot]));
  const html = renderer.document(childrenOf(text));
  budget.check();
  const title = await metaTitle(zip);
  const head = title ? `<title>${escapeHtml(title)}</title>` : "";
  const out = htmlToMarkdown(`<!DOCTYPE html><html><head>${head}</head><body>${html}</body></html>`, {
    baseUrl: url,
  });
  return { markdown: out.markdown, ...(out.title ? { title: out.title } : {}) };
}

// ---- Spreadsheets ---------------------------------------------------------------------------------

/** A cell's shown text: its paragraphs, one per line. */
function cellShownText(cell: XmlNode): string {
  return childrenOf(cell)
    .filter((c) => tagOf(c) === "text:p")
    .map((p) => inlineText(childrenOf(p)))
    .join("\n");
}

function inlineText(nodes: XmlNode[]): string {
  let out = "";
  for (const n of nodes) {
    const text = textOf(n);
    if (text !== undefined) out += text;
    else if (tagOf(n) === "text:s") out += " ".repeat(Math.min(intAttr(n, "text:c"), 100));
    else if (tagOf(n) === "text:tab") out += " ";
    else if (tagOf(n) === "text:line-break") out += "\n";
    else if (!SKIP.has(tagOf(n) ?? "")) out += inlineText(childrenOf(n));
  }
  return out;
}

/**
 * One sheet into the grid. Repeats are expanded only as far as the grid keeps rows and columns:
 * LibreOffice ends a sheet with empty cells repeated to column 16384 and rows repeated to 1048576,
 * which cost nothing here (empty cells are skipped, empty rows dropped).
 */
function fillSheet(table: XmlNode, grid: Grid): void {
  const rowsOf = (nodes: XmlNode[]) => {
    for (const n of nodes) {
      const tag = tagOf(n);
      if (tag === "table:table-header-rows" || tag === "table:table-rows" || tag === "table:table-row-group")
        rowsOf(childrenOf(n));
      else if (tag === "table:table-row") {
        const cells: Array<[number, string]> = [];
        let col = 0;
        let last = -1;
        for (const c of childrenOf(n)) {
          const ctag = tagOf(c);
          if (ctag !== "table:table-cell" && ctag !== "table:covered-table-cell") continue;
          const repeat = intAttr(c, "table:number-columns-repeated");
          const text = ctag === "table:table-cell" ? cellShownText(c).trim() : "";
          if (text) {
            for (let i = 0; i < repeat && col + i < MAX_SHEET_COLUMNS; i++) cells.push([col + i, text]);
            last = col + repeat - 1;
          }
          col += repeat;
        }
        // Counted in full, but the grid stops copying once it holds MAX_SHEET_ROWS rows.
        grid.add(cells, intAttr(n, "table:number-rows-repeated"), last);
      }
    }
  };
  rowsOf(childrenOf(table));
}

export async function convertOds(bytes: Uint8Array, budget: Budget): Promise<SheetsResult> {
  const { zip, root } = await openOdf(bytes, "ods", budget);
  const spreadsheet = find(root, "office:spreadsheet");
  if (!spreadsheet)
    throw new DocumentError("document_corrupt", "the OpenDocument file has no spreadsheet body");
  const tables = childrenOf(spreadsheet).filter((n) => tagOf(n) === "table:table");
  const sheets = tables.map((t, i) => ({
    name: attr(t, "table:name") ?? `Sheet ${i + 1}`,
    fill: (grid: Grid) => fillSheet(t, grid),
  }));
  const title = await metaTitle(zip);
  return { markdown: sheetsMarkdown(sheets, budget), sheets: tables.length, ...(title ? { title } : {}) };
}
