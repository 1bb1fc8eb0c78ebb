/**
 * Reshapes tables before turndown so each can be emitted as a GFM table:
 * exactly one header row inside <thead>, every row the same number of cells,
 * and no block content (lists, headings, code) that cannot live in a cell.
 * Layout tables (nesting tables, or a single cell) are unwrapped instead.
 */

import { walkElements } from "./dom.ts";

export type Alignment = "" | "left" | "right" | "center";

// Conversion runs on these very nodes (no clone), so plain weak maps can
// carry what the table rules need.
const gfmTables = new WeakMap<Element, Alignment[]>();
/** Marker elements whose text must be emitted without Markdown escaping. */
export const rawMarkers = new WeakMap<Element, string>();

/** Column alignments if `el` is a table normalized into GFM shape. */
export function gfmTableOf(el: Element | null | undefined): Alignment[] | undefined {
  return el ? gfmTables.get(el) : undefined;
}

const MAX_COLSPAN = 100;
const CELL_BLOCKS = new Set(["PRE", "UL", "OL", "H1", "H2", "H3", "H4", "H5", "H6", "HR", "BLOCKQUOTE"]);

const TABLE_PARTS = new Set(["CAPTION", "THEAD", "TBODY", "TFOOT", "TR", "TD", "TH"]);

const isCell = (el: Element) => el.nodeName === "TD" || el.nodeName === "TH";

function span(el: Element, name: string, max: number): number {
  const n = Number.parseInt(el.getAttribute(name) ?? "", 10);
  return Number.isFinite(n) && n >= 1 ? Math.min(n, max) : 1;
}

/** Rows in rendering order: thead, then body rows, then tfoot. */
function collectRows(table: Element): { head: Element[]; body: Element[] } {
  const head: Element[] = [];
  const body: Element[] = [];
  const foot: Element[] = [];
  for (const child of table.children) {
    if (child.nodeName === "TR") body.push(child);
    else if (child.nodeName === "THEAD") head.push(...rowsOf(child));
    else if (child.nodeName === "TBODY") body.push(...rowsOf(child));
    else if (child.nodeName === "TFOOT") foot.push(...rowsOf(child));
  }
  return { head, body: [...body, ...foot] };
}

function rowsOf(section: Element): Element[] {
  return Array.from(section.children).filter((el) => el.nodeName === "TR");
}

/**
 * Lays rows out on a grid: a cell spanning several columns or rows is kept
 * in its first slot and the other slots get empty cells, then short rows are
 * padded, so every row ends up with the same number of cells.
 */
function gridRows(rows: Element[], document: Document): Element[][] {
  const pending: number[] = []; // rows still covered by a rowspan, per column
  const grid = rows.map((row, r) => {
    const out: Element[] = [];
    let col = 0;
    const fillSpanned = () => {
      while ((pending[col] ?? 0) > 0) {
        pending[col] = (pending[col] ?? 1) - 1;
        out.push(document.createElement("td"));
        col++;
      }
    };
    for (const cell of Array.from(row.children).filter(isCell)) {
      fillSpanned();
      const colspan = span(cell, "colspan", MAX_COLSPAN);
      const rowspan = span(cell, "rowspan", rows.length - r);
      cell.removeAttribute("colspan");
      cell.removeAttribute("rowspan");
      out.push(cell);
      for (let i = 1; i < colspan; i++) out.push(document.createElement("td"));
      for (let i = 0; i < colspan; i++) pending[col + i] = rowspan - 1;
      col += colspan;
    }
    while (col < pending.length) {
      if ((pending[col] ?? 0) > 0) pending[col] = (pending[col] ?? 1) - 1;
      out.push(document.createElement("td"));
      col++;
    }
    return out;
  });
  const width = grid.reduce((max, cells) => Math.max(max, cells.length), 0);
  for (const cells of grid) {
    while (cells.length < width) cells.push(document.createElement("td"));
  }
  return grid;
}

function rawText(document: Document, text: string): Element {
  const el = document.createElement("span");
  // Must not be blank (turndown drops blank nodes before any rule) nor carry
  // edge whitespace (turndown would add it again around the replacement).
  el.textContent = text.trim();
  rawMarkers.set(el, text);
  return el;
}

function moveChildren(from: Element, to: Element): Element {
  to.append(...Array.from(from.childNodes));
  return to;
}

/** Block content cannot live in a GFM cell; rewrite it as inline or paragraph content. */
function flattenCellBlocks(table: Element, document: Document): void {
  const blocks: Element[] = [];
  const walker = document.createTreeWalker(table, 1 /* NodeFilter.SHOW_ELEMENT */);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (CELL_BLOCKS.has(node.nodeName)) blocks.push(node as Element);
  }
  for (const el of blocks) {
    if (!table.contains(el)) continue; // lost with an outer <pre>
    switch (el.nodeName) {
      case "PRE": {
        const code = document.createElement("code");
        code.textContent = el.textContent ?? "";
        el.replaceWith(code);
        break;
      }
      case "HR":
        el.remove();
        break;
      case "UL":
      case "OL": {
        // One paragraph per item; paragraphs in a cell are joined with <br>.
        const start = Number.parseInt(el.getAttribute("start") ?? "", 10);
        let n = Number.isFinite(start) ? start : 1;
        const wrapper = document.createElement("div");
        for (const item of Array.from(el.children)) {
          const marker = el.nodeName === "OL" ? `${n++}. ` : "- ";
          const p = document.createElement("p");
          p.append(rawText(document, marker));
          wrapper.append(moveChildren(item, p));
        }
        el.replaceWith(wrapper);
        break;
      }
      case "BLOCKQUOTE":
        el.replaceWith(moveChildren(el, document.createElement("div")));
        break;
      default: {
        const p = document.createElement("p");
        p.append(moveChildren(el, document.createElement("strong")));
        el.replaceWith(p);
      }
    }
  }
}

function nearestTable(el: Element): Element | null {
  for (let p = el.parentElement; p; p = p.parentElement) if (p.nodeName === "TABLE") return p;
  return null;
}

/** Layout tables (nesting another table, or a single cell) become plain blocks. */
function unwrapTable(table: Element, document: Document): void {
  const wrapper = document.createElement("div");
  for (const el of table.querySelectorAll("caption, td, th")) {
    if (nearestTable(el) !== table) continue;
    wrapper.append(moveChildren(el, document.createElement("div")));
  }
  table.replaceWith(wrapper);
}

const TEXT_ALIGN = /(?:^|;)\s*text-align\s*:\s*(left|right|center)\b/i;

function cellAlignment(cell: Element): Alignment {
  const value = (cell.getAttribute("align") ?? TEXT_ALIGN.exec(cell.getAttribute("style") ?? "")?.[1] ?? "")
    .trim()
    .toLowerCase();
  return value === "left" || value === "right" || value === "center" ? value : "";
}

/** Per column, the alignment most cells agree on (unaligned cells vote too). */
function columnAlignments(grid: Element[][]): Alignment[] {
  const width = grid[0]?.length ?? 0;
  return Array.from({ length: width }, (_, col) => {
    const votes = new Map<Alignment, number>();
    let best: Alignment = "";
    for (const cells of grid) {
      const cell = cells[col];
      if (!cell) continue;
      const align = cellAlignment(cell);
      const n = (votes.get(align) ?? 0) + 1;
      votes.set(align, n);
      if (n > (votes.get(best) ?? 0)) best = align;
    }
    return best;
  });
}

export function normalizeTables(root: Element): void {
  const document = root.ownerDocument;
  const tables: Element[] = [];
  const orphans: Element[] = [];
  walkElements(root, (el) => {
    if (el.nodeName === "TABLE") tables.push(el);
    else if (TABLE_PARTS.has(el.nodeName) && !nearestTable(el)) orphans.push(el);
    return true;
  });
  // Rows and cells outside any table (an HTML5 parser drops such tags and keeps their content; ours
  // keeps the tags) would reach the table rules with no table: they become plain blocks.
  for (const el of orphans) el.replaceWith(moveChildren(el, document.createElement("div")));
  if (tables.length === 0) return;
  // A table holding another one is a layout table: found from the inner side,
  // one parent walk per table instead of a selector query per table.
  const layout = new Set<Element>();
  for (const table of tables) {
    const outer = nearestTable(table);
    if (outer) layout.add(outer);
  }

  for (const table of tables) {
    if (layout.has(table)) {
      unwrapTable(table, document);
      continue;
    }
    const { head, body } = collectRows(table);
    const rows = [...head, ...body].filter((row) => Array.from(row.children).some(isCell));
    const cellCount = rows.reduce((n, row) => n + Array.from(row.children).filter(isCell).length, 0);
    if (cellCount <= 1) {
      unwrapTable(table, document);
      continue;
    }
    flattenCellBlocks(table, document);
    const grid = gridRows(rows, document);
    const caption = Array.from(table.children).find((el) => el.nodeName === "CAPTION");
    const thead = document.createElement("thead");
    const tbody = document.createElement("tbody");
    grid.forEach((cells, i) => {
      const tr = document.createElement("tr");
      tr.append(...cells);
      (i === 0 ? thead : tbody).append(tr);
    });
    table.replaceChildren(...(caption ? [caption] : []), thead, ...(grid.length > 1 ? [tbody] : []));
    gfmTables.set(table, columnAlignments(grid));
  }
}
