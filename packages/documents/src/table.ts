import { MAX_SHEET_COLUMNS, MAX_SHEET_ROWS } from "./limits.ts";

/** A cell as GFM table text: pipes escaped, line breaks as <br>, spaces collapsed at the ends. */
export function cellText(text: string): string {
  return text
    .trim()
    .replace(/\|/g, "\\|")
    .replace(/\r\n|\r|\n/g, "<br>");
}

/**
 * The non-empty rows of one sheet, bounded: at most MAX_SHEET_ROWS rows and MAX_SHEET_COLUMNS columns
 * are kept, while the totals keep counting so the markdown can say what was cut. Empty rows are
 * dropped (a sheet's trailing empties can number a million).
 */
export class Grid {
  readonly rows: string[][] = [];
  /** Non-empty rows seen, kept or not. */
  totalRows = 0;
  /** One past the highest column with text, kept or not. */
  width = 0;

  constructor(
    readonly maxRows = MAX_SHEET_ROWS,
    readonly maxColumns = MAX_SHEET_COLUMNS,
  ) {}

  get full(): boolean {
    return this.rows.length >= this.maxRows;
  }

  /**
   * One row, as [column index, text] pairs (columns past maxColumns may be left out by the caller, as
   * long as `lastColumn` says how far the row really reached). `repeat` adds the same row n times.
   */
  add(cells: Iterable<[number, string]>, repeat = 1, lastColumn = -1): void {
    const row: string[] = [];
    let last = lastColumn;
    for (const [col, raw] of cells) {
      const text = raw.trim();
      if (!text) continue;
      last = Math.max(last, col);
      if (col < this.maxColumns) row[col] = text;
    }
    if (last < 0) return;
    this.width = Math.max(this.width, last + 1);
    this.totalRows += repeat;
    const dense = Array.from(row, (c) => c ?? "");
    for (let i = 0; i < repeat && !this.full; i++) this.rows.push(dense);
  }

  /** The grid as a GFM table (first row as header), with a note when rows or columns were cut. */
  markdown(): string {
    if (this.rows.length === 0) return "_This sheet is empty._";
    const width = Math.min(this.width, this.maxColumns);
    // Leading columns that are empty in every row are dropped too.
    let first = width;
    for (const row of this.rows) {
      const at = row.findIndex((c) => c !== "");
      if (at >= 0) first = Math.min(first, at);
    }
    const line = (row: string[]) => {
      const cells: string[] = [];
      for (let c = first; c < width; c++) cells.push(cellText(row[c] ?? ""));
      return `| ${cells.join(" | ")} |`;
    };
    const [header = [], ...body] = this.rows;
    const out = [line(header), `|${" --- |".repeat(width - first)}`, ...body.map(line)];
    const cut: string[] = [];
    if (this.totalRows > this.rows.length)
      cut.push(`the first ${this.rows.length} of ${this.totalRows} rows`);
    if (this.width > width) cut.push(`the first ${width} of ${this.width} columns`);
    if (cut.length) out.push("", `_Cut: only ${cut.join(" and ")} are shown._`);
    return out.join("\n");
  }
}
